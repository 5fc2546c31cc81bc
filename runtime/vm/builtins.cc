#include "runtime/vm/builtins.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::vm {
namespace {

using Args = absl::Span<const Value>;

// match_shape / match_prim_value codes (TVM's MatchShapeCode) and make_shape codes (MakeShapeCode).
enum MatchCode : int64_t { kAssertEqualToImm = 0, kStoreToHeap = 1, kNoOp = 2, kAssertEqualToLoad = 3 };
enum MakeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

// ---- argument access: a wrong kind or count is INVALID_ARGUMENT naming the builtin. ----------------

absl::Status ArgError(const char* fn, size_t i, const char* want, const Value& got) {
  return absl::InvalidArgumentError(
      absl::StrCat("TypeError: ", fn, ": argument ", i, " must be ", want, ", got ", got.kind_name()));
}

absl::Status NumArgs(const char* fn, Args a, size_t lo, size_t hi) {
  if (a.size() < lo || a.size() > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, " takes ", lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi), " arguments, got ", a.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Int(const char* fn, Args a, size_t i) {
  if (a[i].is_int() || a[i].is_bool()) return a[i].as_int();
  return ArgError(fn, i, "an int", a[i]);
}

absl::StatusOr<runtime::Tensor> TensorArg(const char* fn, Args a, size_t i) {
  if (a[i].is_tensor()) return a[i].as_tensor();
  return ArgError(fn, i, "a Tensor", a[i]);
}

absl::StatusOr<std::vector<int64_t>> ShapeArg(const char* fn, Args a, size_t i) {
  if (a[i].is_shape()) return a[i].as_shape();
  return ArgError(fn, i, "a Shape", a[i]);
}

absl::StatusOr<DLDataType> DTypeArg(const char* fn, Args a, size_t i) {
  if (a[i].is_dtype()) return a[i].as_dtype();
  if (a[i].is_string()) return runtime::ParseDType(a[i].as_string());
  return ArgError(fn, i, "a DataType", a[i]);
}

absl::Status VMArg(const char* fn, Args a) {
  if (a.empty() || a[0].kind() != Value::Kind::kVMContext) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": argument 0 must be the VM context (%vm)"));
  }
  return absl::OkStatus();
}

// The error-context string the compiler passes last (None or absent: empty).
std::string ErrCtx(Args a, size_t i) { return i < a.size() && a[i].is_string() ? a[i].as_string() : ""; }

absl::Status Fail(const char* type, const std::string& ctx, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(type, ": ", ctx, ctx.empty() ? "" : " ", what));
}

std::string ShapeStr(const std::vector<int64_t>& s) {
  return absl::StrCat("(", absl::StrJoin(s, ", "), s.size() == 1 ? ",)" : ")");
}

#define ASSIGN_OR_RETURN(lhs, expr)        \
  auto lhs##_or = (expr);                  \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

#define RETURN_IF_ERROR(expr)             \
  do {                                    \
    absl::Status _st = (expr);            \
    if (!_st.ok()) return _st;            \
  } while (0)

// The shape heap: an int64 tensor (or None when the function has no symbolic shapes).
struct Heap {
  int64_t* data = nullptr;
  int64_t size = 0;
};

absl::StatusOr<Heap> HeapArg(const char* fn, Args a, size_t i) {
  if (a[i].is_none()) return Heap{};
  if (!a[i].is_tensor()) return ArgError(fn, i, "the shape heap (an int64 Tensor) or None", a[i]);
  const runtime::Tensor& t = a[i].as_tensor();
  if (t.ndim() != 1 || t.dtype().code != kDLInt || t.dtype().bits != 64 || t.device().device_type != kDLCPU) {
    return ArgError(fn, i, "the shape heap (a 1-d int64 CPU Tensor)", a[i]);
  }
  return Heap{static_cast<int64_t*>(t.data()), t.shape()[0]};
}

absl::StatusOr<int64_t*> HeapSlot(const char* fn, const Heap& heap, int64_t reg) {
  if (reg < 0 || reg >= heap.size) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": shape heap slot ", reg, " outside a heap of ", heap.size));
  }
  return heap.data + reg;
}

// ---- shapes and type checks -----------------------------------------------------------------------

absl::StatusOr<Value> AllocShapeHeap(BuiltinContext& ctx, Args a) {
  const char* fn = "vm.builtin.alloc_shape_heap";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 2));
  RETURN_IF_ERROR(VMArg(fn, a));
  ASSIGN_OR_RETURN(size, Int(fn, a, 1));
  if (size < 0 || size > (int64_t{1} << 32)) return absl::InvalidArgumentError(absl::StrCat(fn, ": negative size ", size));
  ASSIGN_OR_RETURN(alloc, ctx.allocator(-1));
  ASSIGN_OR_RETURN(storage, alloc->Alloc(static_cast<size_t>(size) * 8, 64, "global"));
  ASSIGN_OR_RETURN(t, storage->AllocTensor(0, {size}, DLDataType{kDLInt, 64, 1}));
  return Value::Tensor(std::move(t));
}

// One (code, value) check of match_shape / match_prim_value. `what` names the checked item.
absl::Status MatchOne(const char* fn, int64_t input, const Heap& heap, int64_t code, int64_t v,
                      const std::string& ctx, const std::string& what) {
  switch (code) {
    case kAssertEqualToImm:
      if (input != v) {
        return Fail("RuntimeError", ctx, absl::StrCat("match_cast error, ", what, " mismatch to specified constant (",
                                                      input, " vs ", v, ")."));
      }
      return absl::OkStatus();
    case kStoreToHeap: {
      ASSIGN_OR_RETURN(slot, HeapSlot(fn, heap, v));
      *slot = input;
      return absl::OkStatus();
    }
    case kNoOp: return absl::OkStatus();
    case kAssertEqualToLoad: {
      ASSIGN_OR_RETURN(slot, HeapSlot(fn, heap, v));
      if (input != *slot) {
        return Fail("RuntimeError", ctx, absl::StrCat("match_cast error, ", what, " mismatch to a previous populated value (",
                                                      input, " vs ", *slot, ")."));
      }
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(fn, ": unknown match shape code ", code));
}

absl::StatusOr<Value> MatchShape(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.match_shape";
  if (a.size() < 4) return NumArgs(fn, a, 4, 4);
  std::vector<int64_t> shape;
  if (a[0].is_tensor()) {
    shape = a[0].as_tensor().shape();
  } else if (a[0].is_shape()) {
    shape = a[0].as_shape();
  } else {
    return ArgError(fn, 0, "a Tensor or Shape", a[0]);
  }
  ASSIGN_OR_RETURN(heap, HeapArg(fn, a, 1));
  ASSIGN_OR_RETURN(size, Int(fn, a, 2));
  if (size < 0 || static_cast<uint64_t>(size) != (a.size() - 4) / 2 || (a.size() - 4) % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": ", size, " dimensions need ", "4 + 2 x ndim arguments, got ", a.size()));
  }
  std::string ctx = ErrCtx(a, 3 + 2 * size);
  if (static_cast<int64_t>(shape.size()) != size) {
    return Fail("RuntimeError", ctx, absl::StrCat("match_cast shape size mismatch (expect ndim ", size, " but got ", shape.size(), ")."));
  }
  for (int64_t i = 0; i < size; ++i) {
    ASSIGN_OR_RETURN(code, Int(fn, a, 3 + 2 * i));
    ASSIGN_OR_RETURN(v, Int(fn, a, 4 + 2 * i));
    RETURN_IF_ERROR(MatchOne(fn, shape[i], heap, code, v, ctx, absl::StrCat("shape[", i, "]")));
  }
  return Value();
}

absl::StatusOr<Value> MatchPrimValue(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.match_prim_value";
  RETURN_IF_ERROR(NumArgs(fn, a, 4, 5));
  ASSIGN_OR_RETURN(input, Int(fn, a, 0));
  ASSIGN_OR_RETURN(heap, HeapArg(fn, a, 1));
  ASSIGN_OR_RETURN(code, Int(fn, a, 2));
  ASSIGN_OR_RETURN(v, Int(fn, a, 3));
  RETURN_IF_ERROR(MatchOne(fn, input, heap, code, v, ErrCtx(a, 4), "PrimExpr"));
  return Value();
}

absl::StatusOr<int64_t> MakeOne(const char* fn, const Heap& heap, int64_t code, int64_t v) {
  if (code == kUseImm) return v;
  if (code == kLoadShape) {
    ASSIGN_OR_RETURN(slot, HeapSlot(fn, heap, v));
    return *slot;
  }
  return absl::InvalidArgumentError(absl::StrCat(fn, ": invalid shape code ", code));
}

absl::StatusOr<Value> MakeShape(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.make_shape";
  if (a.size() < 2) return NumArgs(fn, a, 2, 2);
  ASSIGN_OR_RETURN(heap, HeapArg(fn, a, 0));
  ASSIGN_OR_RETURN(size, Int(fn, a, 1));
  if (size < 0 || static_cast<uint64_t>(size) * 2 + 2 != a.size()) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": ", size, " dimensions need 2 + 2 x ndim arguments, got ", a.size()));
  }
  std::vector<int64_t> shape(size);
  for (int64_t i = 0; i < size; ++i) {
    ASSIGN_OR_RETURN(code, Int(fn, a, 2 + 2 * i));
    ASSIGN_OR_RETURN(v, Int(fn, a, 3 + 2 * i));
    ASSIGN_OR_RETURN(d, MakeOne(fn, heap, code, v));
    shape[i] = d;
  }
  return Value::Shape(std::move(shape));
}

absl::StatusOr<Value> MakePrimValue(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.make_prim_value";
  RETURN_IF_ERROR(NumArgs(fn, a, 3, 3));
  ASSIGN_OR_RETURN(heap, HeapArg(fn, a, 0));
  ASSIGN_OR_RETURN(code, Int(fn, a, 1));
  ASSIGN_OR_RETURN(v, Int(fn, a, 2));
  ASSIGN_OR_RETURN(r, MakeOne(fn, heap, code, v));
  return Value::Int(r);
}

absl::StatusOr<Value> CheckTensorInfo(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.check_tensor_info";
  RETURN_IF_ERROR(NumArgs(fn, a, 3, 4));
  ASSIGN_OR_RETURN(ndim, Int(fn, a, 1));
  std::string ctx = ErrCtx(a, a.size() - 1);
  if (!a[0].is_tensor()) return Fail("TypeError", ctx, absl::StrCat("expect a Tensor but get ", a[0].kind_name()));
  const runtime::Tensor& t = a[0].as_tensor();
  if (ndim != -1 && t.ndim() != ndim) {
    return Fail("ValueError", ctx, absl::StrCat("expect Tensor with ndim ", ndim, " but get ", t.ndim()));
  }
  if (a.size() == 4 && !a[2].is_none()) {
    ASSIGN_OR_RETURN(dtype, DTypeArg(fn, a, 2));
    if (!runtime::DTypeEqual(dtype, t.dtype())) {
      return Fail("ValueError", ctx, absl::StrCat("expect Tensor with dtype ", runtime::DTypeString(dtype), " but get ",
                                                  runtime::DTypeString(t.dtype())));
    }
  }
  return Value();
}

absl::StatusOr<Value> CheckShapeInfo(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.check_shape_info";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 3));
  ASSIGN_OR_RETURN(ndim, Int(fn, a, 1));
  std::string ctx = ErrCtx(a, 2);
  if (!a[0].is_shape()) return Fail("TypeError", ctx, absl::StrCat("expect a Shape but get ", a[0].kind_name()));
  if (ndim != -1 && static_cast<int64_t>(a[0].as_shape().size()) != ndim) {
    return Fail("ValueError", ctx, absl::StrCat("expect Shape with ndim ", ndim, " but get ", a[0].as_shape().size()));
  }
  return Value();
}

absl::StatusOr<Value> CheckPrimValueInfo(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.check_prim_value_info";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 3));
  ASSIGN_OR_RETURN(dtype, DTypeArg(fn, a, 1));
  std::string ctx = ErrCtx(a, 2);
  const Value& v = a[0];
  bool ok = false;
  switch (dtype.code) {
    case kDLInt:
    case kDLUInt: ok = v.is_int() || v.is_bool(); break;
    case kDLFloat: ok = v.is_float() || v.is_int() || v.is_bool(); break;
    case runtime::kDLBoolCode: ok = v.is_bool() || v.is_int(); break;
    default: return Fail("TypeError", ctx, absl::StrCat(", unsupported dtype ", runtime::DTypeString(dtype)));
  }
  if (!ok) {
    return Fail("TypeError", ctx, absl::StrCat(", expected dtype ", runtime::DTypeString(dtype), ", but received ", v.kind_name()));
  }
  return Value();
}

absl::StatusOr<Value> CheckTupleInfo(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.check_tuple_info";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 3));
  ASSIGN_OR_RETURN(size, Int(fn, a, 1));
  std::string ctx = ErrCtx(a, 2);
  if (!a[0].is_tuple()) return Fail("TypeError", ctx, absl::StrCat("expect a Tuple but get ", a[0].kind_name()));
  if (static_cast<int64_t>(a[0].as_tuple().size()) != size) {
    return Fail("ValueError", ctx, absl::StrCat("expect a Tuple with ", size, " elements,  but get a Tuple with ",
                                                a[0].as_tuple().size(), " elements."));
  }
  return Value();
}

absl::StatusOr<Value> CheckFuncInfo(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.check_func_info";
  RETURN_IF_ERROR(NumArgs(fn, a, 1, 2));
  if (!a[0].is_closure()) return Fail("TypeError", ErrCtx(a, 1), absl::StrCat("expect a Function but get ", a[0].kind_name()));
  return Value();
}

// ---- storage ----------------------------------------------------------------------------------

absl::StatusOr<Value> AllocStorage(BuiltinContext& ctx, Args a) {
  const char* fn = "vm.builtin.alloc_storage";
  RETURN_IF_ERROR(NumArgs(fn, a, 4, 5));
  RETURN_IF_ERROR(VMArg(fn, a));
  ASSIGN_OR_RETURN(shape, ShapeArg(fn, a, 1));
  ASSIGN_OR_RETURN(device_index, Int(fn, a, 2));
  ASSIGN_OR_RETURN(dtype, DTypeArg(fn, a, 3));
  std::string scope = a.size() == 5 && a[4].is_string() ? a[4].as_string() : "global";
  int64_t nbytes = runtime::DTypeBytes(dtype);
  if (nbytes <= 0) return absl::InvalidArgumentError(absl::StrCat(fn, ": bad dtype ", runtime::DTypeString(dtype)));
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && nbytes > (int64_t{1} << 48) / d)) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": bad buffer shape ", ShapeStr(shape)));
    }
    nbytes *= d;
  }
  if (scope != "global" && !scope.empty()) {
    return absl::UnimplementedError(absl::StrCat(fn, ": memory scope \"", scope, "\" is not supported"));
  }
  ASSIGN_OR_RETURN(alloc, ctx.allocator(device_index));
  ASSIGN_OR_RETURN(storage, alloc->Alloc(static_cast<size_t>(nbytes), 64, scope));
  return Value::StorageRef(std::move(storage));
}

absl::StatusOr<Value> AllocTensor(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.alloc_tensor";
  RETURN_IF_ERROR(NumArgs(fn, a, 4, 5));
  if (!a[0].is_storage()) return ArgError(fn, 0, "a Storage", a[0]);
  ASSIGN_OR_RETURN(offset, Int(fn, a, 1));
  ASSIGN_OR_RETURN(shape, ShapeArg(fn, a, 2));
  ASSIGN_OR_RETURN(dtype, DTypeArg(fn, a, 3));
  ASSIGN_OR_RETURN(t, a[0].as_storage()->AllocTensor(offset, shape, dtype));
  return Value::Tensor(std::move(t));
}

absl::StatusOr<Value> MemoryManagerClear(BuiltinContext& ctx, Args a) {
  ctx.ClearAllocatorCaches();
  return Value();
}

// ---- closures ---------------------------------------------------------------------------------

absl::StatusOr<Value> MakeClosure(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.make_closure";
  if (a.empty() || !a[0].is_closure()) return a.empty() ? NumArgs(fn, a, 1, 1) : ArgError(fn, 0, "a function", a[0]);
  const Closure& inner = a[0].as_closure();
  // Binding the last arguments of a closure that already binds some: the new ones come first.
  std::vector<Value> captured(a.begin() + 1, a.end());
  captured.insert(captured.end(), inner.captured.begin(), inner.captured.end());
  return Value::MakeClosure(inner.func_index, std::move(captured));
}

absl::StatusOr<Value> InvokeClosure(BuiltinContext& ctx, Args a) {
  const char* fn = "vm.builtin.invoke_closure";
  if (a.size() < 2) return NumArgs(fn, a, 2, 2);
  RETURN_IF_ERROR(VMArg(fn, a));
  if (!a[1].is_closure()) return ArgError(fn, 1, "a function", a[1]);
  return ctx.InvokeClosure(a[1], a.subspan(2));
}

absl::StatusOr<Value> CallTirDyn(BuiltinContext& ctx, Args a) {
  const char* fn = "vm.builtin.call_tir_dyn";
  if (a.size() < 2) return NumArgs(fn, a, 2, 2);
  if (!a[0].is_closure()) return ArgError(fn, 0, "a function", a[0]);
  ASSIGN_OR_RETURN(unpack, ShapeArg(fn, a, a.size() - 1));
  std::vector<Value> args(a.begin() + 1, a.end() - 1);
  for (int64_t d : unpack) args.push_back(Value::Int(d));
  return ctx.InvokeClosure(a[0], args);
}

// ---- runtime operators ------------------------------------------------------------------------

absl::StatusOr<Value> ShapeOf(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.shape_of";
  RETURN_IF_ERROR(NumArgs(fn, a, 1, 1));
  ASSIGN_OR_RETURN(t, TensorArg(fn, a, 0));
  return Value::Shape(t.shape());
}

absl::StatusOr<Value> Copy(BuiltinContext&, Args a) {
  RETURN_IF_ERROR(NumArgs("vm.builtin.copy", a, 1, 1));
  return a[0];
}

absl::StatusOr<Value> Reshape(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.reshape";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 2));
  ASSIGN_OR_RETURN(t, TensorArg(fn, a, 0));
  ASSIGN_OR_RETURN(shape, ShapeArg(fn, a, 1));
  int64_t nonzero_product = 1;
  bool has_zero = false;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && nonzero_product > INT64_MAX / d)) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": bad shape ", ShapeStr(shape)));
    }
    if (d == 0) has_zero = true;
    else nonzero_product *= d;
  }
  int64_t numel = has_zero ? 0 : nonzero_product;
  if (numel != t.numel() || !t.IsCompact()) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": cannot view a ", t.IsCompact() ? "" : "non-compact ", "tensor of shape ",
                                                   ShapeStr(t.shape()), " as ", ShapeStr(shape)));
  }
  ASSIGN_OR_RETURN(view, t.View(shape, {}));
  return Value::Tensor(std::move(view));
}

absl::StatusOr<Value> NullValue(BuiltinContext&, Args a) {
  RETURN_IF_ERROR(NumArgs("vm.builtin.null_value", a, 0, 0));
  return Value();
}

absl::StatusOr<Value> ToDevice(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.to_device";
  RETURN_IF_ERROR(NumArgs(fn, a, 3, 4));
  ASSIGN_OR_RETURN(t, TensorArg(fn, a, 0));
  ASSIGN_OR_RETURN(dev_type, Int(fn, a, 1));
  ASSIGN_OR_RETURN(dev_id, Int(fn, a, 2));
  DLDevice to{static_cast<DLDeviceType>(dev_type), static_cast<int32_t>(dev_id)};
  if (dev_type == kDLCPU && t.device().device_type == kDLCPU) {
    ASSIGN_OR_RETURN(out, runtime::Tensor::Empty(t.shape(), t.dtype(), to));
    RETURN_IF_ERROR(out.CopyFrom(t));  // any strides
    return Value::Tensor(std::move(out));
  }
  ASSIGN_OR_RETURN(out, t.CopyTo(to));
  return Value::Tensor(std::move(out));
}

// A scalar of an int or bool tensor, read on the host.
absl::StatusOr<int64_t> ReadIntScalar(const char* fn, const runtime::Tensor& tensor, int64_t index) {
  runtime::Tensor t = tensor;
  if (t.device().device_type != kDLCPU) {  // a condition computed on a GPU: read it back
    absl::StatusOr<runtime::Tensor> contiguous = t.CopyTo(DLDevice{kDLCPU, 0});
    if (!contiguous.ok()) return absl::Status(contiguous.status().code(), absl::StrCat(fn, ": ", contiguous.status().message()));
    t = *std::move(contiguous);
  }
  DLDataType d = t.dtype();
  if ((d.code != kDLInt && d.code != kDLUInt && d.code != runtime::kDLBoolCode) || d.lanes != 1) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": expects an integer or bool tensor, got ", runtime::DTypeString(d)));
  }
  const char* p = static_cast<const char*>(t.data()) + index * t.strides().back() * runtime::DTypeBytes(d);
  switch (d.bits) {
    case 1:
    case 8: return d.code == kDLUInt || d.code == runtime::kDLBoolCode ? int64_t{*reinterpret_cast<const uint8_t*>(p)}
                                                                      : int64_t{*reinterpret_cast<const int8_t*>(p)};
    case 16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case 32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case 64: { int64_t v; std::memcpy(&v, p, 8); return v; }
  }
  return absl::InvalidArgumentError(absl::StrCat(fn, ": unknown scalar int type ", runtime::DTypeString(d)));
}

absl::StatusOr<Value> ReadIfCond(BuiltinContext&, Args a) {
  RETURN_IF_ERROR(NumArgs("vm.builtin.read_if_cond", a, 1, 1));
  ASSIGN_OR_RETURN(b, ReadCondition(a[0]));
  return Value::Bool(b);
}

absl::StatusOr<Value> TupleGetItem(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.tuple_getitem";
  RETURN_IF_ERROR(NumArgs(fn, a, 2, 2));
  if (!a[0].is_tuple()) return ArgError(fn, 0, "a Tuple", a[0]);
  ASSIGN_OR_RETURN(i, Int(fn, a, 1));
  const std::vector<Value>& fields = a[0].as_tuple();
  if (i < 0 || i >= static_cast<int64_t>(fields.size())) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": index ", i, " out of range for a tuple of ", fields.size()));
  }
  return fields[i];
}

absl::StatusOr<Value> MakeTuple(BuiltinContext&, Args a) { return Value::Tuple(std::vector<Value>(a.begin(), a.end())); }

absl::StatusOr<Value> TensorToShape(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.tensor_to_shape";
  RETURN_IF_ERROR(NumArgs(fn, a, 1, 1));
  ASSIGN_OR_RETURN(t, TensorArg(fn, a, 0));
  if (t.ndim() != 1 || t.dtype().code != kDLInt) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": expects a 1-d int tensor, got ", a[0].DebugString()));
  }
  std::vector<int64_t> shape(t.shape()[0]);
  for (size_t i = 0; i < shape.size(); ++i) {
    ASSIGN_OR_RETURN(v, ReadIntScalar(fn, t, static_cast<int64_t>(i)));
    shape[i] = v;
  }
  return Value::Shape(std::move(shape));
}

absl::StatusOr<Value> EnsureZeroOffset(BuiltinContext&, Args a) {
  const char* fn = "vm.builtin.ensure_zero_offset";
  RETURN_IF_ERROR(NumArgs(fn, a, 1, 1));
  ASSIGN_OR_RETURN(t, TensorArg(fn, a, 0));
  if (t.byte_offset() == 0) return a[0];
  if (t.device().device_type != kDLCPU) {
    // A GPU data pointer is a handle, not an address: the offset cannot move into it.
    ASSIGN_OR_RETURN(copy, t.CopyTo(t.device()));
    return Value::Tensor(std::move(copy));
  }
  if (t.byte_offset() % 64 == 0) {
    DLManagedTensor* m = t.ToDLPack();
    m->dl_tensor.data = static_cast<char*>(m->dl_tensor.data) + m->dl_tensor.byte_offset;
    m->dl_tensor.byte_offset = 0;
    ASSIGN_OR_RETURN(moved, runtime::Tensor::FromDLPack(m));
    return Value::Tensor(std::move(moved));
  }
  ASSIGN_OR_RETURN(copy, runtime::Tensor::Empty(t.shape(), t.dtype(), t.device()));
  RETURN_IF_ERROR(copy.CopyFrom(t));
  return Value::Tensor(std::move(copy));
}

// relax.run.shape_to_tensor: a Shape as a 1-d int64 tensor.
absl::StatusOr<Value> ShapeToTensor(BuiltinContext&, Args a) {
  const char* fn = "relax.run.shape_to_tensor";
  RETURN_IF_ERROR(NumArgs(fn, a, 1, 1));
  ASSIGN_OR_RETURN(shape, ShapeArg(fn, a, 0));
  ASSIGN_OR_RETURN(t, runtime::Tensor::Empty({static_cast<int64_t>(shape.size())}, DLDataType{kDLInt, 64, 1}));
  if (!shape.empty()) std::memcpy(t.data(), shape.data(), shape.size() * sizeof(int64_t));
  return Value::Tensor(std::move(t));
}

const std::unordered_map<std::string, BuiltinFn>& Table() {
  static const auto* table = new std::unordered_map<std::string, BuiltinFn>{
      {"vm.builtin.alloc_shape_heap", AllocShapeHeap},
      {"vm.builtin.match_shape", MatchShape},
      {"vm.builtin.match_prim_value", MatchPrimValue},
      {"vm.builtin.make_shape", MakeShape},
      {"vm.builtin.make_prim_value", MakePrimValue},
      {"vm.builtin.check_tensor_info", CheckTensorInfo},
      {"vm.builtin.check_shape_info", CheckShapeInfo},
      {"vm.builtin.check_prim_value_info", CheckPrimValueInfo},
      {"vm.builtin.check_tuple_info", CheckTupleInfo},
      {"vm.builtin.check_func_info", CheckFuncInfo},
      {"vm.builtin.alloc_storage", AllocStorage},
      {"vm.builtin.alloc_tensor", AllocTensor},
      {"vm.builtin.memory_manager.clear", MemoryManagerClear},
      {"vm.builtin.make_closure", MakeClosure},
      {"vm.builtin.invoke_closure", InvokeClosure},
      {"vm.builtin.call_tir_dyn", CallTirDyn},
      {"vm.builtin.shape_of", ShapeOf},
      {"vm.builtin.copy", Copy},
      {"vm.builtin.reshape", Reshape},
      {"vm.builtin.null_value", NullValue},
      {"vm.builtin.to_device", ToDevice},
      {"vm.builtin.read_if_cond", ReadIfCond},
      {"vm.builtin.tuple_getitem", TupleGetItem},
      {"vm.builtin.make_tuple", MakeTuple},
      {"vm.builtin.tensor_to_shape", TensorToShape},
      {"vm.builtin.ensure_zero_offset", EnsureZeroOffset},
      {"relax.run.shape_to_tensor", ShapeToTensor},
  };
  return *table;
}

}  // namespace

absl::StatusOr<bool> ReadCondition(const Value& cond) {
  const char* fn = "vm.builtin.read_if_cond";
  if (cond.is_bool() || cond.is_int()) return cond.as_int() != 0;
  if (!cond.is_tensor()) return ArgError(fn, 0, "a bool, an int or a scalar tensor", cond);
  const runtime::Tensor& t = cond.as_tensor();
  if (t.numel() != 1) return absl::InvalidArgumentError(absl::StrCat(fn, ": expects a scalar, got shape ", ShapeStr(t.shape())));
  if (t.ndim() == 0) {
    ASSIGN_OR_RETURN(flat, t.View({1}, {}));
    ASSIGN_OR_RETURN(v, ReadIntScalar(fn, flat, 0));
    return v != 0;
  }
  ASSIGN_OR_RETURN(v, ReadIntScalar(fn, t, 0));
  return v != 0;
}

BuiltinFn LookupBuiltin(absl::string_view name) {
  auto it = Table().find(std::string(name));
  return it == Table().end() ? nullptr : it->second;
}

const std::vector<std::string>& BuiltinNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const auto& [name, fn] : Table()) v->push_back(name);
    std::sort(v->begin(), v->end());
    return v;
  }();
  return *names;
}

}  // namespace kiln::vm
