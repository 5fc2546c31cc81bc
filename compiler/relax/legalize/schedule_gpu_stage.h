// Internal to ScheduleDefaultGPU: what its stage schedules (schedule_gpu_gemm.h,
// schedule_gpu_reduce.h) share: matching a stage that is one reduction block in a nest of plain
// loops, and the small builders of thread-bound TIR.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_STAGE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_STAGE_H_

#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tir/transform/ir_utils.h"

namespace kiln::relax::legalize {

using VarSet = std::set<const ir::VarNode*>;

// A stage of the form
//   for ... (plain serial loops from 0, one per iter var, in any order):
//     with T.sblock():  (iter values = the loop vars; no predicate, allocations or match buffers)
//       T.init(): C[spatial indices] = init
//       C[the same indices] = update  (update may read C at those indices)
// with at least one reduction iter var.
struct ReductionStage {
  const ir::SBlockNode* block = nullptr;
  const ir::BufferStoreNode* store = nullptr;
  const ir::BufferStoreNode* init = nullptr;
  std::vector<const ir::IterVarNode*> spatial, reduce;  // in block order
  VarSet spatial_vars, reduce_vars, all_vars;
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> extent;  // of each iter var
};
std::optional<ReductionStage> MatchReductionStage(const ir::Stmt& stage);

// Which of `of` an expression uses, and whether it loads anything / loads buffer `c`.
struct VarUses {
  VarSet vars;
  bool loads = false, loads_c = false;
};
VarUses UsesOf(const ir::PrimExpr& e, const VarSet& of, const ir::BufferNode* c);
bool Subset(const VarSet& a, const VarSet& b);

// The product of the extents of `ivs`.
ir::PrimExpr Product(const std::vector<const ir::IterVarNode*>& ivs, const ReductionStage& s);
// Binds `ivs` to the row-major unravelling of `flat` over their extents.
void Bind(const std::vector<const ir::IterVarNode*>& ivs, const ReductionStage& s, const ir::PrimExpr& flat,
          tir::transform::VarMap* sub);

// for v in T.thread_binding(extent, thread=tag): body
ir::Stmt ThreadLoop(const ir::Var& v, const ir::PrimExpr& extent, const char* tag, ir::Stmt body);
// for v in range(extent) (or T.unroll): body
ir::Stmt Serial(const ir::Var& v, const ir::PrimExpr& extent, ir::ForKind kind, ir::Stmt body);
// T.tvm_storage_sync("shared")
ir::Stmt SharedSync();
// `x < n`, or undefined (no guard needed) when n is a constant multiple of `tile` and x < n is
// known from how x is built.
ir::PrimExpr Below(const ir::PrimExpr& x, const ir::PrimExpr& n, int64_t tile);
// a && b where either may be undefined (no condition).
ir::PrimExpr AndMaybe(const ir::PrimExpr& a, const ir::PrimExpr& b);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_STAGE_H_
