// Differential test with the reference interpreter as the first leg (the oracle): interpreter vs
// LLVM backend vs C backend on generated programs (diff_suite.h).
#include "compiler/tir/interp/interp.h"
#include "gtest/gtest.h"
#include "tests/diff/diff_suite.h"

namespace kiln::difftest {
namespace {

TEST(DiffInterpTest, InterpreterLLVMAndCAgree) {
  Oracle interp = [](const ir::IRModule& m, const std::string& entry, const KilnAny* args, int32_t n, KilnAny* r) {
    tir::InterpOptions options;
    options.max_steps = 10'000'000;  // generated programs are small; a hang is a bug
    return tir::Interpret(m, entry, args, n, r, options);
  };
  ExpectBackendsAgree(OptionsFromEnv(interp));
}

}  // namespace
}  // namespace kiln::difftest
