// The interpreter's statements: bindings, asserts, stores, loops, blocks and match_buffer (see
// interpreter.h).
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

absl::Status Interpreter::VisitStmtDefault_(const Object* op, Flow*) {
  return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter cannot execute ", op->type_key()));
}

absl::Status Interpreter::VisitStmt_(const LetStmtNode* op, Flow* flow) {
  Value v;
  KILN_INTERP_TRY(Eval(op->value, &v));
  std::optional<Value> old = BindVar(op->var.get(), std::move(v));
  absl::Status st = Exec(op->body, flow);
  RestoreVar(op->var.get(), std::move(old));
  return st;
}

absl::Status Interpreter::VisitStmt_(const AttrStmtNode* op, Flow* flow) {
  if ((op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") && op->node.as<IterVarNode>()) {
    const auto* iv = op->node.as<IterVarNode>();
    int64_t extent;
    KILN_INTERP_TRY(EvalInt(op->value, &extent));
    return RunThreads(op, iv->var, 0, extent, iv->thread_tag, op->body, flow);
  }
  return Exec(op->body, flow);
}

absl::Status Interpreter::VisitStmt_(const AssertStmtNode* op, Flow* flow) {
  bool ok;
  KILN_INTERP_TRY(EvalBool(op->condition, &ok));
  if (!ok) {
    std::string message;
    for (const String& part : op->message_parts) message += part.str();
    return absl::InvalidArgumentError(absl::StrCat(op->error_kind, ": ", message));
  }
  if (op->body.defined()) return Exec(op->body, flow);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const BufferStoreNode* op, Flow*) {
  Value value;
  KILN_INTERP_TRY(Eval(op->value, &value));
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
  if (value.lanes.size() != index_lanes * w && value.lanes.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": storing ", value.dtype.ToString(), " into ",
                                                   index_lanes, " elements of ", op->buffer->name));
  }
  if (value.dtype != DataType(elem.code(), elem.bits(), value.dtype.lanes())) {
    KILN_INTERP_TRY(interp::CastValue(value, elem.with_lanes(value.dtype.lanes()), &value));
  }
  int64_t elem_size = elem.bytes();
  for (size_t j = 0; j < index_lanes; ++j) {
    if (op->predicate.defined() && At(mask, j).i == 0) continue;
    char* p;
    KILN_INTERP_TRY(ElementAddress(op->buffer, *view, indices, j, op->span, &p));
    for (size_t k = 0; k < w; ++k) interp::StoreLane(p + k * elem_size, elem, At(value, j * w + k));
  }
  return absl::OkStatus();
}

// Runs `body` for var = min, min + step, ... below min + extent; loop kinds differ only in how a
// compiler may schedule the iterations.
absl::Status Interpreter::Loop(const VarNode* var, int64_t min, int64_t extent, int64_t step, const Stmt& body,
                               Flow* flow) {
  std::optional<Value> old = BindVar(var, Value::Int(var->dtype, min));
  absl::Status st;
  for (int64_t k = 0; extent > 0 && k < (extent + step - 1) / step; ++k) {
    frame_->vars[var] = Value::Int(var->dtype, min + k * step);
    st = Exec(body, flow);
    if (!st.ok() || *flow == Flow::kReturn) break;
    if (*flow == Flow::kBreak) {
      *flow = Flow::kNormal;
      break;
    }
    *flow = Flow::kNormal;
  }
  RestoreVar(var, std::move(old));
  return st;
}

absl::Status Interpreter::VisitStmt_(const ForNode* op, Flow* flow) {
  int64_t min, extent, step = 1;
  KILN_INTERP_TRY(EvalInt(op->min, &min));
  KILN_INTERP_TRY(EvalInt(op->extent, &extent));
  if (op->step.defined()) KILN_INTERP_TRY(EvalInt(op->step, &step));
  if (step <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": loop over ", op->loop_var->name,
                                                   " has a non-positive step ", step));
  }
  if (op->kind == ForKind::kThreadBinding) {
    std::string tag = op->thread_binding.defined() ? op->thread_binding->thread_tag : "";
    if (step == 1) return RunThreads(op, op->loop_var, min, extent, tag, op->body, flow);
  }
  return Loop(op->loop_var.get(), min, extent, step, op->body, flow);
}

absl::Status Interpreter::VisitStmt_(const WhileNode* op, Flow* flow) {
  while (true) {
    bool go;
    KILN_INTERP_TRY(EvalBool(op->condition, &go));
    if (!go) break;
    KILN_INTERP_TRY(Exec(op->body, flow));
    if (*flow == Flow::kReturn) return absl::OkStatus();
    if (*flow == Flow::kBreak) break;
  }
  *flow = Flow::kNormal;
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const BreakNode*, Flow* flow) {
  *flow = Flow::kBreak;
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const ContinueNode*, Flow* flow) {
  *flow = Flow::kContinue;
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const IfThenElseNode* op, Flow* flow) {
  bool c;
  KILN_INTERP_TRY(EvalBool(op->condition, &c));
  if (c) return Exec(op->then_case, flow);
  if (op->else_case.defined()) return Exec(op->else_case, flow);
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const SeqStmtNode* op, Flow* flow) {
  for (const Stmt& s : op->seq) {
    KILN_INTERP_TRY(Exec(s, flow));
    if (*flow != Flow::kNormal) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status Interpreter::VisitStmt_(const EvaluateNode* op, Flow*) {
  Value v;
  return Eval(op->value, &v);
}

absl::Status Interpreter::VisitStmt_(const AllocBufferNode* op, Flow* flow) {
  ScopeBindings scope;
  KILN_INTERP_TRY(Allocate(op->buffer, &scope));
  absl::Status st = Exec(op->body, flow);
  Unwind(&scope);
  return st;
}

absl::Status Interpreter::VisitStmt_(const DeclBufferNode* op, Flow* flow) {
  ScopeBindings scope;
  const Buffer& b = op->buffer;
  // Fresh layout variables of the declaration take the compact layout at offset 0.
  if (b->elem_offset.defined()) {
    if (const auto* v = b->elem_offset.as<VarNode>(); v && !IsBound(v)) BindScopedVar(&scope, v, Value::Int(v->dtype, 0));
  }
  BufferView view;
  KILN_INTERP_TRY(ComputeView(b, &view));
  BindScopedView(&scope, b.get(), std::move(view));
  absl::Status st = Exec(op->body, flow);
  Unwind(&scope);
  return st;
}

absl::Status Interpreter::VisitStmt_(const SBlockRealizeNode* op, Flow* flow) {
  const SBlockNode* block = op->block.get();
  if (op->iter_values.size() != block->iter_vars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": block ", block->name, " has ",
                                                   block->iter_vars.size(), " iter_vars but ",
                                                   op->iter_values.size(), " values"));
  }
  std::vector<Value> values(op->iter_values.size());
  for (size_t i = 0; i < values.size(); ++i) KILN_INTERP_TRY(Eval(op->iter_values[i], &values[i]));
  if (op->predicate.defined()) {
    bool run;
    KILN_INTERP_TRY(EvalBool(op->predicate, &run));
    if (!run) return absl::OkStatus();
  }
  ScopeBindings scope;
  for (size_t i = 0; i < values.size(); ++i) BindScopedVar(&scope, block->iter_vars[i]->var.get(), std::move(values[i]));
  absl::Status st = ExecBlock(block, flow);
  Unwind(&scope);
  return st;
}

absl::Status Interpreter::ExecBlock(const SBlockNode* block, Flow* flow) {
  ScopeBindings scope;
  absl::Status st = ExecBlockIn(block, &scope, flow);
  Unwind(&scope);
  return st;
}

absl::Status Interpreter::ExecBlockIn(const SBlockNode* block, ScopeBindings* scope, Flow* flow) {
  for (const Buffer& b : block->alloc_buffers) KILN_INTERP_TRY(Allocate(b, scope));
  for (const MatchBufferRegion& m : block->match_buffers) KILN_INTERP_TRY(MatchBuffer(m, scope));
  if (block->init.defined()) {
    // The first iteration of a reduction: every reduce iter_var at the start of its domain.
    bool first = true;
    for (const IterVar& iv : block->iter_vars) {
      if (iv->iter_type != IterVarType::kCommReduce) continue;
      int64_t min = 0, value;
      if (iv->dom.defined()) KILN_INTERP_TRY(EvalInt(iv->dom->min, &min));
      KILN_INTERP_TRY(EvalInt(iv->var, &value));
      first = first && value == min;
    }
    if (first) {
      KILN_INTERP_TRY(Exec(block->init, flow));
      if (*flow != Flow::kNormal) return absl::OkStatus();
    }
  }
  return Exec(block->body, flow);
}

// A block's match_buffer: a view into the source region (the spec's aliasing rule), with the
// view's symbolic shape, strides and elem_offset bound from the region and the source layout.
absl::Status Interpreter::MatchBuffer(const MatchBufferRegion& m, ScopeBindings* scope) {
  const Buffer& b = m->buffer;
  const Buffer& src = m->source->buffer;
  BufferView scratch;
  const BufferView* sv;
  KILN_INTERP_TRY(GetView(src, &scratch, &sv));
  BufferView source = *sv;
  const Array<Range>& region = m->source->region;
  if (region.size() != source.shape.size() || b->shape.size() > region.size()) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", b->name, " has ", b->shape.size(),
                                                   " dimensions, its source region ", region.size()));
  }
  if (b->dtype != source.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", b->name, " is ",
                                                   b->dtype.ToString(), " but its source is ", source.dtype.ToString()));
  }
  size_t offset = region.size() - b->shape.size();
  BufferView view;
  view.data = source.data;
  view.dtype = source.dtype;
  view.elem_bytes = source.elem_bytes;
  view.elem_offset = source.elem_offset;
  for (size_t k = 0; k < region.size(); ++k) {
    int64_t min, extent;
    KILN_INTERP_TRY(EvalInt(region[k]->min, &min));
    KILN_INTERP_TRY(EvalInt(region[k]->extent, &extent));
    if (min < 0 || extent < 0 || min + extent > source.shape[k]) {
      return absl::OutOfRangeError(absl::StrCat(frame_->func, ": match_buffer ", b->name, ": region [", min, ", ",
                                                min + extent, ") of dimension ", k, " of ", src->name,
                                                " is not in [0, ", source.shape[k], ")"));
    }
    if (k < offset && extent != 1) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", b->name, ": dropped dimension ",
                                                     k, " of the region has extent ", extent, ", not 1"));
    }
    view.elem_offset += min * source.strides[k];
    if (k >= offset) {
      std::string label = absl::StrCat(b->name, ".shape[", k - offset, "]");
      KILN_INTERP_TRY(MatchField(b->shape[k - offset], extent, label, scope));
      view.shape.push_back(extent);
      view.strides.push_back(source.strides[k]);
    }
  }
  if (!b->strides.empty()) {
    if (b->strides.size() != view.strides.size()) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", b->name, " declares ",
                                                     b->strides.size(), " strides for ", view.strides.size(),
                                                     " dimensions"));
    }
    for (size_t k = 0; k < view.strides.size(); ++k) {
      KILN_INTERP_TRY(MatchField(b->strides[k], view.strides[k], absl::StrCat(b->name, ".strides[", k, "]"), scope));
    }
  } else if (view.strides != CompactStrides(view.shape)) {
    int64_t lo, hi;
    bool reaches = Span(view.shape, view.strides, &lo, &hi);
    // A region with at most one element per dimension beyond the first is still compact.
    if (reaches && Product(view.shape) > 1) {
      std::vector<int64_t> shape_no_ones, strides_no_ones;
      for (size_t k = 0; k < view.shape.size(); ++k) {
        if (view.shape[k] != 1) {
          shape_no_ones.push_back(view.shape[k]);
          strides_no_ones.push_back(view.strides[k]);
        }
      }
      if (strides_no_ones != CompactStrides(shape_no_ones)) {
        return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", b->name,
                                                       " declares no strides but its region of ", src->name,
                                                       " is not contiguous"));
      }
    }
  }
  if (b->elem_offset.defined()) {
    KILN_INTERP_TRY(MatchField(b->elem_offset, view.elem_offset, b->name + ".elem_offset", scope));
  }
  BindScopedVar(scope, b->data.get(), Value::Handle(view.data));
  BindScopedView(scope, b.get(), std::move(view));
  return absl::OkStatus();
}

absl::Status Interpreter::MatchField(const PrimExpr& field, int64_t actual, const std::string& label,
                                     ScopeBindings* scope) {
  if (const auto* v = field.as<VarNode>(); v && !IsBound(v)) {
    BindScopedVar(scope, v, Value::Int(v->dtype, actual));
    return absl::OkStatus();
  }
  int64_t value;
  KILN_INTERP_TRY(EvalInt(field, &value));
  if (value == actual) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": match_buffer ", label, " is ", value,
                                                 " but the matched region gives ", actual));
}

}  // namespace kiln::tir::interp_internal
