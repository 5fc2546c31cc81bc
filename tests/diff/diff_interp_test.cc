// Differential test with the reference interpreter as the first leg (the oracle): interpreter vs
// LLVM backend vs C backend on generated programs (diff_suite.h).
#include "compiler/tir/interp/interp.h"
#include "gtest/gtest.h"
#include "tests/diff/diff_suite.h"

namespace kiln::difftest {
namespace {

absl::Status Interp(const ir::IRModule& m, const std::string& entry, const KilnAny* args, int32_t n, KilnAny* r) {
  tir::InterpOptions options;
  options.max_steps = 10'000'000;  // generated programs are small; a hang is a bug
  return tir::Interpret(m, entry, args, n, r, options);
}

TEST(DiffInterpTest, InterpreterLLVMAndCAgree) { ExpectBackendsAgree(OptionsFromEnv(Interp)); }

// Seeds that once disagreed. 2070: the simplifier decided a max from the difference of operands
// one of which wraps in int32.
TEST(DiffInterpTest, FormerFailuresAgree) {
  for (uint64_t seed : {2070}) {
    DiffOptions o;
    o.interpreter = Interp;
    o.first_seed = seed;
    o.num_programs = 1;
    ExpectBackendsAgree(o);
  }
}

}  // namespace
}  // namespace kiln::difftest
