// The TIR lowering pipeline in order. Each step is one pass from compiler/tir/transform, run over
// every PrimFunc of the module; the lowered form they produce together is documented in
// tir_pipeline.h. Steps run through RunPass (pass_instrument.h), so --print-after/--verify-each see
// the module between them.
#include "compiler/driver/tir_pipeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/tir/analysis/allocation_size.h"
#include "compiler/tir/analysis/scalable_vectors.h"
#include "compiler/tir/analysis/verifier.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::driver {
namespace {

using ir::PrimFunc;
namespace t = tir::transform;

// One step: a pass on one PrimFunc; `name` (its global symbol or module name) labels errors.
struct Step {
  const char* name;
  absl::StatusOr<PrimFunc> (*run)(const PrimFunc& f, const std::string& name, const PipelineOptions& options);
};

const Step kSteps[] = {
    // GPU kernels cannot run on the CPU host; scheduling attributes go.
    {"CheckHostOnly", [](const PrimFunc& f, const std::string& name, const PipelineOptions& o)
                          -> absl::StatusOr<PrimFunc> { return t::CheckHostOnly(f, name, o.target_kind); }},
    // Blocks -> loops, ifs, allocations and buffer views.
    {"LowerSBlocks", [](const PrimFunc& f, const std::string& name, const PipelineOptions&)
                         -> absl::StatusOr<PrimFunc> { return t::LowerSBlocks(f, name); }},
    // Checked mode only: bounds, division, shift and call-depth checks, worded as the interpreter's.
    {"InstrumentChecks", [](const PrimFunc& f, const std::string& name, const PipelineOptions&)
                         -> absl::StatusOr<PrimFunc> { return t::InstrumentChecks(f, name); }},
    // Run-time allocation extents checked while they are still separate (FlattenBuffer multiplies
    // them, wrapping).
    {"GuardAllocSizes", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                            -> absl::StatusOr<PrimFunc> { return t::GuardAllocSizes(f); }},
    // N-D buffers -> 1-D; DeclBuffer views dissolve into their data var.
    {"FlattenBuffer", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                          -> absl::StatusOr<PrimFunc> { return t::FlattenBuffer(f); }},
    // Canonical indices, so that vectorize sees linear accesses.
    {"Simplify", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                     -> absl::StatusOr<PrimFunc> { return t::Simplify(f); }},
    // Guard-free middle loops where T.likely conditions provably hold (then their ifs fold away).
    {"LoopPartition", [](const PrimFunc& f, const std::string&, const PipelineOptions&) -> absl::StatusOr<PrimFunc> {
       PrimFunc p = t::LoopPartition(f);
       return p.same_as(f) ? f : t::Simplify(p);
     }},
    {"VectorizeLoops", [](const PrimFunc& f, const std::string&, const PipelineOptions& o)
                           -> absl::StatusOr<PrimFunc> { return t::VectorizeLoops(f, o.max_vector_lanes); }},
    // Temporaries with disjoint live ranges share memory.
    {"StorageRewrite", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                           -> absl::StatusOr<PrimFunc> { return t::StorageRewrite(f); }},
    {"UnrollLoops", [](const PrimFunc& f, const std::string&, const PipelineOptions& o)
                        -> absl::StatusOr<PrimFunc> { return t::UnrollLoops(f, o.max_unroll_extent); }},
    // Unrolled copies and vector arithmetic fold further.
    {"Simplify", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                     -> absl::StatusOr<PrimFunc> { return t::Simplify(f); }},
    {"LowerIntrin", [](const PrimFunc& f, const std::string&, const PipelineOptions&)
                        -> absl::StatusOr<PrimFunc> { return t::LowerIntrin(f); }},
    // Exported functions become kernel ABI entries with argument checks.
    {"MakePackedAPI", [](const PrimFunc& f, const std::string& name, const PipelineOptions& o)
                          -> absl::StatusOr<PrimFunc> {
       t::PackedApiOptions api;
       api.device_type = o.device_type;
       api.device_name = o.device_name;
       return t::MakePackedAPI(f, name, api);
     }},
};

// `step` applied to every PrimFunc of `module`; other functions pass through.
absl::StatusOr<ir::IRModule> ApplyToPrimFuncs(const Step& step, const ir::IRModule& module,
                                              const PipelineOptions& options) {
  ir::IRModule out = ir::IRModule::Make();
  out.CopyOnWrite()->attrs = module->attrs;
  out.CopyOnWrite()->global_infos = module->global_infos;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<ir::PrimFuncNode>();
    if (pf == nullptr) {
      out.Add(gv, func);
      continue;
    }
    absl::StatusOr<PrimFunc> lowered = step.run(ir::GetRef<PrimFunc>(pf), LoweredSymbol(gv->name, pf), options);
    if (!lowered.ok()) return lowered.status();
    out.Add(gv, *lowered);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& TIRPassNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const Step& s : kSteps) {
      if (std::find(v->begin(), v->end(), s.name) == v->end()) v->push_back(s.name);
    }
    return v;
  }();
  return *names;
}

absl::StatusOr<ir::IRModule> LowerTIR(const ir::IRModule& module, const PipelineOptions& options) {
  if (options.target_kind != "c" && options.target_kind != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat("TIR lowering: unsupported target kind '", options.target_kind,
                                                   "' (supported: llvm, c)"));
  }
  // No pass below handles vscale * k lanes, and neither backend emits them (the LLVM backend could
  // map them to <vscale x k x T> for SVE targets; it does not yet).
  absl::Status scalable =
      tir::RejectScalableVectors(module, options.target_kind == "c" ? "the C backend" : "the LLVM backend");
  if (!scalable.ok()) return scalable;
  // TVM-valid but unbuildable: an allocation whose flattened index would wrap.
  absl::Status sizes = tir::CheckAllocationSizes(module);
  if (!sizes.ok()) return sizes;
  if (options.verify_input) {
    absl::Status st = tir::VerifyModuleTIR(module, nullptr);
    if (!st.ok()) return st;
  }
  ModuleVerifier verify = [](const ir::IRModule& m) {
    tir::VerifyOptions lowered;
    lowered.lowered_form = true;
    return tir::VerifyModuleTIR(m, nullptr, lowered);
  };
  ir::IRModule current = module;
  for (const Step& step : kSteps) {
    // Checked mode's pass is listed (so --print-after accepts it) but runs only when asked for.
    if (!options.checked && std::string(step.name) == "InstrumentChecks") continue;
    absl::StatusOr<ir::IRModule> next = RunPass(
        step.name, [&](const ir::IRModule& m) { return ApplyToPrimFuncs(step, m, options); }, current,
        options.hooks, verify);
    if (!next.ok()) return next.status();
    current = *std::move(next);
  }
  return current;
}

}  // namespace kiln::driver
