// Relax's value types (TVM v0.26's StructInfo, now Type): R.Tensor, R.Shape, R.Any and
// R.PackedFunc. They sit apart from type.h, which holds the types TIR shares, so that the TIR
// nodes (//compiler/ir:tir) build without Relax.
#ifndef KILN_COMPILER_IR_RELAX_TYPE_H_
#define KILN_COMPILER_IR_RELAX_TYPE_H_

#include "compiler/ir/expr.h"
#include "compiler/ir/type.h"

namespace kiln::ir {

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

#endif  // KILN_COMPILER_IR_RELAX_TYPE_H_
