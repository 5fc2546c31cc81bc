// TIR expressions (and the Var, Op, GlobalVar and Range shared with Relax). Field layout follows
// the TIR language specification, ../shared/spec/004 ("Grammar").
#ifndef KILN_COMPILER_IR_EXPR_H_
#define KILN_COMPILER_IR_EXPR_H_

#include <string>

#include "compiler/ir/base.h"
#include "compiler/ir/type.h"

namespace kiln::ir {

// A variable: TIR scalar/handle (dtype set, ty = its type annotation) or Relax value (ty set,
// dtype void). Identity matters: two Vars with one name are different variables.
class VarNode : public PrimExprNode {
 public:
  std::string name;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    // For a variable the annotation is part of its definition, so it is compared.
    v->Visit("ty", &ty, kFieldOptional);
    v->Visit("dtype", &dtype);
    v->Visit("name", &name, kFieldIgnoreEq);
  }
  KILN_DECLARE_NODE(VarNode, "ir.Var", kVar)
};
class Var : public PrimExpr {
  KILN_DEFINE_REF(Var, PrimExpr, VarNode)
  // TIR scalar variable.
  Var(std::string name, DataType dtype, Span span = {});
  // TIR handle variable with a pointer type annotation, or a Relax variable with type `ty`.
  Var(std::string name, Type ty, Span span = {});
  const std::string& name() const { return get()->name; }
};

// A variable known to be non-negative (shape dimensions).
class SizeVarNode : public VarNode {
 public:
  KILN_DECLARE_NODE(SizeVarNode, "ir.SizeVar", kSizeVar)
};
class SizeVar : public Var {
  KILN_DEFINE_REF(SizeVar, Var, SizeVarNode)
  SizeVar(std::string name, DataType dtype, Span span = {});
};

class IntImmNode : public PrimExprNode {
 public:
  int64_t value = 0;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(IntImmNode, "ir.IntImm", kIntImm)
};
class IntImm : public PrimExpr {
  KILN_DEFINE_REF(IntImm, PrimExpr, IntImmNode)
  IntImm(DataType dtype, int64_t value, Span span = {});
  int64_t value() const { return get()->value; }
};

class FloatImmNode : public PrimExprNode {
 public:
  double value = 0;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(FloatImmNode, "ir.FloatImm", kFloatImm)
};
class FloatImm : public PrimExpr {
  KILN_DEFINE_REF(FloatImm, PrimExpr, FloatImmNode)
  FloatImm(DataType dtype, double value, Span span = {});
  double value() const { return get()->value; }
};

class StringImmNode : public PrimExprNode {
 public:
  std::string value;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(StringImmNode, "tirx.StringImm", kStringImm)
};
class StringImm : public PrimExpr {
  KILN_DEFINE_REF(StringImm, PrimExpr, StringImmNode)
  explicit StringImm(std::string value, Span span = {});
};

class CastNode : public PrimExprNode {
 public:
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(CastNode, "tirx.Cast", kCast)
};
class Cast : public PrimExpr {
  KILN_DEFINE_REF(Cast, PrimExpr, CastNode)
  Cast(DataType dtype, PrimExpr value, Span span = {});
};

// Binary nodes share one layout; the result dtype is stored (bool for comparisons).
class BinaryNode : public PrimExprNode {
 public:
  PrimExpr a, b;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("a", &a);
    v->Visit("b", &b);
  }
};

#define KILN_BINARY_NODE(Name, Key, IsCompare)                                   \
  class Name##Node : public BinaryNode {                                         \
   public:                                                                       \
    KILN_DECLARE_NODE(Name##Node, Key, k##Name)                                  \
  };                                                                             \
  class Name : public PrimExpr {                                                 \
    KILN_DEFINE_REF(Name, PrimExpr, Name##Node)                                  \
    Name(PrimExpr a, PrimExpr b, Span span = {});                                \
    static constexpr bool kIsCompare = IsCompare;                                \
  };

KILN_BINARY_NODE(Add, "tirx.Add", false)
KILN_BINARY_NODE(Sub, "tirx.Sub", false)
KILN_BINARY_NODE(Mul, "tirx.Mul", false)
KILN_BINARY_NODE(Div, "tirx.Div", false)   // truncdiv for ints, true division for floats
KILN_BINARY_NODE(Mod, "tirx.Mod", false)   // truncmod
KILN_BINARY_NODE(FloorDiv, "tirx.FloorDiv", false)
KILN_BINARY_NODE(FloorMod, "tirx.FloorMod", false)
KILN_BINARY_NODE(Min, "tirx.Min", false)
KILN_BINARY_NODE(Max, "tirx.Max", false)
KILN_BINARY_NODE(EQ, "tirx.EQ", true)
KILN_BINARY_NODE(NE, "tirx.NE", true)
KILN_BINARY_NODE(LT, "tirx.LT", true)
KILN_BINARY_NODE(LE, "tirx.LE", true)
KILN_BINARY_NODE(GT, "tirx.GT", true)
KILN_BINARY_NODE(GE, "tirx.GE", true)
KILN_BINARY_NODE(And, "tirx.And", true)
KILN_BINARY_NODE(Or, "tirx.Or", true)
#undef KILN_BINARY_NODE

class NotNode : public PrimExprNode {
 public:
  PrimExpr a;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("a", &a);
  }
  KILN_DECLARE_NODE(NotNode, "tirx.Not", kNot)
};
class Not : public PrimExpr {
  KILN_DEFINE_REF(Not, PrimExpr, NotNode)
  explicit Not(PrimExpr a, Span span = {});
};

// Both branches are evaluated (unlike if_then_else).
class SelectNode : public PrimExprNode {
 public:
  PrimExpr condition, true_value, false_value;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("condition", &condition);
    v->Visit("true_value", &true_value);
    v->Visit("false_value", &false_value);
  }
  KILN_DECLARE_NODE(SelectNode, "tirx.Select", kSelect)
};
class Select : public PrimExpr {
  KILN_DEFINE_REF(Select, PrimExpr, SelectNode)
  Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value, Span span = {});
};

// A Ramp's or a Broadcast's lanes use DataType::lanes()'s encoding: -factor for vscale * factor
// lanes (TVM stores the expression T.vscale() * factor, its only scalable form).
class RampNode : public PrimExprNode {
 public:
  PrimExpr base, stride;
  int32_t lanes = 1;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("base", &base);
    v->Visit("stride", &stride);
    v->Visit("lanes", &lanes);
  }
  KILN_DECLARE_NODE(RampNode, "tirx.Ramp", kRamp)
};
class Ramp : public PrimExpr {
  KILN_DEFINE_REF(Ramp, PrimExpr, RampNode)
  Ramp(PrimExpr base, PrimExpr stride, int lanes, Span span = {});
};

class BroadcastNode : public PrimExprNode {
 public:
  PrimExpr value;
  int32_t lanes = 1;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
    v->Visit("lanes", &lanes);
  }
  KILN_DECLARE_NODE(BroadcastNode, "tirx.Broadcast", kBroadcast)
};
class Broadcast : public PrimExpr {
  KILN_DEFINE_REF(Broadcast, PrimExpr, BroadcastNode)
  Broadcast(PrimExpr value, int lanes, Span span = {});
};

class ShuffleNode : public PrimExprNode {
 public:
  Array<PrimExpr> vectors, indices;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("vectors", &vectors);
    v->Visit("indices", &indices);
  }
  KILN_DECLARE_NODE(ShuffleNode, "tirx.Shuffle", kShuffle)
};
class Shuffle : public PrimExpr {
  KILN_DEFINE_REF(Shuffle, PrimExpr, ShuffleNode)
  Shuffle(Array<PrimExpr> vectors, Array<PrimExpr> indices, Span span = {});
};

class LetNode : public PrimExprNode {
 public:
  Var var;
  PrimExpr value, body;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("value", &value);
    v->Visit("var", &var, kFieldDef);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(LetNode, "tirx.Let", kLet)
};
class Let : public PrimExpr {
  KILN_DEFINE_REF(Let, PrimExpr, LetNode)
  Let(Var var, PrimExpr value, PrimExpr body, Span span = {});
};

// An operator, named like "tirx.exp" or "relax.add". Its metadata (arity, type rule, printer
// spelling) lives in the TIR/Relax op registries; the node carries only the name, so two Ops are
// equal when their names are.
class OpNode : public ExprNode {
 public:
  std::string name;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("name", &name);
  }
  KILN_DECLARE_NODE(OpNode, "ir.Op", kOp)
};
class Op : public Expr {
  KILN_DEFINE_REF(Op, Expr, OpNode)
  explicit Op(std::string name);
  const std::string& name() const { return get()->name; }
};

// A module-level function name. Compared by name.
class GlobalVarNode : public ExprNode {
 public:
  std::string name;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("name", &name);
  }
  KILN_DECLARE_NODE(GlobalVarNode, "ir.GlobalVar", kGlobalVar)
};
class GlobalVar : public Expr {
  KILN_DEFINE_REF(GlobalVar, Expr, GlobalVarNode)
  explicit GlobalVar(std::string name, Span span = {});
  const std::string& name() const { return get()->name; }
};

// TIR call: an intrinsic (Op) or another PrimFunc (GlobalVar).
class CallNode : public PrimExprNode {
 public:
  Expr op;
  Array<PrimExpr> args;
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("op", &op);
    v->Visit("args", &args);
  }
  KILN_DECLARE_NODE(CallNode, "tirx.Call", kCall)
};
class Call : public PrimExpr {
  KILN_DEFINE_REF(Call, PrimExpr, CallNode)
  Call(DataType dtype, Expr op, Array<PrimExpr> args, Span span = {});
};

class RangeNode : public SpannedNode {
 public:
  PrimExpr min, extent;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("min", &min);
    v->Visit("extent", &extent);
  }
  KILN_DECLARE_NODE(RangeNode, "ir.Range", kRange)
};
class Range : public ObjectRef {
  KILN_DEFINE_REF(Range, ObjectRef, RangeNode)
  Range(PrimExpr min, PrimExpr extent, Span span = {});
  static Range FromMinExtent(PrimExpr min, PrimExpr extent) { return Range(min, extent); }
};

// Attribute dictionary value helpers.
using AttrMap = Map<String, ObjectRef>;

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_EXPR_H_
