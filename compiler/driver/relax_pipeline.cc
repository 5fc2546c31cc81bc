// The Relax pipeline in order. Each step is one pass: LegalizeOps in compiler/relax/legalize, the
// others one file each in compiler/relax/transform (passes.h says what each does); the VM backend's
// AttachGlobalSymbol in compiler/relax/backend/vm. The order follows TVM's CPU pipeline with
// fusion (relax/backend/cpu_generic/pipeline.py: legalize and fuse, then lower to the VM form).
//
// Not yet here: StaticPlanBlockMemory (after CallTIRRewrite), which today shares the storage of a
// tensor passed to a Relax function call with a later allocation (corpus 013's recursion computes
// garbage with it, see relax_build_e2e_test), so every allocation keeps its own storage.
#include "compiler/driver/relax_pipeline.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/relax/backend/vm/attach_global_symbol.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::driver {
namespace {

using Pass = absl::StatusOr<ir::IRModule> (*)(const ir::IRModule&);

struct Step {
  const char* name;
  Pass run;
};

namespace t = relax::transform;

constexpr Step kSteps[] = {
    // Relax operators -> call_tir of PrimFuncs.
    {"LegalizeOps", &relax::legalize::LegalizeOps},
    // Fusion: chains of element-wise/injective kernels and their producer become one PrimFunc.
    {"AnnotateTIROpPattern", &t::AnnotateTIROpPattern},
    {"FuseOps", &t::FuseOps},
    {"FuseTIR", &t::FuseTIR},
    {"DeadCodeElimination", &t::DeadCodeElimination},
    // Lowering to the VM form: copy kernels that only reshape become views, dataflow blocks plain
    // blocks, call_tir an allocation plus a destination-passing call.
    {"RewriteDataflowReshape", &t::RewriteDataflowReshape},
    {"ToNonDataflow", &t::ToNonDataflow},
    {"RemovePurityChecking", &t::RemovePurityChecking},
    {"CallTIRRewrite", &t::CallTIRRewrite},
    // The memory/VM operators -> vm.builtin.* calls; then symbolic shapes -> shape-heap checks
    // and loads.
    {"LowerRuntimeBuiltin", &t::LowerRuntimeBuiltin},
    {"VMShapeLower", &t::VMShapeLower},
    // Kernels called from Relax get the symbol the VM resolves them by.
    {"AttachGlobalSymbol", &relax::backend::AttachGlobalSymbol},
};

}  // namespace

absl::StatusOr<ir::IRModule> RunRelaxPipeline(const ir::IRModule& module, const RelaxPipelineOptions& options) {
  ir::IRModule mod = module;
  for (const Step& step : kSteps) {
    absl::StatusOr<ir::IRModule> next = step.run(mod);
    if (!next.ok()) {
      // Name the pass, unless its message already does.
      if (absl::StartsWith(next.status().message(), step.name)) return next.status();
      return absl::Status(next.status().code(), absl::StrCat(step.name, ": ", next.status().message()));
    }
    mod = *std::move(next);
    if (options.after_pass) {
      if (absl::Status st = options.after_pass(step.name, mod); !st.ok()) return st;
    }
  }
  return mod;
}

}  // namespace kiln::driver
