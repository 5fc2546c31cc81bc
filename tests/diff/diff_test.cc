// Differential test, LLVM backend vs C backend on generated programs (diff_suite.h). The same run
// with the reference interpreter as a third leg is diff_interp_test.
#include "gtest/gtest.h"
#include "tests/diff/diff_suite.h"

namespace kiln::difftest {
namespace {

TEST(DiffTest, GeneratedProgramsAreValidTIR) { ExpectProgramsRoundTrip(1, 40); }

TEST(DiffTest, BrokenLegIsCaught) { ExpectBrokenLegIsCaught(); }

TEST(DiffTest, LLVMAndCAgree) { ExpectBackendsAgree(OptionsFromEnv(nullptr)); }

}  // namespace
}  // namespace kiln::difftest
