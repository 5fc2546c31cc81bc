// Relax: the graph-level language. Values are tensors, shapes, tuples, prim values and callables;
// every expression has a checked type (ExprNode::ty). Bindings live in blocks inside a SeqExpr.
#ifndef KILN_COMPILER_IR_RELAX_H_
#define KILN_COMPILER_IR_RELAX_H_

#include <string>

#include "compiler/ir/expr.h"
#include "compiler/ir/relax_type.h"

namespace kiln::ir::relax {

// A variable bound inside a dataflow block (must not escape it unless output).
class DataflowVarNode : public VarNode {
 public:
  KILN_DECLARE_NODE(DataflowVarNode, "relax.DataflowVar", kDataflowVar)
};
class DataflowVar : public Var {
  KILN_DEFINE_REF(DataflowVar, Var, DataflowVarNode)
  DataflowVar(std::string name, Type ty, Span span = {});
};

// A constant tensor: dense, C-order, little-endian bytes.
class ConstantNode : public ExprNode {
 public:
  DataType dtype;
  Array<IntImm> shape;
  std::string data;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("dtype", &dtype);
    v->Visit("shape", &shape);
    v->Visit("data", &data);
  }
  int64_t NumElements() const;
  KILN_DECLARE_NODE(ConstantNode, "relax.Constant", kConstant)
};
class Constant : public Expr {
  KILN_DEFINE_REF(Constant, Expr, ConstantNode)
  Constant(DataType dtype, std::vector<int64_t> shape, std::string data, Span span = {});
};

class TupleNode : public ExprNode {
 public:
  Array<Expr> fields;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("fields", &fields);
  }
  KILN_DECLARE_NODE(TupleNode, "relax.Tuple", kTuple)
};
class Tuple : public Expr {
  KILN_DEFINE_REF(Tuple, Expr, TupleNode)
  explicit Tuple(Array<Expr> fields, Span span = {});
};

class TupleGetItemNode : public ExprNode {
 public:
  Expr tuple;
  int32_t index = 0;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("tuple", &tuple);
    v->Visit("index", &index);
  }
  KILN_DECLARE_NODE(TupleGetItemNode, "relax.TupleGetItem", kTupleGetItem)
};
class TupleGetItem : public Expr {
  KILN_DEFINE_REF(TupleGetItem, Expr, TupleGetItemNode)
  TupleGetItem(Expr tuple, int index, Span span = {});
};

class ShapeExprNode : public ExprNode {
 public:
  Array<PrimExpr> values;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("values", &values);
  }
  KILN_DECLARE_NODE(ShapeExprNode, "relax.ShapeExpr", kShapeExpr)
};
class ShapeExpr : public Expr {
  KILN_DEFINE_REF(ShapeExpr, Expr, ShapeExprNode)
  explicit ShapeExpr(Array<PrimExpr> values, Span span = {});
};

class PrimValueNode : public ExprNode {
 public:
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(PrimValueNode, "relax.PrimValue", kPrimValue)
};
class PrimValue : public Expr {
  KILN_DEFINE_REF(PrimValue, Expr, PrimValueNode)
  explicit PrimValue(PrimExpr value, Span span = {});
};

class StringImmNode : public ExprNode {
 public:
  std::string value;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(StringImmNode, "relax.StringImm", kRelaxStringImm)
};
class StringImm : public Expr {
  KILN_DEFINE_REF(StringImm, Expr, StringImmNode)
  explicit StringImm(std::string value, Span span = {});
};

class DataTypeImmNode : public ExprNode {
 public:
  DataType value;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(DataTypeImmNode, "relax.DataTypeImm", kDataTypeImm)
};
class DataTypeImm : public Expr {
  KILN_DEFINE_REF(DataTypeImm, Expr, DataTypeImmNode)
  explicit DataTypeImm(DataType value, Span span = {});
};

// op is an Op ("relax.add"), a GlobalVar, a Var holding a closure, or an ExternFunc.
// Operator attributes (axis=, keepdims=, out_ty of call_tir is in ty_args) live in attrs.
class CallNode : public ExprNode {
 public:
  Expr op;
  Array<Expr> args;
  Map<String, ObjectRef> attrs;
  Array<Type> ty_args;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("op", &op);
    v->Visit("args", &args);
    v->Visit("attrs", &attrs);
    v->Visit("ty_args", &ty_args);
  }
  KILN_DECLARE_NODE(CallNode, "relax.Call", kRelaxCall)
};
class Call : public Expr {
  KILN_DEFINE_REF(Call, Expr, CallNode)
  Call(Expr op, Array<Expr> args, Map<String, ObjectRef> attrs = {}, Array<Type> ty_args = {},
       Span span = {});
};

class IfNode : public ExprNode {
 public:
  Expr cond, true_branch, false_branch;  // branches are SeqExprs
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("cond", &cond);
    v->Visit("true_branch", &true_branch);
    v->Visit("false_branch", &false_branch);
  }
  KILN_DECLARE_NODE(IfNode, "relax.If", kIf)
};
class If : public Expr {
  KILN_DEFINE_REF(If, Expr, IfNode)
  If(Expr cond, Expr true_branch, Expr false_branch, Span span = {});
};

class BindingNode : public SpannedNode {
 public:
  Var var;
};
class Binding : public ObjectRef {
  KILN_DEFINE_REF(Binding, ObjectRef, BindingNode)
};

class VarBindingNode : public BindingNode {
 public:
  Expr value;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("value", &value);
    v->Visit("var", &var, kFieldDef);
  }
  KILN_DECLARE_NODE(VarBindingNode, "relax.VarBinding", kVarBinding)
};
class VarBinding : public Binding {
  KILN_DEFINE_REF(VarBinding, Binding, VarBindingNode)
  VarBinding(Var var, Expr value, Span span = {});
};

// var = R.match_cast(value, ty): checks value against ty at run time and binds the symbolic vars
// that first appear in ty.
class MatchCastNode : public BindingNode {
 public:
  Expr value;
  Type cast_ty;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("value", &value);
    v->Visit("cast_ty", &cast_ty, kFieldDef);
    v->Visit("var", &var, kFieldDef);
  }
  KILN_DECLARE_NODE(MatchCastNode, "relax.MatchCast", kMatchCast)
};
class MatchCast : public Binding {
  KILN_DEFINE_REF(MatchCast, Binding, MatchCastNode)
  MatchCast(Var var, Expr value, Type cast_ty, Span span = {});
};

class BindingBlockNode : public SpannedNode {
 public:
  Array<Binding> bindings;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("bindings", &bindings);
  }
  KILN_DECLARE_NODE(BindingBlockNode, "relax.BindingBlock", kBindingBlock)
};
class BindingBlock : public ObjectRef {
  KILN_DEFINE_REF(BindingBlock, ObjectRef, BindingBlockNode)
  explicit BindingBlock(Array<Binding> bindings, Span span = {});
};

class DataflowBlockNode : public BindingBlockNode {
 public:
  KILN_DECLARE_NODE(DataflowBlockNode, "relax.DataflowBlock", kDataflowBlock)
};
class DataflowBlock : public BindingBlock {
  KILN_DEFINE_REF(DataflowBlock, BindingBlock, DataflowBlockNode)
  explicit DataflowBlock(Array<Binding> bindings, Span span = {});
};

class SeqExprNode : public ExprNode {
 public:
  Array<BindingBlock> blocks;
  Expr body;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("blocks", &blocks);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(SeqExprNode, "relax.SeqExpr", kSeqExpr)
};
class SeqExpr : public Expr {
  KILN_DEFINE_REF(SeqExpr, Expr, SeqExprNode)
  SeqExpr(Array<BindingBlock> blocks, Expr body, Span span = {});
};

class FunctionNode : public BaseFuncNode {
 public:
  Array<Var> params;
  Expr body;  // a SeqExpr
  Type ret_ty;
  bool is_pure = true;
  void VisitFields(FieldVisitor* v) override {
    BaseFuncNode::VisitFields(v);
    v->Visit("params", &params, kFieldDef);
    v->Visit("ret_ty", &ret_ty, kFieldOptional);
    v->Visit("is_pure", &is_pure);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(FunctionNode, "relax.Function", kFunction)
};
class Function : public BaseFunc {
  KILN_DEFINE_REF(Function, BaseFunc, FunctionNode)
  Function(Array<Var> params, Expr body, Type ret_ty, bool is_pure = true,
           Map<String, ObjectRef> attrs = {}, Span span = {});
};

class ExternFuncNode : public BaseFuncNode {
 public:
  std::string global_symbol;
  void VisitFields(FieldVisitor* v) override {
    BaseFuncNode::VisitFields(v);
    v->Visit("global_symbol", &global_symbol);
  }
  KILN_DECLARE_NODE(ExternFuncNode, "relax.ExternFunc", kExternFunc)
};
class ExternFunc : public BaseFunc {
  KILN_DEFINE_REF(ExternFunc, BaseFunc, ExternFuncNode)
  explicit ExternFunc(std::string global_symbol, Span span = {});
};

}  // namespace kiln::ir::relax

#endif  // KILN_COMPILER_IR_RELAX_H_
