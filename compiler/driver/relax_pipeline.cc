// The Relax pipeline in order. Each step is one pass: LegalizeOps in compiler/relax/legalize, the
// others one file each in compiler/relax/transform (passes.h says what each does); the VM backend's
// AttachGlobalSymbol in compiler/relax/backend/vm. The order follows TVM's CPU pipeline with
// fusion (relax/backend/cpu_generic/pipeline.py: legalize and fuse, then lower to the VM form).
//
// Until the legalization, fusion and lowering passes land, the pipeline accepts modules already in
// the VM-lowered form (explicit memory, destination-passing kernel calls, vm.builtin.* calls).
#include "compiler/driver/relax_pipeline.h"

#include "absl/strings/str_cat.h"
#include "compiler/relax/backend/vm/attach_global_symbol.h"

namespace kiln::driver {
namespace {

using Pass = absl::StatusOr<ir::IRModule> (*)(const ir::IRModule&);

struct Step {
  const char* name;
  Pass run;
};

constexpr Step kSteps[] = {
    {"AttachGlobalSymbol", &relax::backend::AttachGlobalSymbol},
};

}  // namespace

absl::StatusOr<ir::IRModule> RunRelaxPipeline(const ir::IRModule& module, const RelaxPipelineOptions& options) {
  ir::IRModule mod = module;
  for (const Step& step : kSteps) {
    absl::StatusOr<ir::IRModule> next = step.run(mod);
    if (!next.ok()) {
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
