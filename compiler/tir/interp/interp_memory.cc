// The interpreter's buffer views (layout of a buffer in memory), scoped bindings and allocations
// (see interpreter.h).
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

std::optional<BufferView> Interpreter::BindView(const BufferNode* b, BufferView view) {
  return Rebind(&frame_->buffers, b, std::move(view));
}

void Interpreter::BindScopedVar(ScopeBindings* s, const VarNode* v, Value value) {
  s->vars.emplace_back(v, BindVar(v, std::move(value)));
}

void Interpreter::BindScopedView(ScopeBindings* s, const BufferNode* b, BufferView view) {
  s->views.emplace_back(b, BindView(b, std::move(view)));
}

void Interpreter::Unwind(ScopeBindings* s) {
  for (size_t i = s->views.size(); i-- > 0;) RestoreView(s->views[i].first, std::move(s->views[i].second));
  for (size_t i = s->vars.size(); i-- > 0;) RestoreVar(s->vars[i].first, std::move(s->vars[i].second));
  s->allocations.clear();
}

// The layout of `b` from its own fields, evaluated now: for buffers not declared by a statement
// this run has seen.
absl::Status Interpreter::ComputeView(const Buffer& b, BufferView* view) {
  auto data = frame_->vars.find(b->data.get());
  if (data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": buffer ", b->name, " has no storage here"));
  }
  view->data = static_cast<char*>(data->second.AsPointer());
  view->dtype = b->dtype;
  view->elem_bytes = b->dtype.StorageBytes();
  view->shape.clear();
  for (const PrimExpr& e : b->shape) {
    int64_t d;
    KILN_INTERP_TRY(EvalInt(e, &d));
    view->shape.push_back(d);
  }
  if (b->strides.empty()) {
    view->strides = CompactStrides(view->shape);
  } else {
    view->strides.clear();
    for (const PrimExpr& e : b->strides) {
      int64_t s;
      KILN_INTERP_TRY(EvalInt(e, &s));
      view->strides.push_back(s);
    }
  }
  view->elem_offset = 0;
  if (b->elem_offset.defined()) KILN_INTERP_TRY(EvalInt(b->elem_offset, &view->elem_offset));
  return absl::OkStatus();
}

// The view of `b`; `scratch` holds it when no statement declared b.
absl::Status Interpreter::GetView(const Buffer& b, BufferView* scratch, const BufferView** view) {
  auto it = frame_->buffers.find(b.get());
  if (it != nullptr) {
    *view = &it->second;
    return absl::OkStatus();
  }
  KILN_INTERP_TRY(ComputeView(b, scratch));
  *view = scratch;
  return absl::OkStatus();
}

absl::Status Interpreter::EvalIndices(const Array<PrimExpr>& exprs, absl::InlinedVector<Value, 4>* out) {
  out->resize(exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    KILN_INTERP_TRY(Eval(exprs[i], &(*out)[i]));
    if (!(*out)[i].dtype.is_int_or_bool()) {
      return absl::InvalidArgumentError(
          absl::StrCat(frame_->func, ": buffer index of type ", (*out)[i].dtype.ToString()));
    }
    if (i + 1 < exprs.size() && (*out)[i].lanes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": only the last buffer index may be a vector"));
    }
  }
  return absl::OkStatus();
}

// A fresh zero-filled buffer for `b` (AllocBuffer, SBlock alloc_buffers).
absl::Status Interpreter::Allocate(const Buffer& b, ScopeBindings* scope) {
  KILN_INTERP_TRY(interp::CheckSupported(b->dtype));
  BufferView view;
  view.dtype = b->dtype;
  view.elem_bytes = b->dtype.StorageBytes();
  for (const PrimExpr& e : b->shape) {
    int64_t d;
    KILN_INTERP_TRY(EvalInt(e, &d));
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": buffer ", b->name, " has a negative extent ", d));
    }
    view.shape.push_back(d);
  }
  if (b->strides.empty()) {
    view.strides = CompactStrides(view.shape);
  } else {
    for (const PrimExpr& e : b->strides) {
      int64_t s;
      KILN_INTERP_TRY(EvalInt(e, &s));
      view.strides.push_back(s);
    }
  }
  if (b->elem_offset.defined()) {
    if (const auto* v = b->elem_offset.as<VarNode>(); v && !IsBound(v)) {
      BindScopedVar(scope, v, Value::Int(v->dtype, 0));
    } else {
      KILN_INTERP_TRY(EvalInt(b->elem_offset, &view.elem_offset));
    }
  }
  int64_t lo, hi;
  int64_t elements = Span(view.shape, view.strides, &lo, &hi) ? hi + 1 + view.elem_offset : 0;
  if (lo + view.elem_offset < 0) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": buffer ", b->name, " reaches below its storage"));
  }
  // Checked in double so that an absurd shape cannot overflow the byte count.
  double bytes = static_cast<double>(elements) * static_cast<double>(view.elem_bytes);
  if (bytes + static_cast<double>(allocated_bytes_) > static_cast<double>(options_.max_alloc_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(frame_->func, ": allocating ", b->name, " (", bytes,
                                                     " bytes) exceeds max_alloc_bytes (", options_.max_alloc_bytes, ")"));
  }
  auto alloc = std::make_unique<Allocation>(&memory_, &allocated_bytes_, elements * view.elem_bytes);
  view.data = alloc->data();
  scope->allocations.push_back(std::move(alloc));
  BindScopedVar(scope, b->data.get(), Value::Handle(view.data));
  BindScopedView(scope, b.get(), std::move(view));
  return absl::OkStatus();
}

}  // namespace kiln::tir::interp_internal
