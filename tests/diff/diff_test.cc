// Differential test, LLVM backend vs C backend on generated programs (diff_suite.h). The same run
// with the reference interpreter as a third leg is diff_interp_test.
#include <algorithm>

#include "gtest/gtest.h"
#include "tests/diff/diff_suite.h"

namespace kiln::difftest {
namespace {

TEST(DiffTest, GeneratedProgramsAreValidTIR) { ExpectProgramsRoundTrip(1, 40); }

TEST(DiffTest, BrokenLegIsCaught) { ExpectBrokenLegIsCaught(); }

TEST(DiffTest, LLVMAndCAgree) { ExpectBackendsAgree(OptionsFromEnv(nullptr)); }

// Checked mode (issue 14): the same programs, every check compiled in, agree and raise no alarm.
TEST(DiffTest, CheckedModeAgreesWithNoFalseAlarm) {
  DiffOptions options = OptionsFromEnv(nullptr);
  options.checked = true;
  options.num_programs = std::min(options.num_programs, 75);  // CI time; KILN_DIFF_PROGRAMS lowers it
  ExpectBackendsAgree(options);
}

}  // namespace
}  // namespace kiln::difftest
