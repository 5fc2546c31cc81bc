// RunRelaxPipeline: the passes run in the documented order (seen through the after_pass hook), the
// result is in the VM-lowered form (no dataflow blocks, no high-level operators, kernels exported),
// a hook's error stops the pipeline, and a pass's error names the pass.
#include "compiler/driver/relax_pipeline.h"

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

constexpr char kSource[] = R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(lv, x)
            R.output(gv)
        return gv
)PY";

ir::IRModule Parse(const char* text) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(text, "pipeline_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

TEST(RelaxPipeline, RunsThePassesInOrderToTheVMForm) {
  std::vector<std::string> seen;
  RelaxPipelineOptions options;
  options.hooks.after_pass = [&](absl::string_view pass, const ir::IRModule&) { seen.emplace_back(pass); };
  absl::StatusOr<ir::IRModule> out = RunRelaxPipeline(Parse(kSource), options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(seen, (std::vector<std::string>{"Normalize", "LambdaLift", "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR",
                                            "DeadCodeElimination", "ScheduleDefaultCPU", "RewriteDataflowReshape", "ToNonDataflow", "RemovePurityChecking",
                                            "CallTIRRewrite", "StaticPlanBlockMemory", "KillAfterLastUse", "LowerRuntimeBuiltin",
                                            "ComputePrimValue", "VMShapeLower", "AttachGlobalSymbol"}));
  EXPECT_TRUE(relax::CheckVMLoweredForm(*out).ok()) << relax::CheckVMLoweredForm(*out);
  // Every kernel the Relax function calls is exported under a symbol.
  for (const auto& [gv, f] : out->Functions()) {
    if (f.as<ir::PrimFuncNode>() != nullptr) {
      EXPECT_FALSE(f->GetGlobalSymbol().empty()) << gv->name;
    }
  }
}

TEST(RelaxPipeline, VerifyEachChecksEveryIntermediateModule) {
  RelaxPipelineOptions options;
  options.hooks.verify_each = true;
  std::vector<std::string> dumped;
  options.hooks.after_pass = [&](absl::string_view name, const ir::IRModule&) { dumped.emplace_back(name); };
  absl::StatusOr<ir::IRModule> out = RunRelaxPipeline(Parse(kSource), options);
  ASSERT_TRUE(out.ok()) << out.status();
  // Every pass but the other target's default schedule.
  EXPECT_EQ(dumped.size(), RelaxPassNames().size() - 1);
  EXPECT_NE(std::find(dumped.begin(), dumped.end(), "ScheduleDefaultCPU"), dumped.end());
  EXPECT_EQ(std::find(dumped.begin(), dumped.end(), "ScheduleDefaultGPU"), dumped.end());
  EXPECT_EQ(RelaxPassNames().front(), "Normalize");
  EXPECT_EQ(RelaxPassNames().back(), "AttachGlobalSymbol");

  // A GPU target schedules for the GPU instead.
  dumped.clear();
  options.gpu = true;
  out = RunRelaxPipeline(Parse(kSource), options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(dumped.size(), RelaxPassNames().size() - 1);
  EXPECT_EQ(std::find(dumped.begin(), dumped.end(), "ScheduleDefaultCPU"), dumped.end());
  EXPECT_NE(std::find(dumped.begin(), dumped.end(), "ScheduleDefaultGPU"), dumped.end());
}

TEST(RelaxPipeline, PassErrorsNameThePass) {
  // An output of unknown shape cannot be allocated: CallTIRRewrite rejects it.
  absl::StatusOr<ir::IRModule> out = RunRelaxPipeline(Parse(R"PY(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def copy(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor(dtype="float32", ndim=1))
        return y
)PY"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message().rfind("CallTIRRewrite: ", 0), 0u) << out.status();
}

}  // namespace
}  // namespace kiln::driver
