// The TIR lowering pipeline in order. Each step is one pass from compiler/tir/transform; the
// lowered form they produce together is documented in tir_pipeline.h.
#include "compiler/driver/tir_pipeline.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/functor.h"
#include "compiler/tir/analysis/verifier.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::driver {
namespace {

using ir::PrimFunc;
namespace t = tir::transform;

absl::StatusOr<PrimFunc> LowerPrimFunc(PrimFunc f, const std::string& name, const PipelineOptions& options) {
  // GPU kernels cannot run on the CPU host; scheduling attributes go.
  absl::StatusOr<PrimFunc> r = t::CheckHostOnly(f, name, options.target_kind);
  if (!r.ok()) return r.status();
  // Blocks -> loops, ifs, allocations and buffer views.
  r = t::LowerSBlocks(*r, name);
  if (!r.ok()) return r.status();
  f = *r;
  // N-D buffers -> 1-D; DeclBuffer views dissolve into their data var.
  f = t::FlattenBuffer(f);
  // Canonical indices, so that vectorize sees linear accesses.
  f = t::Simplify(f);
  // Guard-free middle loops where T.likely conditions provably hold (then their ifs fold away).
  if (PrimFunc p = t::LoopPartition(f); !p.same_as(f)) f = t::Simplify(p);
  f = t::VectorizeLoops(f, options.max_vector_lanes);
  // Temporaries with disjoint live ranges share memory.
  f = t::StorageRewrite(f);
  f = t::UnrollLoops(f, options.max_unroll_extent);
  // Unrolled copies and vector arithmetic fold further.
  f = t::Simplify(f);
  f = t::LowerIntrin(f);
  // Exported functions become kernel ABI entries with argument checks.
  t::PackedApiOptions api;  // kDLCPU: every supported target is a CPU host
  return t::MakePackedAPI(f, name, api);
}

}  // namespace

absl::StatusOr<ir::IRModule> LowerTIR(const ir::IRModule& module, const PipelineOptions& options) {
  if (options.target_kind != "c" && options.target_kind != "llvm") {
    return absl::InvalidArgumentError(absl::StrCat("TIR lowering: unsupported target kind '", options.target_kind,
                                                   "' (supported: llvm, c)"));
  }
  if (options.verify_input) {
    absl::Status st = tir::VerifyModuleTIR(module, nullptr);
    if (!st.ok()) return st;
  }
  ir::IRModule out = ir::IRModule::Make();
  out.CopyOnWrite()->attrs = module->attrs;
  out.CopyOnWrite()->global_infos = module->global_infos;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<ir::PrimFuncNode>();
    if (pf == nullptr) {
      out.Add(gv, func);
      continue;
    }
    std::string symbol = pf->GetGlobalSymbol();
    absl::StatusOr<PrimFunc> lowered =
        LowerPrimFunc(ir::GetRef<PrimFunc>(pf), symbol.empty() ? gv->name : symbol, options);
    if (!lowered.ok()) return lowered.status();
    out.Add(gv, *lowered);
  }
  return out;
}

}  // namespace kiln::driver
