// Normalize: every expression nested in another one is a leaf or a tuple (A-normal form, the rule
// of TVM's normalizer): a call, a tuple item access, an If or a function in a call's arguments, in
// a tuple's fields (at any depth), as the tuple of a tuple item access or as an If's condition is
// bound to a variable of its own just before the binding that uses it. So every later pass sees one
// operator call per binding: `z = R.nn.relu(R.add(lv, b))` becomes
// `lv_1 = R.add(lv, b); z = R.nn.relu(lv_1)`, and `gv = lv6, R.logical_and(a, b)` becomes
// `lv = R.logical_and(a, b); gv = lv6, lv`.
//
// Why: TVM's parser emits bindings through a BlockBuilder that normalizes as it goes, so TVM's
// passes never meet nested calls; kiln's parser keeps the text's nesting (it prints back as
// written), and this pass gives the pipeline the form TVM's passes assume (LegalizeOps rewrites
// bindings whose value is a call; a call left inside a tuple would reach VM codegen unlowered).
// If branches and nested functions are normalized through the rewriter; a function's result that
// is a tuple or a tuple item access is normalized the same way (its bindings go into a block at the
// end). A nested expression inside a dataflow block gets a DataflowVar.
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// Whether `expr` may stay nested in another expression (TVM's IsLeafOrTuple; a tuple's own fields
// are normalized in turn).
bool IsLeafOrTuple(const Expr& expr) {
  return expr.as<VarNode>() || expr.as<rx::ConstantNode>() || expr.as<rx::ShapeExprNode>() ||
         expr.as<rx::PrimValueNode>() || expr.as<rx::StringImmNode>() || expr.as<rx::DataTypeImmNode>() ||
         expr.as<GlobalVarNode>() || expr.as<rx::ExternFuncNode>() || expr.as<OpNode>() || expr.as<rx::TupleNode>();
}

class Normalizer : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    absl::StatusOr<Expr> out = BindingRewriter::RewriteValue(value, bb);
    if (!out.ok()) return out;
    return NormalizeOperands(*out, bb);
  }

  absl::StatusOr<Expr> RewriteBody(const Expr& body, BlockBuilder* bb) override {
    return NormalizeOperands(Remap(body), bb);
  }

 private:
  // `expr` with each operand made a leaf or a tuple of them (the nested parts bound first, in
  // evaluation order); `expr` itself may stay a call, tuple, tuple item access or If.
  absl::StatusOr<Expr> NormalizeOperands(const Expr& expr, BlockBuilder* bb) {
    const LeafRewrite operand = [&](const Expr& e) { return Operand(e, bb); };
    if (expr.as<rx::CallNode>()) return MapCallArgs(Downcast<rx::Call>(expr), operand);
    if (expr.as<rx::TupleNode>()) return MapTupleFields(Downcast<rx::Tuple>(expr), operand);
    if (const auto* get = expr.as<rx::TupleGetItemNode>()) {
      absl::StatusOr<Expr> tuple = Operand(get->tuple, bb);
      if (!tuple.ok()) return tuple;
      if (tuple->same_as(get->tuple)) return expr;
      rx::TupleGetItem out = Downcast<rx::TupleGetItem>(expr);
      out.CopyOnWrite()->tuple = *tuple;
      return Expr(out);
    }
    if (const auto* i = expr.as<rx::IfNode>()) {
      absl::StatusOr<Expr> cond = Operand(i->cond, bb);
      if (!cond.ok()) return cond;
      if (cond->same_as(i->cond)) return expr;
      rx::If out = Downcast<rx::If>(expr);
      out.CopyOnWrite()->cond = *cond;
      return Expr(out);
    }
    return expr;
  }

  // An operand: a tuple keeps its place (its fields normalized), a leaf stays, anything else is
  // normalized itself and bound to a new variable.
  absl::StatusOr<Expr> Operand(const Expr& operand, BlockBuilder* bb) {
    if (operand.as<rx::TupleNode>()) return NormalizeOperands(operand, bb);
    if (IsLeafOrTuple(operand)) return operand;
    absl::StatusOr<Expr> inner = RewriteValue(operand, bb);
    if (!inner.ok()) return inner;
    absl::StatusOr<Expr> typed = Typed(*inner, bb->module());
    if (!typed.ok()) return typed;
    Var var = in_dataflow_block() ? Var(rx::DataflowVar("lv", (*typed)->ty)) : Var("lv", (*typed)->ty);
    bb->EmitBinding(rx::VarBinding(var, *typed));
    return Expr(var);
  }
};

}  // namespace

absl::StatusOr<IRModule> Normalize(const IRModule& module) { return Normalizer(module).Run(); }

}  // namespace kiln::relax::transform
