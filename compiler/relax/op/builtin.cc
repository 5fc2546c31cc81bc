// Runtime-facing operators: explicit memory (R.memory.*, R.vm.*, R.builtin.alloc_tensor), shape
// conversions (shape_of, size, tensor_to_shape, shape_to_tensor), device placement (to_vdevice,
// hint_on_device), R.builtin.stop_lift_params and effects (print, assert_op, null_value). Their operands are Relax leaf values (ShapeExpr, PrimValue, StringImm,
// DataTypeImm), as TVM builds them after lowering.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"
#include "compiler/tir/arith/analyzer.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

InferFn Returns(Type t) {
  return [t](const ir::relax::Call&) -> absl::StatusOr<Type> { return t; };
}

// A tensor whose shape and dtype are the call arguments at `shape_i` and `dtype_i`.
InferFn AllocTensorInfer(const std::string& op, size_t shape_i, size_t dtype_i) {
  return [op, shape_i, dtype_i](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    DataType dtype = DataType::Void();
    if (const auto* d = call->args[dtype_i].as<ir::relax::DataTypeImmNode>()) {
      dtype = d->value;
    } else {
      return OpError(op, "expects a dtype (R.dtype(...)) for argument 'dtype'");
    }
    std::vector<PrimExpr> shape;
    int ndim = -1;
    if (GetShapeValues(call->args[shape_i], &shape, &ndim)) return MakeTensorType(shape, dtype);
    if (!ExprType(call->args[shape_i]).as<ShapeTypeNode>()) {
      return OpError(op, "expects a shape for argument 'shape', got " + TypeToString(ExprType(call->args[shape_i])));
    }
    return MakeTensorType(dtype, ndim);
  };
}

// An argument R.memory.view leaves unset: R.null_value() (what kiln's parser passes for an
// omitted one) or the void value R.tuple() (TVM's printed calls pass it).
bool IsNullValue(const Expr& e) {
  const auto* c = e.as<ir::relax::CallNode>();
  const auto* op = c ? c->op.as<OpNode>() : nullptr;
  if (op && op->name == "relax.null_value") return true;
  const auto* t = e.as<ir::relax::TupleNode>();
  return t && t->fields.empty();
}

// R.memory.view(data, shape, dtype, relative_byte_offset): the data's shape and dtype unless the
// call gives new ones (an omitted argument is R.null_value()). As TVM's view inference, a view
// that provably ends past the data's last byte is an error, and so are a shape argument that is not
// a shape, a void dtype and a relative_byte_offset that is not an int64.
absl::StatusOr<Type> InferView(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "memory.view", "data");
  if (!x.ok()) return x.status();
  const Expr& shape_arg = call->args[1];
  const Expr& dtype_arg = call->args[2];
  const Expr& offset_arg = call->args[3];
  bool has_shape = !IsNullValue(shape_arg), has_dtype = !IsNullValue(dtype_arg);
  if (has_shape && !ExprType(shape_arg).as<ShapeTypeNode>()) {
    return OpError("memory.view", "expects a shape (R.shape) for argument 'shape', got " + TypeToString(ExprType(shape_arg)));
  }
  TensorInfo out = *x;
  if (has_dtype) {
    // A dtype held in a variable (`dtype = R.dtype("float32")`, an R.Any parameter) is a value
    // known only at run time: the view's dtype is unknown.
    const auto* d = dtype_arg.as<ir::relax::DataTypeImmNode>();
    if (d && d->value.is_void()) return OpError("memory.view", "the dtype must be a concrete tensor dtype, not void (omit it to keep the data's dtype)");
    out.dtype = d ? d->value : DataType::Void();
  }
  std::optional<PrimExpr> offset;
  if (!IsNullValue(offset_arg)) {
    const auto* prim = ExprType(offset_arg).as<PrimTypeNode>();
    if (!prim || prim->dtype != DataType::Int(64)) {
      return OpError("memory.view", "expects an int64 value (R.prim_value(T.int64(...))) for argument 'relative_byte_offset'");
    }
    if (const auto* pv = offset_arg.as<ir::relax::PrimValueNode>()) offset = pv->value;
  }
  std::vector<PrimExpr> shape;
  int ndim = -1;
  if (has_shape && GetShapeValues(shape_arg, &shape, &ndim)) {
    out.shape = shape;
    out.ndim = static_cast<int>(shape.size());
    out.shape_known = true;
  } else if (has_shape) {
    out.shape.clear();
    out.shape_known = false;
    out.ndim = ndim;
  }
  auto bytes = [](const TensorInfo& t) -> std::optional<PrimExpr> {
    if (!t.shape_known || t.dtype.is_void()) return std::nullopt;
    return MulDim(Product(t.shape), Dim((t.dtype.bits() * t.dtype.lanes() + 7) / 8));
  };
  arith::Analyzer analyzer;
  // a > b, or a - b folds to a positive value ((N + 1) - N).
  auto exceeds = [&](const PrimExpr& a, const PrimExpr& b) {
    return analyzer.CanProve(GT(a, b)) || analyzer.CanProve(GT(SubDim(a, b), Dim(0)));
  };
  const char* kBounds = "a view must not exceed the bounds of the data it views: ";
  std::optional<PrimExpr> in_bytes = bytes(*x), out_bytes = bytes(out);
  if (in_bytes && out_bytes) {
    PrimExpr end = offset ? AddDim(*out_bytes, Cast(DataType::Int(64), *offset)) : *out_bytes;
    if (exceeds(end, *in_bytes)) return OpError("memory.view", kBounds + std::string("the view ends past the data's last byte"));
  } else if (!x->dtype.is_void() && !out.dtype.is_void() && !has_shape) {
    if (out.dtype.bits() * out.dtype.lanes() > x->dtype.bits() * x->dtype.lanes()) {
      return OpError("memory.view", kBounds + std::string("a wider dtype with the same shape; give a new shape"));
    }
  } else if (x->shape_known && out.shape_known && !has_dtype) {
    if (exceeds(Product(out.shape), Product(x->shape))) return OpError("memory.view", kBounds + std::string("more elements than the data"));
  } else if (offset && !has_shape && !has_dtype) {
    if (exceeds(Cast(DataType::Int(64), *offset), Dim(0))) {
      return OpError("memory.view", kBounds + std::string("a non-zero offset without a smaller shape or dtype"));
    }
  }
  return MakeTensorType(out);
}

absl::StatusOr<Type> InferShapeOf(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "shape_of", "input");
  if (!x.ok()) return x.status();
  if (x->shape_known) {
    Array<PrimExpr> values;
    for (const PrimExpr& d : x->shape) values.push_back(d);
    return Type(ShapeType(values));
  }
  return Type(ShapeType(x->ndim));
}

absl::StatusOr<Type> InferTensorToShape(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "tensor_to_shape", "input");
  if (!x.ok()) return x.status();
  if (x->ndim >= 0 && x->ndim != 1) return OpError("tensor_to_shape", "expects a 1-D tensor");
  if (!x->dtype.is_void() && !x->dtype.is_int()) return OpError("tensor_to_shape", "expects an integer tensor");
  if (x->shape_known) {
    if (auto n = AsConst(x->shape[0])) return Type(ShapeType(static_cast<int>(*n)));
  }
  return Type(ShapeType(-1));
}

absl::StatusOr<Type> InferShapeToTensor(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  const auto* st = t.as<ShapeTypeNode>();
  if (st == nullptr) return OpError("shape_to_tensor", "expects a shape, got " + TypeToString(t));
  if (st->ndim < 0) return MakeTensorType(DataType::Int(64), 1);
  return MakeTensorType({Dim(st->ndim)}, DataType::Int(64));
}

absl::StatusOr<Type> InferAssert(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  DataType dtype = DataType::Void();
  if (const auto* p = t.as<PrimTypeNode>()) dtype = p->dtype;
  if (const auto* tt = t.as<TensorTypeNode>()) {
    if (tt->ndim > 0) return OpError("assert_op", "the condition must be a scalar");
    dtype = tt->dtype;
  }
  if (!dtype.is_void() && !dtype.is_bool()) return OpError("assert_op", "the condition must be bool, got " + dtype.ToString());
  return VoidType();
}

absl::StatusOr<Type> InferSize(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  if (t.defined() && !t.as<TensorTypeNode>() && !t.as<AnyTypeNode>()) {
    return OpError("size", "expects a tensor, got " + TypeToString(t));
  }
  return MakeTensorType(std::vector<PrimExpr>{}, DataType::Int(64));
}

// A vdevice "kind[:index[:scope]]" in the form TVM prints for to_vdevice: all three parts.
std::string CanonicalVDevice(const std::string& v) {
  size_t colons = std::count(v.begin(), v.end(), ':');
  if (colons == 0) return v + ":0:global";
  if (colons == 1) return v + ":global";
  return v;
}

// R.to_vdevice(data, dst_vdevice="cuda:0:global"): data's type placed on that vdevice, spelled as
// tensor annotations spell it ("cuda:0", with the scope only when it is not "global").
absl::StatusOr<Type> InferToVDevice(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "to_vdevice", "data");
  if (!x.ok()) return x.status();
  std::string v = CanonicalVDevice(StringAttr(call, "dst_vdevice", ""));
  const std::string kGlobal = ":global";
  if (v.size() > kGlobal.size() && v.compare(v.size() - kGlobal.size(), kGlobal.size(), kGlobal) == 0) {
    v.resize(v.size() - kGlobal.size());
  }
  TensorType t = Downcast<TensorType>(MakeTensorType(*x));
  t.CopyOnWrite()->vdevice = v;
  return Type(t);
}

absl::StatusOr<Type> InferHintOnDevice(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "hint_on_device", "data");
  if (!x.ok()) return x.status();
  if (t.as<TensorTypeNode>()) return t;
  return MakeTensorType(*x);
}

// stop_lift_params marks a value; it has the operand's type.
absl::StatusOr<Type> InferStopLiftParams(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "builtin.stop_lift_params", "x", /*allow_prim=*/true);
  if (!x.ok()) return x.status();
  if (t.as<TensorTypeNode>() || t.as<PrimTypeNode>()) return t;
  return MakeTensorType(*x);
}

}  // namespace

void RegisterBuiltinOps(std::vector<OpSchema>* ops) {
  // Allocations are pure, as in TVM (allocating memory is not a visible effect); kills, the VM's
  // dynamic call_tir, print and assert are not.
  Type any = AnyType::Make();
  AddOp(ops, "memory.alloc_storage", {"size", "virtual_device_index", "storage_scope", "dtype"}, {}, Returns(any));
  OpSchema& mat = AddOp(ops, "memory.alloc_tensor", {"storage", "offset", "shape", "dtype", "runtime_device_index"},
                        {}, AllocTensorInfer("memory.alloc_tensor", 2, 3));
  // TVM's Python wrappers always pass runtime_device_index (default R.prim_value(0)) and
  // storage_scope (default "global"), so the printed calls carry them.
  mat.min_args = 4;
  mat.arg_defaults = {ir::relax::PrimValue(IntImm(DataType::Int(64), 0))};
  {
    // TVM passes every argument, R.null_value() for the ones not given.
    OpSchema& view = AddOp(ops, "memory.view", {"data", "shape", "dtype", "relative_byte_offset"}, {}, InferView);
    view.min_args = 1;
    ir::relax::Call null(ir::Op("relax.null_value"), {});
    null.CopyOnWrite()->ty = AnyType::Make();
    view.arg_defaults = {null, null, null};
  }
  // A copy of the data with elem_offset 0 when it has an offset: the same type.
  AddOp(ops, "memory.ensure_zero_offset", {"data"}, {}, [](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(ArgType(call, 0), "memory.ensure_zero_offset", "data");
    if (!x.ok()) return x.status();
    return MakeTensorType(*x);
  });
  AddOp(ops, "memory.kill_storage", {"storage"}, {}, Returns(VoidType())).is_pure = false;
  AddOp(ops, "memory.kill_tensor", {"tensor"}, {}, Returns(VoidType())).is_pure = false;
  OpSchema& vas = AddOp(ops, "vm.alloc_storage", {"size", "runtime_device_index", "dtype", "storage_scope"}, {},
                        Returns(any));
  vas.min_args = 3;
  vas.arg_defaults = {ir::relax::StringImm("global")};
  OpSchema& vat = AddOp(ops, "vm.alloc_tensor", {"storage", "offset", "shape", "dtype", "runtime_device_index"}, {},
                        AllocTensorInfer("vm.alloc_tensor", 2, 3));
  vat.min_args = 4;
  vat.arg_defaults = {ir::relax::PrimValue(IntImm(DataType::Int(64), 0))};
  AddOp(ops, "vm.kill_object", {"obj"}, {}, Returns(VoidType())).is_pure = false;
  AddOp(ops, "vm.call_tir_dyn", {"func", "args"}, {}, Returns(VoidType())).is_pure = false;
  OpSchema& bat = AddOp(ops, "builtin.alloc_tensor", {"shape", "dtype", "runtime_device_index", "storage_scope"}, {},
                        AllocTensorInfer("builtin.alloc_tensor", 0, 1));
  bat.min_args = 3;
  bat.arg_defaults = {ir::relax::StringImm("global")};
  AddOp(ops, "shape_of", {"input"}, {}, InferShapeOf);
  AddOp(ops, "size", {"input"}, {}, InferSize);
  OpSchema& to_vdevice = AddOp(ops, "to_vdevice", {"data"}, {{"dst_vdevice", AttrSpec::Kind::kString, ObjectRef()}},
                               InferToVDevice);
  to_vdevice.finalize_attrs = [](Map<String, ObjectRef>* attrs) {
    if (const auto* v = attrs->Get(String("dst_vdevice")).as<StringNode>()) {
      attrs->Set(String("dst_vdevice"), String(CanonicalVDevice(v->value)));
    }
  };
  // R.hint_on_device(data, R.device(device_type, index), memory_scope): the device's fields are
  // attributes (the parser spreads R.device(...) into them; the printer gathers them back).
  AddOp(ops, "hint_on_device", {"data"},
        {RequiredIntAttrSpec("device_type"), RequiredIntAttrSpec("index"), StringAttrSpec("memory_scope", "global")},
        InferHintOnDevice);
  AddOp(ops, "builtin.stop_lift_params", {"x"}, {}, InferStopLiftParams);
  AddOp(ops, "tensor_to_shape", {"input"}, {}, InferTensorToShape);
  AddOp(ops, "shape_to_tensor", {"input"}, {}, InferShapeToTensor);
  // R.print(*values, format=""): TVM stores the format string as the first argument.
  OpSchema& print = AddOp(ops, "print", {"format", "values"}, {}, Returns(VoidType()));
  print.variadic = true;
  print.is_pure = false;
  // R.assert_op(condition, format_args, format): args are [condition, format, *format_args].
  OpSchema& assert_op = AddOp(ops, "assert_op", {"condition", "format", "format_args"}, {}, InferAssert);
  assert_op.variadic = true;
  assert_op.is_pure = false;
  AddOp(ops, "null_value", {}, {}, Returns(any));
}

}  // namespace kiln::relax
