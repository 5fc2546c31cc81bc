// A small tensor-expression builder for legalization: the part of TVM's `te` that LegalizeOps
// needs. A FuncBuilder collects inputs (one buffer parameter per Relax tensor argument), stages
// (Compute, Reduce, ReduceN: one SBlock each, in a loop nest of their own) and produces a PrimFunc
// in the form TVM's te.create_prim_func prints:
//
//   @T.prim_func(s_tir=True)
//   def add(x: T.Buffer((n, T.int64(4)), "float32"), ..., T_add: T.Buffer(...)):
//       T.func_attr({"op_pattern": 0, "tirx.noalias": True})
//       for ax0, ax1 in T.grid(n, T.int64(4)):
//           with T.sblock("T_add"):
//               v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
//               T.reads(x[v_ax0, v_ax1], y[v_ax0, v_ax1])
//               T.writes(T_add[v_ax0, v_ax1])
//               T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + y[v_ax0, v_ax1]
//
// Parameters are the inputs, then the outputs, then the scalar inputs (prim values known only at
// run time) and the symbolic dims no buffer shape binds, each passed by the caller as a trailing
// prim value of call_tir's argument tuple. Stage buffers that
// are not outputs are allocated in the root block. Symbolic dims of the Relax types become fresh
// int64 vars of the PrimFunc (bound by its buffer shapes); Local() translates Relax-level dim
// expressions into them. Every loop, iter var and shape is int64, as Relax shapes are.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_TE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_TE_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/transform/op_pattern.h"

namespace kiln::relax::legalize {

// The PrimFunc's "op_pattern" attr (read by FuseOps) uses the one OpPatternKind of the fusion
// passes, so legalization and AnnotateTIROpPattern speak the same numbers.
using transform::OpPatternKind;

// A tensor of the function being built: a parameter or the buffer a stage writes.
struct Tensor {
  ir::Buffer buffer;

  const ir::Array<ir::PrimExpr>& shape() const { return buffer->shape; }
  ir::DataType dtype() const { return buffer->dtype; }
  int ndim() const { return static_cast<int>(buffer->shape.size()); }
  // buffer[indices...]
  ir::PrimExpr operator()(const std::vector<ir::PrimExpr>& indices) const;
};

// The iteration variables a stage's body is written in (the SBlock's iter vars).
using Indices = std::vector<ir::PrimExpr>;

// A finished PrimFunc and the Relax arguments a call_tir of it passes (the tensors for its inputs,
// then PrimValues of the Relax-level symbolic dims for its trailing scalar parameters).
struct BuiltFunc {
  std::string name;
  ir::PrimFunc func;
  ir::Array<ir::Expr> args;
};

class FuncBuilder {
 public:
  // `name` is the PrimFunc's base name ("add", "softmax"); the pass makes it unique.
  explicit FuncBuilder(std::string name);

  // A buffer parameter for the Relax tensor `arg` (its type must have a known shape and dtype).
  // `arg` becomes an argument of the call_tir.
  absl::StatusOr<Tensor> Input(const ir::Expr& arg);
  // The value of a Relax prim value argument (R.prim_value(2), a R.Prim var of known value) in
  // this function's variables; its symbolic vars become scalar parameters as needed.
  absl::StatusOr<ir::PrimExpr> Scalar(const ir::Expr& arg);
  // Whether `arg` is a prim value (Scalar) rather than a tensor (Input).
  static bool IsScalar(const ir::Expr& arg);
  // One Input per field of a tuple-typed Relax value (R.concat's tensors). A Relax Tuple expression
  // contributes its fields; any other tuple value its TupleGetItems.
  absl::StatusOr<std::vector<Tensor>> InputTuple(const ir::Expr& arg);

  // A Relax-level dim (or expression of dims) in this function's variables.
  ir::PrimExpr Local(const ir::PrimExpr& relax_expr);
  std::vector<ir::PrimExpr> Local(const std::vector<ir::PrimExpr>& relax_exprs);
  // The shape of a Relax tensor type in this function's variables (error if unknown).
  absl::StatusOr<std::vector<ir::PrimExpr>> LocalShape(const ir::Type& relax_tensor_type);

  // out[i...] = f(i...) for every index i of `shape`. The stage's block is named `name`.
  Tensor Compute(const std::string& name, const std::vector<ir::PrimExpr>& shape, ir::DataType dtype,
                 const std::function<ir::PrimExpr(const Indices&)>& f);

  // A commutative reduction: out[i...] = combine(... combine(init, f(i, k0)) ..., f(i, kn)) over
  // every k of `reduce_extents` (a block with "S" iter vars for i, "R" for k, and T.init).
  Tensor Reduce(const std::string& name, const std::vector<ir::PrimExpr>& shape, ir::DataType dtype,
                const std::vector<ir::PrimExpr>& reduce_extents, const ir::PrimExpr& init,
                const std::function<ir::PrimExpr(const ir::PrimExpr& acc, const ir::PrimExpr& value)>& combine,
                const std::function<ir::PrimExpr(const Indices& i, const Indices& k)>& f);

  // A reduction into several buffers at once (argmax's index and value): `update` maps the
  // indices and the current values to the new ones, computed from the old values before any is
  // stored. Buffer j is named name_v<j>.
  std::vector<Tensor> ReduceN(
      const std::string& name, const std::vector<ir::PrimExpr>& shape, const std::vector<ir::DataType>& dtypes,
      const std::vector<ir::PrimExpr>& reduce_extents, const std::vector<ir::PrimExpr>& inits,
      const std::function<std::vector<ir::PrimExpr>(const Indices& i, const Indices& k,
                                                    const std::vector<ir::PrimExpr>& current)>& update);

  // A stage of plain loops in one block without iter vars (TVM's opaque blocks: scans, sorts,
  // scatters) that reads `reads` and writes `writes` whole. Allocates the written tensors.
  std::vector<Tensor> Opaque(const std::string& name, const std::vector<Tensor>& reads,
                             const std::vector<std::pair<std::string, ir::DataType>>& writes,
                             const std::vector<ir::PrimExpr>& shape,
                             const std::function<ir::Stmt(const std::vector<Tensor>& outs)>& body);

  // For hand-scheduled kernels: a buffer the caller's own statements write (an output, or an
  // intermediate allocated in the root block), and a statement appended to the function body.
  Tensor Alloc(const std::string& name, const std::vector<ir::PrimExpr>& shape, ir::DataType dtype);
  void AddStmt(ir::Stmt stmt);

  // Finishes the function. `outputs` must be tensors made by this builder's stages or Alloc.
  absl::StatusOr<BuiltFunc> Build(const std::vector<Tensor>& outputs, OpPatternKind pattern) const;

 private:
  ir::Var LocalVar(const ir::Var& relax_var);

  std::string name_;
  std::vector<Tensor> inputs_;
  ir::Array<ir::Expr> input_args_;
  std::vector<Tensor> stage_buffers_;
  std::vector<ir::Stmt> stmts_;
  // Relax symbolic var -> this function's var, in first-seen order.
  std::unordered_map<const ir::VarNode*, ir::Var> var_map_;
  std::vector<std::pair<ir::Var, ir::Var>> vars_;  // (relax, local)
  // Prim values known only at run time: (scalar parameter, the Relax value passed for it).
  std::vector<std::pair<ir::Var, ir::Expr>> scalar_inputs_;
};

// ---- expression helpers (int64 index arithmetic, dtype-correct constants) ----

ir::PrimExpr Int64(int64_t v);
// A constant of `dtype` (a float for floating dtypes, else an integer; bool for bool).
ir::PrimExpr Const(ir::DataType dtype, double v);
// cast(dtype, e), a no-op when e already has that dtype; folds immediates.
ir::PrimExpr CastTo(ir::DataType dtype, const ir::PrimExpr& e);
// Smallest / largest value of dtype (-inf / +inf for floats), the identities of max / min.
ir::PrimExpr MinValue(ir::DataType dtype);
ir::PrimExpr MaxValue(ir::DataType dtype);
// Serial loops over `extents` (int64 loop vars named <prefix><d>) around body(indices).
ir::Stmt Loops(const std::vector<ir::PrimExpr>& extents, const std::string& prefix,
               const std::function<ir::Stmt(const Indices&)>& body);
// The indices of the row-major flat index `flat` into `shape`.
Indices Unravel(const ir::PrimExpr& flat, const std::vector<ir::PrimExpr>& shape);
// The product of dims, folded.
ir::PrimExpr NumElements(const std::vector<ir::PrimExpr>& shape);
// A call of the TIR math intrinsic "tirx.<name>" with result dtype `dtype`.
ir::PrimExpr Intrin(const std::string& name, ir::DataType dtype, const std::vector<ir::PrimExpr>& args);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_TE_H_
