// Types. TIR uses PrimType/PointerType/TupleType; Relax (whose StructInfo became Type in TVM v0.26)
// uses TensorType, ShapeType, TupleType, PrimType, AnyType and FuncType (R.Callable).
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

// R.Tensor(shape, dtype, ndim). shape is a ShapeExpr, a Var of shape type, or undefined (unknown);
// ndim == -1 means unknown rank; dtype void means unknown dtype.
class TensorTypeNode : public TypeNode {
 public:
  Expr shape;
  DataType dtype = DataType::Void();
  int32_t ndim = -1;
  std::string vdevice;  // "" when unconstrained; else e.g. "cuda:0"
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("shape", &shape, kFieldOptional);
    v->Visit("dtype", &dtype);
    v->Visit("ndim", &ndim);
    v->Visit("vdevice", &vdevice);
  }
  KILN_DECLARE_NODE(TensorTypeNode, "relax.TensorType", kTensorType)
};
class TensorType : public Type {
  KILN_DEFINE_REF(TensorType, Type, TensorTypeNode)
  // Known shape (ndim derived from it).
  TensorType(Array<PrimExpr> shape, DataType dtype);
  // Unknown shape of rank ndim (-1: unknown).
  TensorType(DataType dtype, int ndim);
};

// R.Shape(values) or R.Shape(ndim=k).
class ShapeTypeNode : public TypeNode {
 public:
  Array<PrimExpr> values;
  bool values_known = false;
  int32_t ndim = -1;
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("values", &values);
    v->Visit("values_known", &values_known);
    v->Visit("ndim", &ndim);
  }
  KILN_DECLARE_NODE(ShapeTypeNode, "relax.ShapeType", kShapeType)
};
class ShapeType : public Type {
  KILN_DEFINE_REF(ShapeType, Type, ShapeTypeNode)
  explicit ShapeType(Array<PrimExpr> values);
  explicit ShapeType(int ndim);
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

// R.Any (alias R.Object): any value.
class AnyTypeNode : public TypeNode {
 public:
  KILN_DECLARE_NODE(AnyTypeNode, "relax.AnyType", kAnyType)
};
class AnyType : public Type {
  KILN_DEFINE_REF(AnyType, Type, AnyTypeNode)
  static AnyType Make();
};

// R.PackedFunc / an opaque callable.
class PackedFuncTypeNode : public TypeNode {
 public:
  KILN_DECLARE_NODE(PackedFuncTypeNode, "relax.PackedFuncType", kPackedFuncType)
};
class PackedFuncType : public Type {
  KILN_DEFINE_REF(PackedFuncType, Type, PackedFuncTypeNode)
  static PackedFuncType Make();
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_TYPE_H_
