// Constructors and small helpers of the Relax nodes and Relax's value types (nodes.cc has the TIR
// and shared ones; the split keeps //compiler/ir:tir free of Relax).
#include <string>
#include <utility>

#include "compiler/ir/relax.h"
#include "compiler/ir/relax_type.h"

namespace kiln::ir {

namespace {
template <typename NodeT, typename RefT>
RefT Wrap(ObjectPtr<NodeT> n) { return RefT(ObjectPtr<Object>(std::move(n))); }
}  // namespace

// ---- Relax value types ----
TensorType::TensorType(Array<PrimExpr> shape, DataType dtype) {
  auto n = make_object<TensorTypeNode>();
  n->ndim = static_cast<int32_t>(shape.size());
  n->shape = relax::ShapeExpr(std::move(shape));
  n->dtype = dtype;
  data_ = ObjectPtr<Object>(std::move(n));
}
TensorType::TensorType(DataType dtype, int ndim) {
  auto n = make_object<TensorTypeNode>();
  n->dtype = dtype;
  n->ndim = ndim;
  data_ = ObjectPtr<Object>(std::move(n));
}
ShapeType::ShapeType(Array<PrimExpr> values) {
  auto n = make_object<ShapeTypeNode>();
  n->ndim = static_cast<int32_t>(values.size());
  n->values = std::move(values);
  n->values_known = true;
  data_ = ObjectPtr<Object>(std::move(n));
}
ShapeType::ShapeType(int ndim) {
  auto n = make_object<ShapeTypeNode>();
  n->ndim = ndim;
  data_ = ObjectPtr<Object>(std::move(n));
}
AnyType AnyType::Make() { return Wrap<AnyTypeNode, AnyType>(make_object<AnyTypeNode>()); }
PackedFuncType PackedFuncType::Make() {
  return Wrap<PackedFuncTypeNode, PackedFuncType>(make_object<PackedFuncTypeNode>());
}


namespace relax {
DataflowVar::DataflowVar(std::string name, Type ty, Span span) {
  auto n = make_object<DataflowVarNode>();
  n->name = std::move(name);
  n->dtype = DataType::Void();
  n->ty = std::move(ty);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
int64_t ConstantNode::NumElements() const {
  int64_t n = 1;
  for (const IntImm& d : shape) n *= d->value;
  return n;
}
Constant::Constant(DataType dtype, std::vector<int64_t> shape, std::string data, Span span) {
  auto n = make_object<ConstantNode>();
  n->dtype = dtype;
  Array<PrimExpr> dims;
  for (int64_t d : shape) {
    n->shape.push_back(IntImm(DataType::Int(64), d));
    dims.push_back(IntImm(DataType::Int(64), d));
  }
  n->data = std::move(data);
  n->ty = TensorType(dims, dtype);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Tuple::Tuple(Array<Expr> fields, Span span) {
  auto n = make_object<TupleNode>();
  n->fields = std::move(fields);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
TupleGetItem::TupleGetItem(Expr tuple, int index, Span span) {
  auto n = make_object<TupleGetItemNode>();
  n->tuple = std::move(tuple);
  n->index = index;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
ShapeExpr::ShapeExpr(Array<PrimExpr> values, Span span) {
  auto n = make_object<ShapeExprNode>();
  n->values = std::move(values);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
PrimValue::PrimValue(PrimExpr value, Span span) {
  auto n = make_object<PrimValueNode>();
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
StringImm::StringImm(std::string value, Span span) {
  auto n = make_object<StringImmNode>();
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
DataTypeImm::DataTypeImm(DataType value, Span span) {
  auto n = make_object<DataTypeImmNode>();
  n->value = value;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Call::Call(Expr op, Array<Expr> args, Map<String, ObjectRef> attrs, Array<Type> ty_args, Span span) {
  auto n = make_object<CallNode>();
  n->op = std::move(op);
  n->args = std::move(args);
  n->attrs = std::move(attrs);
  n->ty_args = std::move(ty_args);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
If::If(Expr cond, Expr true_branch, Expr false_branch, Span span) {
  auto n = make_object<IfNode>();
  n->cond = std::move(cond);
  n->true_branch = std::move(true_branch);
  n->false_branch = std::move(false_branch);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
VarBinding::VarBinding(Var var, Expr value, Span span) {
  auto n = make_object<VarBindingNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
MatchCast::MatchCast(Var var, Expr value, Type cast_ty, Span span) {
  auto n = make_object<MatchCastNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->cast_ty = std::move(cast_ty);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
BindingBlock::BindingBlock(Array<Binding> bindings, Span span) {
  auto n = make_object<BindingBlockNode>();
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
DataflowBlock::DataflowBlock(Array<Binding> bindings, Span span) {
  auto n = make_object<DataflowBlockNode>();
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
SeqExpr::SeqExpr(Array<BindingBlock> blocks, Expr body, Span span) {
  auto n = make_object<SeqExprNode>();
  n->blocks = std::move(blocks);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Function::Function(Array<Var> params, Expr body, Type ret_ty, bool is_pure, Map<String, ObjectRef> attrs,
                   Span span) {
  auto n = make_object<FunctionNode>();
  n->params = std::move(params);
  n->body = std::move(body);
  n->ret_ty = std::move(ret_ty);
  n->is_pure = is_pure;
  n->attrs = std::move(attrs);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
ExternFunc::ExternFunc(std::string global_symbol, Span span) {
  auto n = make_object<ExternFuncNode>();
  n->global_symbol = std::move(global_symbol);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
}  // namespace relax

}  // namespace kiln::ir
