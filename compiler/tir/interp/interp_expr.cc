// The interpreter's expressions, following the TIR spec's semantics (see interpreter.h).
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

absl::Status Interpreter::VisitExprDefault_(const Object* op, Value*) {
  return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter cannot evaluate ", op->type_key()));
}

absl::Status Interpreter::VisitExpr_(const VarNode* op, Value* out) {
  auto it = frame_->vars.find(op);
  if (it == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": variable ", op->name, " is not bound"));
  }
  *out = it->second;
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const IntImmNode* op, Value* out) {
  *out = Value::Int(op->dtype, op->value);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const FloatImmNode* op, Value* out) {
  KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
  *out = Value::Float(op->dtype, op->value);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const StringImmNode* op, Value* out) {
  *out = Value::Handle(op->value.c_str());  // the node outlives the run
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const CastNode* op, Value* out) {
  Value v;
  KILN_INTERP_TRY(Eval(op->value, &v));
  KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
  return interp::CastValue(v, op->dtype, out);
}

// Evaluates both operands; a scalar operand next to a vector acts as its broadcast.
absl::Status Interpreter::Operands(const BinaryNode* op, Value* a, Value* b) {
  KILN_INTERP_TRY(Eval(op->a, a));
  KILN_INTERP_TRY(Eval(op->b, b));
  if (a->lanes.size() != b->lanes.size() && a->lanes.size() != 1 && b->lanes.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": operands ", a->dtype.ToString(), " and ",
                                                   b->dtype.ToString(), " have different lanes"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::Arith(const BinaryNode* op, ArithOp kind, Value* out) {
  Value a, b;
  KILN_INTERP_TRY(Operands(op, &a, &b));
  size_t n = std::max(a.lanes.size(), b.lanes.size());
  Value r;
  r.dtype = op->dtype;
  r.lanes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    absl::Status st = interp::ArithLane(kind, a.dtype, At(a, i), At(b, i), &r.lanes[i]);
    if (!st.ok()) return Located(absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message())), op->span);
  }
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status Interpreter::Compare(const BinaryNode* op, CompareOp kind, Value* out) {
  Value a, b;
  KILN_INTERP_TRY(Operands(op, &a, &b));
  size_t n = std::max(a.lanes.size(), b.lanes.size());
  Value r;
  r.dtype = DataType::Bool(static_cast<int>(n));
  r.lanes.resize(n);
  for (size_t i = 0; i < n; ++i) r.lanes[i].i = interp::CompareLane(kind, a.dtype, At(a, i), At(b, i)) ? 1 : 0;
  *out = std::move(r);
  return absl::OkStatus();
}

// Scalar and/or short-circuit (the spec's rule); vectors combine lane by lane.
absl::Status Interpreter::Logical(const BinaryNode* op, bool is_and, Value* out) {
  Value a;
  KILN_INTERP_TRY(Eval(op->a, &a));
  if (a.lanes.size() == 1 && (a.AsInt() != 0) != is_and) {
    *out = Value::Bool(!is_and);
    out->dtype = op->dtype;
    return absl::OkStatus();
  }
  Value b;
  KILN_INTERP_TRY(Eval(op->b, &b));
  size_t n = std::max(a.lanes.size(), b.lanes.size());
  Value r;
  r.dtype = op->dtype;
  r.lanes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    bool x = At(a, i).i != 0, y = At(b, i).i != 0;
    r.lanes[i].i = (is_and ? (x && y) : (x || y)) ? 1 : 0;
  }
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const NotNode* op, Value* out) {
  KILN_INTERP_TRY(Eval(op->a, out));
  for (Lane& l : out->lanes) l.i = l.i != 0 ? 0 : 1;
  out->dtype = op->dtype;
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const SelectNode* op, Value* out) {
  Value c, t, f;
  KILN_INTERP_TRY(Eval(op->condition, &c));
  KILN_INTERP_TRY(Eval(op->true_value, &t));
  KILN_INTERP_TRY(Eval(op->false_value, &f));
  size_t n = std::max(t.lanes.size(), f.lanes.size());
  Value r;
  r.dtype = op->dtype;
  r.lanes.resize(n);
  for (size_t i = 0; i < n; ++i) r.lanes[i] = At(c, i).i != 0 ? At(t, i) : At(f, i);
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const RampNode* op, Value* out) {
  Value base, stride;
  KILN_INTERP_TRY(Eval(op->base, &base));
  KILN_INTERP_TRY(Eval(op->stride, &stride));
  Value r;
  r.dtype = op->dtype;
  r.lanes.resize(op->lanes);
  Lane cur = base.lanes[0];
  for (int i = 0; i < op->lanes; ++i) {
    r.lanes[i] = cur;
    KILN_INTERP_TRY(interp::ArithLane(ArithOp::kAdd, base.dtype, cur, stride.lanes[0], &cur));
  }
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const BroadcastNode* op, Value* out) {
  Value v;
  KILN_INTERP_TRY(Eval(op->value, &v));
  out->dtype = op->dtype;
  out->lanes.assign(op->lanes, v.lanes[0]);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const ShuffleNode* op, Value* out) {
  std::vector<Lane> all;
  for (const PrimExpr& e : op->vectors) {
    Value v;
    KILN_INTERP_TRY(Eval(e, &v));
    all.insert(all.end(), v.lanes.begin(), v.lanes.end());
  }
  Value r;
  r.dtype = op->dtype;
  for (const PrimExpr& e : op->indices) {
    int64_t k;
    KILN_INTERP_TRY(EvalInt(e, &k));
    if (k < 0 || k >= static_cast<int64_t>(all.size())) {
      return absl::OutOfRangeError(absl::StrCat(frame_->func, ": shuffle index ", k, " is not in [0, ", all.size(), ")"));
    }
    r.lanes.push_back(all[k]);
  }
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const LetNode* op, Value* out) {
  Value v;
  KILN_INTERP_TRY(Eval(op->value, &v));
  std::optional<Value> old = BindVar(op->var.get(), std::move(v));
  absl::Status st = Eval(op->body, out);
  RestoreVar(op->var.get(), std::move(old));
  return st;
}

absl::Status Interpreter::VisitExpr_(const BufferLoadNode* op, Value* out) {
  absl::InlinedVector<Value, 4> indices;
  KILN_INTERP_TRY(EvalIndices(op->indices, &indices));
  Value mask;
  if (op->predicate.defined()) KILN_INTERP_TRY(Eval(op->predicate, &mask));
  BufferView scratch;
  const BufferView* view;
  KILN_INTERP_TRY(GetView(op->buffer, &scratch, &view));
  size_t index_lanes = indices.empty() ? 1 : indices.back().lanes.size();
  DataType elem = view->dtype.element_of();
  size_t w = static_cast<size_t>(std::max(1, view->dtype.lanes()));
  int64_t elem_size = elem.bytes();
  out->dtype = op->dtype;
  out->lanes.resize(index_lanes * w);
  for (size_t j = 0; j < index_lanes; ++j) {
    if (op->predicate.defined() && At(mask, j).i == 0) {
      for (size_t k = 0; k < w; ++k) out->lanes[j * w + k].i = 0;
      continue;
    }
    char* p;
    KILN_INTERP_TRY(ElementAddress(op->buffer, *view, indices, j, op->span, &p));
    for (size_t k = 0; k < w; ++k) out->lanes[j * w + k] = interp::LoadLane(p + k * elem_size, elem);
  }
  return absl::OkStatus();
}

absl::Status Interpreter::VisitExpr_(const CallNode* op, Value* out) {
  if (const auto* gv = op->op.as<GlobalVarNode>()) return CallFunction(gv->name, op, out);
  std::string name = OpName(op);
  const Array<PrimExpr>& args = op->args;
  auto need = [&](size_t n) -> absl::Status {
    if (args.size() >= n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.", name, " needs ", n, " arguments"));
  };
  if (name == "if_then_else") {  // lazy: only the taken branch runs
    KILN_INTERP_TRY(need(3));
    Value c;
    KILN_INTERP_TRY(Eval(args[0], &c));
    if (c.lanes.size() == 1) return Eval(c.AsInt() != 0 ? args[1] : args[2], out);
    Value t, f;
    KILN_INTERP_TRY(Eval(args[1], &t));
    KILN_INTERP_TRY(Eval(args[2], &f));
    out->dtype = op->dtype;
    out->lanes.resize(c.lanes.size());
    for (size_t i = 0; i < c.lanes.size(); ++i) out->lanes[i] = c.lanes[i].i != 0 ? At(t, i) : At(f, i);
    return absl::OkStatus();
  }
  if (name == "check_failure") {  // checked mode's failed check: its message, formatted
    std::string message;
    for (const PrimExpr& part : args) {
      if (const auto* s = part.as<StringImmNode>()) {
        message += s->value;
        continue;
      }
      Value v;
      KILN_INTERP_TRY(Eval(part, &v));
      absl::StrAppend(&message, part.dtype().is_uint() ? absl::StrCat(static_cast<uint64_t>(v.AsInt()))
                                                       : absl::StrCat(v.AsInt()));
    }
    return absl::OutOfRangeError(message);
  }
  if (name == "ret") {
    KILN_INTERP_TRY(need(1));
    KILN_INTERP_TRY(Eval(args[0], out));
    frame_->returned = true;
    frame_->ret = *out;
    return absl::OkStatus();
  }
  if (name == "assume") {
    // A promise the compiler may rely on: a false one makes the program's meaning undefined.
    KILN_INTERP_TRY(need(1));
    bool holds;
    KILN_INTERP_TRY(EvalBool(args[0], &holds));
    if (!holds) return absl::OutOfRangeError(absl::StrCat(frame_->func, ": undefined behaviour: T.assume failed"));
    *out = Value::Bool(true);
    return absl::OkStatus();
  }
  if (name == "call_extern" || name == "call_pure_extern") {
    KILN_INTERP_TRY(need(1));
    const auto* callee = args[0].as<StringImmNode>();
    if (callee == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.", name, " needs the callee's name first"));
    }
    std::vector<Value> values(args.size() - 1);
    for (size_t i = 1; i < args.size(); ++i) KILN_INTERP_TRY(Eval(args[i], &values[i - 1]));
    absl::Status st = interp::EvalExternCall(callee->value, op->dtype, values, out);
    if (!st.ok()) return absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
    return absl::OkStatus();
  }
  if (name == "tvm_call_packed" && options_.call_packed) {
    KILN_INTERP_TRY(need(1));
    const auto* callee = args[0].as<StringImmNode>();
    if (callee == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.call_packed needs the callee's name first"));
    }
    std::vector<KilnAny> packed(args.size() - 1);
    for (size_t i = 1; i < args.size(); ++i) {
      Value v;
      KILN_INTERP_TRY(Eval(args[i], &v));
      KilnAny& a = packed[i - 1];
      a = KilnAny{};
      DataType t = args[i].dtype();
      if (t.is_handle()) {
        a.type_index = kKilnOpaquePtr, a.v_ptr = v.AsPointer();
      } else if (t.is_floating()) {
        a.type_index = kKilnFloat, a.v_float64 = v.AsFloat();
      } else {
        a.type_index = t.is_bool() ? kKilnBool : kKilnInt, a.v_int64 = v.AsInt();
      }
    }
    absl::Status st = options_.call_packed(callee->value, packed);
    if (!st.ok()) return absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
    *out = Value::Int(DataType::Int(32), 0);
    return absl::OkStatus();
  }
  if (name == "address_of") {
    KILN_INTERP_TRY(need(1));
    const auto* load = args[0].as<BufferLoadNode>();
    if (load == nullptr) return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.address_of needs a buffer element"));
    absl::InlinedVector<Value, 4> indices;
    KILN_INTERP_TRY(EvalIndices(load->indices, &indices));
    BufferView scratch;
    const BufferView* view;
    KILN_INTERP_TRY(GetView(load->buffer, &scratch, &view));
    int64_t flat = view->elem_offset;
    for (size_t d = 0; d < indices.size() && d < view->strides.size(); ++d) flat += indices[d].AsInt() * view->strides[d];
    *out = Value::Handle(view->data + flat * view->elem_bytes);
    return absl::OkStatus();
  }
  // A handle `args[data_i]` moved by `args[data_i + 1]` units of `unit_bytes`.
  auto offset_handle = [&](size_t data_i, int64_t unit_bytes) -> absl::Status {
    Value data;
    int64_t offset;
    KILN_INTERP_TRY(Eval(args[data_i], &data));
    KILN_INTERP_TRY(EvalInt(args[data_i + 1], &offset));
    *out = Value::Handle(static_cast<char*>(data.AsPointer()) + offset * unit_bytes);
    return absl::OkStatus();
  };
  if (name == "tvm_access_ptr") {  // (type_annotation(dtype), data, offset, extent, rw_mask)
    KILN_INTERP_TRY(need(3));
    return offset_handle(1, std::max(1, args[0].dtype().bytes()));
  }
  if (name == "handle_add_byte_offset") {
    KILN_INTERP_TRY(need(2));
    return offset_handle(0, 1);
  }
  if (name == "isnullptr") {
    KILN_INTERP_TRY(need(1));
    Value h;
    KILN_INTERP_TRY(Eval(args[0], &h));
    *out = Value::Bool(h.AsInt() == 0);
    return absl::OkStatus();
  }
  if (name == "type_annotation") {  // only a dtype carrier
    *out = Value::Int(DataType::Int(32), 0);
    out->dtype = op->dtype;
    return absl::OkStatus();
  }
  if (name == "tvm_storage_sync" || name == "start_profile_intrinsic" || name == "end_profile_intrinsic" ||
      name == "prefetch") {
    // No effect on one serial thread; barriers between threads are handled where threads run.
    *out = Value::Int(DataType::Int(32), 0);
    if (!op->dtype.is_void()) *out = Value::Int(op->dtype.is_handle() ? DataType::Int(64) : op->dtype, 0);
    out->dtype = op->dtype;
    return absl::OkStatus();
  }
  std::vector<Value> values(args.size());
  for (size_t i = 0; i < args.size(); ++i) KILN_INTERP_TRY(Eval(args[i], &values[i]));
  KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
  absl::Status st = interp::EvalPureIntrinsic(name, op->dtype, values, out);
  if (st.ok()) return st;
  if (!absl::IsNotFound(st)) {
    st = absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
    return name == "shift_left" || name == "shift_right" ? Located(st, op->span) : st;
  }
  const auto* o = op->op.as<OpNode>();
  std::string full = o ? o->name : "<unknown op>";
  if (IntrinsicRegistry::Global().FindByName(full) != nullptr) {
    return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter does not support intrinsic ", full));
  }
  return absl::UnimplementedError(absl::StrCat(frame_->func, ": unknown intrinsic ", full));
}

}  // namespace kiln::tir::interp_internal
