// The interpreter's arguments: MakePackedAPI's checks (KernelAbiChecks) evaluated on the KilnAny
// values a caller passes, the returned value, and calls between PrimFuncs (see interpreter.h).
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

absl::Status Interpreter::CheckFailed(const AbiCheck& c) {
  return absl::InvalidArgumentError(absl::StrCat(c.error_kind, ": ", c.message));
}

// Evaluates MakePackedAPI's argument checks (the same list, analysis/abi_checks.h) in order on
// the arguments and binds the parameters and the variables the checks define.
absl::Status Interpreter::BindArguments(const PrimFunc& f, const KilnAny* args, int32_t num_args) {
  absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, frame_->func);
  if (!checks.ok()) return checks.status();
  std::unordered_map<int, TensorArg> tensors;
  for (const AbiCheck& c : *checks) {
    if (c.kind == AbiCheck::kNumArgs) {
      if (num_args != c.value || (c.value > 0 && args == nullptr)) return CheckFailed(c);
    } else if (c.kind == AbiCheck::kTypeIndex) {
      KILN_INTERP_TRY(BindParam(c, f->params[c.arg], args[c.arg]));
    } else {
      Buffer buf = f->buffer_map.Get(f->params[c.arg]);
      KILN_INTERP_TRY(CheckTensor(c, buf, args[c.arg], &tensors[c.arg]));
    }
  }
  return absl::OkStatus();
}

absl::Status Interpreter::BindParam(const AbiCheck& c, const Var& p, const KilnAny& arg) {
  DataType t = p->dtype;
  if (c.param_kind == AbiParamKind::kFloat) KILN_INTERP_TRY(interp::CheckSupported(t));
  int tindex = arg.type_index;
  if (std::find(c.type_indices.begin(), c.type_indices.end(), tindex) == c.type_indices.end()) {
    return CheckFailed(c);
  }
  switch (c.param_kind) {
    case AbiParamKind::kTensor:
      BindVar(p.get(), Value::Handle(arg.v_ptr));
      break;
    case AbiParamKind::kPointer:
      BindVar(p.get(), Value::Handle(tindex == kKilnNone ? nullptr : arg.v_ptr));
      break;
    case AbiParamKind::kBool:
      BindVar(p.get(), Value::Bool(arg.v_int64 != 0));
      break;
    case AbiParamKind::kInt:
      BindVar(p.get(), Value::Int(t, arg.v_int64));
      break;
    case AbiParamKind::kFloat: {
      Value v;
      Value in = tindex == kKilnFloat ? Value::Float(DataType::Float(64), arg.v_float64)
                                      : Value::Int(DataType::Int(64), arg.v_int64);
      KILN_INTERP_TRY(interp::CastValue(in, t, &v));
      BindVar(p.get(), std::move(v));
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status Interpreter::CheckTensor(const AbiCheck& c, const Buffer& buf, const KilnAny& arg, TensorArg* ta) {
  const DLTensor* t = ta->t;
  switch (c.kind) {
    case AbiCheck::kTensorNotNull:
      ta->t = static_cast<const DLTensor*>(arg.v_ptr);
      return ta->t == nullptr ? CheckFailed(c) : absl::OkStatus();
    case AbiCheck::kNDim:
      return t->ndim == c.value ? absl::OkStatus() : CheckFailed(c);
    case AbiCheck::kDType:
      if (!DTypeAccepted(c.dtype, t->dtype.code, t->dtype.bits, t->dtype.lanes)) return CheckFailed(c);
      KILN_INTERP_TRY(interp::CheckSupported(c.dtype));
      // A compiled kernel would read through a NULL shape array; the interpreter reports it.
      if (t->ndim > 0 && t->shape == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("ValueError: ", frame_->func, ": argument ", buf->name, ".shape is NULL"));
      }
      ta->dims.assign(t->shape, t->shape + t->ndim);
      ta->compact = CompactStrides(ta->dims);
      ta->strides = ta->compact;
      if (t->strides != nullptr) ta->strides.assign(t->strides, t->strides + t->ndim);
      return absl::OkStatus();
    case AbiCheck::kShape:
      return BindOrCheckArgument(c, ta->dims[c.dim]);
    case AbiCheck::kCompactStrides:
      for (size_t k = 0; k < ta->dims.size() && t->strides != nullptr; ++k) {
        if (ta->dims[k] != 1 && t->strides[k] != ta->compact[k]) return CheckFailed(c);
      }
      return absl::OkStatus();
    case AbiCheck::kStride:
      return BindOrCheckArgument(c, ta->strides[c.dim]);
    case AbiCheck::kByteOffsetMultiple: {
      int64_t byte_offset = static_cast<int64_t>(t->byte_offset);
      if (byte_offset % c.value != 0) return CheckFailed(c);
      BindVar(c.bind.get(), Value::Int(c.bind->dtype, byte_offset / c.value));
      return absl::OkStatus();
    }
    case AbiCheck::kByteOffset: {
      int64_t expected;
      KILN_INTERP_TRY(EvalInt(c.expected, &expected));
      return static_cast<int64_t>(t->byte_offset) == expected ? absl::OkStatus() : CheckFailed(c);
    }
    case AbiCheck::kDataNotNull: {
      bool empty = std::find(ta->dims.begin(), ta->dims.end(), 0) != ta->dims.end();
      return t->data == nullptr && !empty ? CheckFailed(c) : absl::OkStatus();
    }
    case AbiCheck::kDataAligned:
      return (reinterpret_cast<uintptr_t>(t->data) & static_cast<uintptr_t>(c.value - 1)) != 0 ? CheckFailed(c)
                                                                                                : absl::OkStatus();
    case AbiCheck::kDevice:
      if (t->device.device_type != c.value) return CheckFailed(c);
      // The last check of a tensor: it is accepted.
      return BindTensor(buf, *ta);
    case AbiCheck::kNumArgs:
    case AbiCheck::kTypeIndex:
      break;
  }
  return absl::InternalError(absl::StrCat(frame_->func, ": not a tensor check"));
}

// A shape or stride check: defines its variable from `actual`, or compares.
absl::Status Interpreter::BindOrCheckArgument(const AbiCheck& c, int64_t actual) {
  if (c.bind.defined()) {
    BindVar(c.bind.get(), Value::Int(c.bind->dtype, actual));
    return absl::OkStatus();
  }
  int64_t expected;
  KILN_INTERP_TRY(EvalInt(c.expected, &expected));
  return expected == actual ? absl::OkStatus() : CheckFailed(c);
}

// Binds an accepted tensor argument: its data pointer, the memory it spans, its view.
absl::Status Interpreter::BindTensor(const Buffer& buf, const TensorArg& ta) {
  const DLTensor* t = ta.t;
  BindVar(buf->data.get(), Value::Handle(t->data));
  // The memory the caller handed over: every element the tensor's own layout reaches.
  int64_t lo, hi;
  int64_t storage = buf->dtype.StorageBytes();
  if (Span(ta.dims, ta.strides, &lo, &hi)) {
    uintptr_t base = reinterpret_cast<uintptr_t>(t->data) + static_cast<uintptr_t>(t->byte_offset);
    memory_.Add(base + static_cast<uintptr_t>(lo * storage), base + static_cast<uintptr_t>((hi + 1) * storage));
  }
  BufferView view;
  KILN_INTERP_TRY(ComputeView(buf, &view));
  BindView(buf.get(), std::move(view));
  return absl::OkStatus();
}

absl::Status Interpreter::WriteResult(const Frame& frame, KilnAny* result) {
  *result = KilnAny{};
  result->type_index = kKilnNone;
  if (!frame.returned) return absl::OkStatus();
  const Value& v = frame.ret;
  if (v.lanes.size() != 1) {
    return absl::UnimplementedError(absl::StrCat(frame.func, ": cannot return a ", v.dtype.ToString(), " vector"));
  }
  if (v.dtype.is_bool()) {
    result->type_index = kKilnBool;
    result->v_int64 = v.AsInt();
  } else if (v.dtype.is_int_or_bool()) {
    result->type_index = kKilnInt;
    result->v_int64 = v.AsInt();
  } else if (v.dtype.is_floating()) {
    result->type_index = kKilnFloat;
    result->v_float64 = v.AsFloat();
  } else if (v.dtype.is_handle()) {
    result->type_index = kKilnOpaquePtr;
    result->v_ptr = v.AsPointer();
  }
  return absl::OkStatus();
}

// A call to PrimFunc `name` from TIR: scalar arguments bind the parameters, a buffer parameter
// takes a data pointer and its layout from its declaration (as an internal function's must be).
absl::Status Interpreter::CallFunction(const std::string& name, const CallNode* op, Value* out) {
  BaseFunc base = module_.Lookup(name);
  PrimFunc f = TryDowncast<PrimFunc>(base);
  if (!f.defined()) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": call to ", name, ", which is not a PrimFunc"));
  }
  if (f->params.size() != op->args.size()) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": ", name, " takes ", f->params.size(),
                                                   " arguments, called with ", op->args.size()));
  }
  if (depth_ >= kMaxCallDepth) {
    return Located(absl::ResourceExhaustedError(absl::StrCat(frame_->func, ": calls nest deeper than ", kMaxCallDepth)),
                   op->span);
  }
  std::vector<Value> args(op->args.size());
  for (size_t i = 0; i < args.size(); ++i) KILN_INTERP_TRY(Eval(op->args[i], &args[i]));
  Frame frame;
  frame.func = name;
  Frame* caller = frame_;
  frame_ = &frame;
  ++depth_;
  absl::Status st = RunCallee(f, args);
  --depth_;
  frame_ = caller;
  KILN_INTERP_TRY(st);
  if (frame.returned) {
    *out = std::move(frame.ret);
  } else {
    *out = Value::Int(DataType::Int(32), 0);
    out->dtype = op->dtype;
  }
  return absl::OkStatus();
}

absl::Status Interpreter::RunCallee(const PrimFunc& f, const std::vector<Value>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const Var& p = f->params[i];
    if (f->buffer_map.count(p) || p->dtype.is_handle()) {
      BindVar(p.get(), args[i]);
    } else {
      Value v;
      KILN_INTERP_TRY(interp::CastValue(args[i], p->dtype, &v));
      BindVar(p.get(), std::move(v));
    }
  }
  for (const Var& p : f->params) {
    Buffer buf = f->buffer_map.Get(p);
    if (!buf.defined()) continue;
    BindVar(buf->data.get(), frame_->vars[p.get()]);
    BufferView view;
    KILN_INTERP_TRY(ComputeView(buf, &view));
    BindView(buf.get(), std::move(view));
  }
  Flow flow;
  return Exec(f->body, &flow);
}

}  // namespace kiln::tir::interp_internal
