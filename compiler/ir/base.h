// Base classes shared by TIR and Relax: Type, Expr (with its optional checked type), PrimExpr
// (an expression with a DataType), and the node-level span.
#ifndef KILN_COMPILER_IR_BASE_H_
#define KILN_COMPILER_IR_BASE_H_

#include <string>

#include "compiler/ir/container.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/object.h"
#include "compiler/ir/reflection.h"
#include "compiler/ir/span.h"

namespace kiln::ir {

// Any node that came from source carries a span.
class SpannedNode : public Object {
 public:
  Span span;
  void VisitFields(FieldVisitor* v) override { v->Visit("span", &span); }
};

class TypeNode : public SpannedNode {};
class Type : public ObjectRef {
  KILN_DEFINE_REF(Type, ObjectRef, TypeNode)
};

class ExprNode : public SpannedNode {
 public:
  // The checked type (Relax struct info; TIR leaves it empty and uses dtype). Derived by type
  // inference, so equality ignores it except on variables, where it is the annotation.
  Type ty;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("ty", &ty, kFieldOptional | kFieldIgnoreEq);
  }
};
class Expr : public ObjectRef {
  KILN_DEFINE_REF(Expr, ObjectRef, ExprNode)
};

class PrimExprNode : public ExprNode {
 public:
  DataType dtype;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("dtype", &dtype);
  }
};
class PrimExpr : public Expr {
  KILN_DEFINE_REF(PrimExpr, Expr, PrimExprNode)
  // Python-style literals: int -> int32 (int64 if it does not fit), float -> float32.
  PrimExpr(int value);      // NOLINT
  PrimExpr(int64_t value);  // NOLINT
  PrimExpr(float value);    // NOLINT
  DataType dtype() const { return get()->dtype; }
};

class StmtNode : public SpannedNode {};
class Stmt : public ObjectRef {
  KILN_DEFINE_REF(Stmt, ObjectRef, StmtNode)
};

// A function in an IRModule: PrimFunc, Relax Function or ExternFunc.
class BaseFuncNode : public ExprNode {
 public:
  Map<String, ObjectRef> attrs;
  void VisitFields(FieldVisitor* v) override {
    ExprNode::VisitFields(v);
    v->Visit("attrs", &attrs);
  }
  // attrs["global_symbol"] if present.
  std::string GetGlobalSymbol() const;
};
class BaseFunc : public Expr {
  KILN_DEFINE_REF(BaseFunc, Expr, BaseFuncNode)
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_BASE_H_
