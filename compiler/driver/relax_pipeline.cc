// The Relax pipeline in order. Each step is one pass: LegalizeOps in compiler/relax/legalize, the
// others one file each in compiler/relax/transform (passes.h says what each does); the VM backend's
// AttachGlobalSymbol in compiler/relax/backend/vm. The order follows TVM's CPU pipeline with
// fusion (relax/backend/cpu_generic/pipeline.py: legalize and fuse, then lower to the VM form).
#include "compiler/driver/relax_pipeline.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/relax/backend/vm/attach_global_symbol.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/script/script.h"

namespace kiln::driver {
namespace {

using Pass = absl::StatusOr<ir::IRModule> (*)(const ir::IRModule&);

enum class Only { kAny, kCPU, kGPU };

struct Step {
  const char* name;
  Pass run;
  Only only = Only::kAny;  // steps for CPU or GPU targets alone
};

namespace t = relax::transform;

constexpr Step kSteps[] = {
    // One operator call per binding (nested calls bound first), as TVM's passes expect.
    {"Normalize", &t::Normalize},
    // Local functions and closures become module-level functions (VM functions are global).
    {"LambdaLift", &t::LambdaLift},
    // Relax operators -> call_tir of PrimFuncs.
    {"LegalizeOps", &relax::legalize::LegalizeOps},
    // Fusion: chains of element-wise/injective kernels and their producer become one PrimFunc.
    {"AnnotateTIROpPattern", &t::AnnotateTIROpPattern},
    {"FuseOps", &t::FuseOps},
    {"FuseTIR", &t::FuseTIR},
    {"DeadCodeElimination", &t::DeadCodeElimination},
    // The default CPU schedule for the kernels no one scheduled by hand: parallel outer loops,
    // vectorized inner ones.
    {"ScheduleDefaultCPU", &relax::legalize::ScheduleDefaultCPU, Only::kCPU},
    // ... or, for GPU targets, every stage's spatial loops bound to blockIdx.x/threadIdx.x.
    {"ScheduleDefaultGPU", &relax::legalize::ScheduleDefaultGPU, Only::kGPU},
    // Lowering to the VM form: copy kernels that only reshape become views, dataflow blocks plain
    // blocks, call_tir an allocation plus a destination-passing call, allocations planned into
    // storage reused across lifetimes.
    {"RewriteDataflowReshape", &t::RewriteDataflowReshape},
    {"ToNonDataflow", &t::ToNonDataflow},
    {"RemovePurityChecking", &t::RemovePurityChecking},
    {"CallTIRRewrite", &t::CallTIRRewrite},
    {"StaticPlanBlockMemory", &t::StaticPlanBlockMemory},
    // Registers are released after their value's last use, so memory returns to the pool early.
    {"KillAfterLastUse", &t::KillAfterLastUse},
    // The memory/VM operators -> vm.builtin.* calls; symbolic prim values (if conditions such as
    // R.prim_value(n > 2)) -> small kernels; then symbolic shapes -> shape-heap checks and loads.
    {"LowerRuntimeBuiltin", &t::LowerRuntimeBuiltin},
    {"ComputePrimValue", &t::ComputePrimValue},
    {"VMShapeLower", &t::VMShapeLower},
    // Kernels called from Relax get the symbol the VM resolves them by.
    {"AttachGlobalSymbol", &relax::backend::AttachGlobalSymbol},
};

}  // namespace

const std::vector<std::string>& RelaxPassNames() {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>;
    for (const Step& step : kSteps) v->push_back(step.name);
    return v;
  }();
  return *names;
}

absl::StatusOr<ir::IRModule> RunRelaxPipeline(const ir::IRModule& module, const RelaxPipelineOptions& options) {
  ModuleVerifier verify = [](const ir::IRModule& m) {
    ir::DiagnosticList diags;
    absl::Status st = script::VerifyModule(m, &diags);
    return st.ok() ? st : absl::InvalidArgumentError(ir::RenderAll(diags, ""));
  };
  ir::IRModule mod = module;
  if (options.gpu) {
    ir::Map<ir::String, ir::ObjectRef> attrs = mod->attrs;
    attrs.Set(ir::String(relax::legalize::kGPUTargetAttr), ir::IntImm(ir::DataType::Bool(), 1));
    if (options.gpu_warp_shuffle) {
      attrs.Set(ir::String(relax::legalize::kGPUWarpShuffleAttr), ir::IntImm(ir::DataType::Bool(), 1));
    }
    if (options.gpu_tensor_core) {
      attrs.Set(ir::String(relax::legalize::kGPUTensorCoreAttr), ir::IntImm(ir::DataType::Bool(), 1));
    }
    if (options.gpu_wgmma) attrs.Set(ir::String(relax::legalize::kGPUWgmmaAttr), ir::IntImm(ir::DataType::Bool(), 1));
    mod.CopyOnWrite()->attrs = attrs;
  }
  for (const Step& step : kSteps) {
    if (step.only == (options.gpu ? Only::kCPU : Only::kGPU)) continue;
    absl::StatusOr<ir::IRModule> next = RunPass(step.name, step.run, mod, options.hooks, verify);
    if (!next.ok()) {
      // Name the pass, unless its message already does.
      if (absl::StrContains(next.status().message(), step.name)) return next.status();
      return absl::Status(next.status().code(), absl::StrCat(step.name, ": ", next.status().message()));
    }
    mod = *std::move(next);
  }
  return mod;
}

}  // namespace kiln::driver
