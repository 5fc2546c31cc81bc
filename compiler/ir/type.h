// The types TIR and Relax share: TIR uses PrimType/PointerType/TupleType/TensorMapType; Relax (whose
// StructInfo became Type in TVM v0.26) uses TupleType, PrimType and FuncType (R.Callable) with its
// own value types in relax_type.h.
#ifndef KILN_COMPILER_IR_TYPE_H_
#define KILN_COMPILER_IR_TYPE_H_

#include <string>

#include "compiler/ir/base.h"

namespace kiln::ir {

class PrimTypeNode : public TypeNode {
 public:
  DataType dtype;
  // Relax R.Prim(value=n): the known value of the scalar, if any.
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("dtype", &dtype);
    v->Visit("value", &value, kFieldOptional);
  }
  KILN_DECLARE_NODE(PrimTypeNode, "ir.PrimType", kPrimType)
};
class PrimType : public Type {
  KILN_DEFINE_REF(PrimType, Type, PrimTypeNode)
  explicit PrimType(DataType dtype, PrimExpr value = PrimExpr());
};

class PointerTypeNode : public TypeNode {
 public:
  Type element_type;
  std::string storage_scope;  // "global", "shared", "local", ...
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("element_type", &element_type);
    v->Visit("storage_scope", &storage_scope);
  }
  KILN_DECLARE_NODE(PointerTypeNode, "ir.PointerType", kPointerType)
};
class PointerType : public Type {
  KILN_DEFINE_REF(PointerType, Type, PointerTypeNode)
  PointerType(Type element_type, std::string storage_scope = "global");
};

class TupleTypeNode : public TypeNode {
 public:
  Array<Type> fields;
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("fields", &fields);
  }
  KILN_DECLARE_NODE(TupleTypeNode, "ir.TupleType", kTupleType)
};
class TupleType : public Type {
  KILN_DEFINE_REF(TupleType, Type, TupleTypeNode)
  explicit TupleType(Array<Type> fields);
};

// R.Callable(params, ret, purity). `params` undefined means "any arguments".
class FuncTypeNode : public TypeNode {
 public:
  Array<Type> params;
  bool params_known = true;
  Type ret;
  bool purity = true;
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("params", &params, kFieldDef);
    v->Visit("params_known", &params_known);
    v->Visit("ret", &ret);
    v->Visit("purity", &purity);
  }
  KILN_DECLARE_NODE(FuncTypeNode, "ir.FuncType", kFuncType)
};
class FuncType : public Type {
  KILN_DEFINE_REF(FuncType, Type, FuncTypeNode)
  FuncType(Array<Type> params, Type ret, bool purity = true);
};

// The element type of a pointer to a CUDA tensor-map descriptor (CUtensorMap): T.TensorMap(),
// also spelled T.handle("tensormap"). CUDA kernels take such parameters by value
// (`const __grid_constant__ CUtensorMap`).
class TensorMapTypeNode : public TypeNode {
 public:
  KILN_DECLARE_NODE(TensorMapTypeNode, "ir.TensorMapType", kTensorMapType)
};
class TensorMapType : public Type {
  KILN_DEFINE_REF(TensorMapType, Type, TensorMapTypeNode)
  static TensorMapType Make();
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_TYPE_H_
