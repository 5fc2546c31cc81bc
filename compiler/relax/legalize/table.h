// Internal to LegalizeOps: the table from Relax op name ("relax.add") to the function that
// legalizes a call of it, and the context those functions emit PrimFuncs through. Each op family
// file (elementwise.cc, reduce.cc, ...) adds its entries with one Register*Ops function; legalize.cc
// calls them all once to build the immutable table.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_TABLE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_TABLE_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/te.h"

namespace kiln::relax::legalize {

// Collects the PrimFuncs one LegalizeOps run adds to a module. Not thread-safe: one per run.
class LegalizeContext {
 public:
  explicit LegalizeContext(ir::IRModule module);

  // Adds `f` to the module under a fresh name derived from f.name, or finds the structurally
  // equal function added before, and returns R.call_tir(gv, f.args, out_ty=out_ty) typed out_ty
  // (a tuple type for several outputs).
  absl::StatusOr<ir::Expr> CallTIR(const BuiltFunc& f, const ir::Type& out_ty);

  // The common case: builds `b` with `outputs` and calls it with the type of `call`.
  absl::StatusOr<ir::Expr> Emit(const FuncBuilder& b, const std::vector<Tensor>& outputs, OpPatternKind pattern,
                                const ir::relax::Call& call);

  const ir::IRModule& module() const { return module_; }
  // Whether the module is built for a GPU target (its kGPUTargetAttr is set): the ops whose
  // default legalization is a hand-scheduled CPU kernel (matmul, conv) emit plain s_tir instead.
  bool for_gpu() const;

 private:
  std::string FreshName(const std::string& hint);

  ir::IRModule module_;
  // Functions added by this run, by structural hash, for deduplication.
  std::unordered_map<uint64_t, std::vector<std::pair<ir::GlobalVar, ir::PrimFunc>>> added_;
};

// Legalizes one call whose arguments are already legalized and typed; returns the expression
// that replaces it (usually LegalizeContext::Emit's call_tir). Errors are INVALID_ARGUMENT with a
// message that the pass prefixes with the op and its source line.
using LegalizeFn = std::function<absl::StatusOr<ir::Expr>(const ir::relax::Call& call, LegalizeContext* ctx)>;
using LegalizeTable = std::unordered_map<std::string, LegalizeFn>;

// ---- op families (one file each) ----
void RegisterElementwiseOps(LegalizeTable* table);   // elementwise.cc: unary, binary, compare, astype
void RegisterReduceOps(LegalizeTable* table);        // reduce.cc: sum .. std, argmax/argmin, scans, sorts
void RegisterManipulateOps(LegalizeTable* table);    // manipulate.cc: reshape, permute_dims, concat, ...
void RegisterIndexOps(LegalizeTable* table);         // index.cc: take, strided_slice, where, ...
void RegisterCreateOps(LegalizeTable* table);        // create.cc: full, zeros, ones, arange, tril, ...
void RegisterNNOps(LegalizeTable* table);            // nn.cc: activations, softmax, norms, pad, ...
void RegisterLinalgOps(LegalizeTable* table);        // linalg.cc: matmul (default CPU schedule)
void RegisterConvOps(LegalizeTable* table);          // nn_conv.cc: conv1d, conv2d, conv2d_transpose
void RegisterPoolOps(LegalizeTable* table);          // pool.cc: max/avg/adaptive_avg pooling
void RegisterAttentionOps(LegalizeTable* table);     // attention.cc: nn.attention, nn.attention_bias

// ---- helpers shared by the families ----

// The call's type as a tensor type; error if it is not a tensor of known shape and dtype.
absl::StatusOr<const ir::TensorTypeNode*> OutTensorType(const ir::relax::Call& call);
// What most one-tensor legalizations start from: the call's output tensor type, a builder for
// the PrimFunc `name`, the call's first argument as its input, and the output shape in the
// builder's variables. Errors are those of OutTensorType, Input and LocalShape, checked in that order.
struct SingleInputKernel {
  const ir::TensorTypeNode* out_tt;
  FuncBuilder b;
  Tensor x;
  std::vector<ir::PrimExpr> shape;
};
absl::StatusOr<SingleInputKernel> StartSingleInputKernel(const ir::relax::Call& call, std::string name);
// Numpy broadcasting of `x` to `out_shape` (x's dims align right): the indices into x for output
// indices `i` (a dim of extent 1 is read at 0 when the output dim is not known to be 1).
std::vector<ir::PrimExpr> BroadcastIndices(const Tensor& x, const std::vector<ir::PrimExpr>& out_shape,
                                           const Indices& i);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_TABLE_H_
