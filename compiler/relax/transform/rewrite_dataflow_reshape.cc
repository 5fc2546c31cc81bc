// RewriteDataflowReshape: a call_tir, bound to a DataflowVar, of a PrimFunc that only copies its
// one input into its output in row-major order (what legalizing R.reshape, R.flatten,
// R.expand_dims or R.squeeze produces) becomes R.reshape(input, output shape), as long as the
// input has the output's dtype and element count.
//
// Why: a reshape does not need a kernel or a new buffer. R.reshape lowers to vm.builtin.reshape,
// a zero-copy view of the same storage (LowerRuntimeBuiltin), and StaticPlanBlockMemory treats it
// as an alias. Only values inside dataflow blocks are rewritten (as TVM does): those are known
// not to be written in place by later impure code.
//
// The reshape pattern: the body (under an optional root block) is a nest of serial loops from 0,
// one per output dim with the dim's extent, around one store out[i0, ..., ik] = in[f(i)] (directly
// or in a block whose iter values are the loop vars, without init). The copy is a reshape when the
// row-major offset of f(i) in `in` equals that of (i0, ..., ik) in `out`: proved by the
// arithmetic analyzer, or, when it cannot, checked at every point of a static iteration space of
// at most kMaxCheckedPoints elements.
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/tir/arith/analyzer.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

constexpr int64_t kMaxCheckedPoints = 1 << 16;

PrimExpr Int64(int64_t v) { return IntImm(DataType::Int(64), v); }

PrimExpr AsInt64(const PrimExpr& e) { return e.dtype() == DataType::Int(64) ? e : PrimExpr(Cast(DataType::Int(64), e)); }

// The row-major offset of `indices` in a buffer of `shape`.
PrimExpr RowMajorOffset(const Array<PrimExpr>& indices, const Array<PrimExpr>& shape) {
  PrimExpr offset = Int64(0);
  for (size_t k = 0; k < indices.size(); ++k) {
    offset = Add(Mul(offset, AsInt64(shape[k])), AsInt64(indices[k]));
  }
  return offset;
}

PrimExpr Product(const Array<PrimExpr>& shape) {
  PrimExpr p = Int64(1);
  for (const PrimExpr& d : shape) p = Mul(p, AsInt64(d));
  return p;
}

struct Loop {
  Var var;
  PrimExpr extent;
};

// Whether `f` copies one buffer param into another in row-major order.
bool HasReshapePattern(const PrimFuncNode* f) {
  Stmt body = f->body;
  if (const auto* root = body.as<SBlockRealizeNode>()) {
    if (!root->block->iter_vars.empty() || root->block->init.defined() || !root->block->alloc_buffers.empty() ||
        !root->block->match_buffers.empty()) {
      return false;
    }
    body = root->block->body;
  }
  std::vector<Loop> loops;
  while (const auto* loop = body.as<ForNode>()) {
    const auto* min = loop->min.as<IntImmNode>();
    const auto* step = loop->step.as<IntImmNode>();
    if (loop->kind != ForKind::kSerial || !min || min->value != 0 || (loop->step.defined() && (!step || step->value != 1))) {
      return false;
    }
    loops.push_back({loop->loop_var, loop->extent});
    body = loop->body;
  }
  std::unordered_map<const VarNode*, PrimExpr> bind;
  if (const auto* realize = body.as<SBlockRealizeNode>()) {
    const SBlockNode* block = realize->block.get();
    if (block->init.defined() || !block->alloc_buffers.empty() || !block->match_buffers.empty() ||
        block->iter_vars.size() != realize->iter_values.size()) {
      return false;
    }
    if (realize->predicate.defined()) {
      const auto* p = realize->predicate.as<IntImmNode>();
      if (!p || p->value != 1) return false;
    }
    for (size_t i = 0; i < block->iter_vars.size(); ++i) bind[block->iter_vars[i]->var.get()] = realize->iter_values[i];
    body = block->body;
  }
  const auto* store = body.as<BufferStoreNode>();
  const auto* load = store ? store->value.as<BufferLoadNode>() : nullptr;
  if (!load || store->predicate.defined() || load->predicate.defined() || store->buffer.same_as(load->buffer)) {
    return false;
  }
  const Buffer& out = store->buffer;
  const Buffer& in = load->buffer;
  bool out_param = false, in_param = false;
  for (const auto& [param, buf] : f->buffer_map.items()) {
    out_param |= buf.same_as(out);
    in_param |= buf.same_as(in);
  }
  if (!out_param || !in_param || out->dtype != in->dtype || loops.size() != out->shape.size() ||
      store->indices.size() != out->shape.size() || load->indices.size() != in->shape.size()) {
    return false;
  }
  arith::Analyzer analyzer;
  for (const Loop& l : loops) analyzer.BindRange(l.var, Int64(0), l.extent);
  // The store must visit out[i0, ..., ik] with loop k running over dim k.
  for (size_t k = 0; k < loops.size(); ++k) {
    PrimExpr index = kiln::relax::Substitute(store->indices[k], bind);
    const auto* v = index.as<VarNode>();
    if (v != loops[k].var.get() || !analyzer.CanProveEqual(AsInt64(loops[k].extent), AsInt64(out->shape[k]))) {
      return false;
    }
  }
  Array<PrimExpr> in_indices;
  for (const PrimExpr& i : load->indices) in_indices.push_back(kiln::relax::Substitute(i, bind));
  Array<PrimExpr> loop_vars;
  for (const Loop& l : loops) loop_vars.push_back(l.var);
  PrimExpr in_offset = RowMajorOffset(in_indices, in->shape);
  PrimExpr out_offset = RowMajorOffset(loop_vars, out->shape);
  if (analyzer.CanProveEqual(in_offset, out_offset)) return true;

  // Check every point of a small static iteration space.
  std::vector<int64_t> extents;
  int64_t points = 1;
  for (const Loop& l : loops) {
    const auto* e = l.extent.as<IntImmNode>();
    if (!e || e->value <= 0) return false;
    extents.push_back(e->value);
    points *= e->value;
    if (points > kMaxCheckedPoints) return false;
  }
  for (const PrimExpr& d : in->shape) {
    if (!d.as<IntImmNode>()) return false;
  }
  std::vector<int64_t> point(loops.size(), 0);
  for (int64_t flat = 0; flat < points; ++flat) {
    int64_t rest = flat;
    std::unordered_map<const VarNode*, PrimExpr> at;
    for (size_t k = loops.size(); k-- > 0;) {
      at[loops[k].var.get()] = IntImm(loops[k].var->dtype, rest % extents[k]);
      rest /= extents[k];
    }
    const auto* got = analyzer.Simplify(kiln::relax::Substitute(in_offset, at)).as<IntImmNode>();
    if (!got || got->value != flat) return false;
  }
  return true;
}

class ReshapeRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    const auto* call = value.as<rx::CallNode>();
    if (call == nullptr || !IsOp(call->op, "relax.call_tir") || !in_dataflow_var_) {
      return BindingRewriter::RewriteValue(value, bb);
    }
    const PrimFuncNode* f = call->args.size() == 2 ? CalledPrimFunc(call->args[0], module_) : nullptr;
    const auto* args = call->args.size() == 2 ? call->args[1].as<rx::TupleNode>() : nullptr;
    const auto* in = args && args->fields.size() == 1 ? ExprType(args->fields[0]).as<TensorTypeNode>() : nullptr;
    const auto* out = call->ty.as<TensorTypeNode>();
    const auto* in_shape = in ? in->shape.as<rx::ShapeExprNode>() : nullptr;
    const auto* out_shape = out ? out->shape.as<rx::ShapeExprNode>() : nullptr;
    if (!f || !in_shape || !out_shape || in->dtype.is_void() || in->dtype != out->dtype || !HasReshapePattern(f)) {
      return BindingRewriter::RewriteValue(value, bb);
    }
    arith::Analyzer analyzer;
    if (!analyzer.CanProveEqual(Product(in_shape->values), Product(out_shape->values))) {
      return BindingRewriter::RewriteValue(value, bb);
    }
    return Typed(rx::Call(Op("relax.reshape"), {Remap(args->fields[0]), MakeShape(out_shape->values)}), module_);
  }

  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    in_dataflow_var_ = binding->var.as<rx::DataflowVarNode>() != nullptr;
    absl::Status st = BindingRewriter::RewriteBinding(binding, bb);
    in_dataflow_var_ = false;
    return st;
  }

 private:
  bool in_dataflow_var_ = false;
};

}  // namespace

absl::StatusOr<IRModule> RewriteDataflowReshape(const IRModule& module) { return ReshapeRewriter(module).Run(); }

}  // namespace kiln::relax::transform
