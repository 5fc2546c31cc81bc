// The corpus programs that need no legalization (call_tir kernels and runtime operators only) go
// through the lowering passes, in pipeline order, and come out in the VM-lowered form, well formed.
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"
#include "tests/util/shared_dir.h"

namespace kiln::relax::transform {
namespace {

std::string ReadCorpus(const std::string& name) {
  absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
  EXPECT_TRUE(shared.ok()) << shared.status();
  if (!shared.ok()) return "";
  std::ifstream in(*shared + "/corpus/relax/" + name + ".py");
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The passes before VMShapeLower, each checked for well-formedness. (VMShapeLower's output is
// not: its match_shape calls, not match_cast, define the symbolic variables.)
absl::StatusOr<ir::IRModule> LowerToShapes(ir::IRModule mod) {
  for (auto pass : {LambdaLift, RewriteDataflowReshape, ToNonDataflow, RemovePurityChecking, CallTIRRewrite,
                    StaticPlanBlockMemory, KillAfterLastUse, LowerRuntimeBuiltin, ComputePrimValue}) {
    absl::StatusOr<ir::IRModule> next = pass(mod);
    if (!next.ok()) return next.status();
    absl::Status wf = CheckWellFormed(*next, nullptr);
    if (!wf.ok()) return wf;
    mod = *next;
  }
  return mod;
}

class LowerCorpus : public ::testing::TestWithParam<const char*> {};

TEST_P(LowerCorpus, ReachesTheVMLoweredForm) {
  ir::IRModule mod = testing::Parse(ReadCorpus(GetParam()));
  absl::StatusOr<ir::IRModule> before = LowerToShapes(mod);
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<ir::IRModule> lowered = VMShapeLower(*before);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_TRUE(CheckVMLoweredForm(*lowered).ok()) << CheckVMLoweredForm(*lowered) << "\n"
                                                 << testing::PrintFunction(*lowered);
}

INSTANTIATE_TEST_SUITE_P(Corpus, LowerCorpus,
                         ::testing::Values("008_call_tir_static", "009_call_tir_symbolic_prim_arg",
                                           "015_match_cast_symbolic"));

}  // namespace
}  // namespace kiln::relax::transform
