#include "compiler/tir/transform/ir_utils.h"

#include "compiler/tir/functor.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

class Substituter : public StmtExprMutator {
 public:
  Substituter(const VarMap& vmap, bool fresh) : vmap_(vmap), fresh_(fresh) {}

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it != vmap_.end() ? it->second : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override {
    auto it = vmap_.find(op);
    return it != vmap_.end() ? it->second : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Var v = Fresh(op->var);
    PrimExpr body = VisitExpr(op->body);
    if (value.same_as(op->value) && v.same_as(op->var) && body.same_as(op->body)) return GetRef<PrimExpr>(op);
    return Let(v, value, body, op->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    Buffer b = MapBuffer(op->buffer);
    if (b.same_as(op->buffer)) return e;
    BufferLoad load = Downcast<BufferLoad>(e);
    load.CopyOnWrite()->buffer = b;
    return load;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    Buffer b = MapBuffer(op->buffer);
    if (b.same_as(op->buffer)) return s;
    BufferStore store = Downcast<BufferStore>(s);
    store.CopyOnWrite()->buffer = b;
    return store;
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Var v = Fresh(op->var);
    Stmt body = VisitStmt(op->body);
    if (value.same_as(op->value) && v.same_as(op->var) && body.same_as(op->body)) return GetRef<Stmt>(op);
    return LetStmt(v, value, body, op->span);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr mn = VisitExpr(op->min), ext = VisitExpr(op->extent);
    PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
    Var v = Fresh(op->loop_var);
    Stmt body = VisitStmt(op->body);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && step.same_as(op->step) && v.same_as(op->loop_var) &&
        body.same_as(op->body)) {
      return GetRef<Stmt>(op);
    }
    For f = GetRef<For>(op);
    ForNode* n = f.CopyOnWrite();
    n->min = mn;
    n->extent = ext;
    n->step = step;
    n->loop_var = v;
    n->body = body;
    return f;
  }
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    if (fresh_) {
      Buffer nb = WithFlatShape(op->buffer, PrimExpr());
      BufferNode* n = nb.CopyOnWrite();
      n->shape = VisitExprs(op->buffer->shape);
      n->strides = op->buffer->strides;
      n->elem_offset = op->buffer->elem_offset;
      n->data = Var(op->buffer->data->name, op->buffer->data->ty);
      buffers_[op->buffer.get()] = nb;
      vars_keep_.push_back(op->buffer->data);
      vmap_[op->buffer->data.get()] = nb->data;
    }
    Stmt s = StmtExprMutator::VisitStmt_(op);
    Buffer b = MapBuffer(op->buffer);
    if (b.same_as(op->buffer)) return s;
    AllocBuffer a = Downcast<AllocBuffer>(s);
    a.CopyOnWrite()->buffer = b;
    return a;
  }

 private:
  Var Fresh(const Var& v) {
    if (!fresh_) return v;
    Var nv = v->ty.defined() ? Var(v->name, v->ty, v->span) : Var(v->name, v->dtype, v->span);
    vars_keep_.push_back(v);
    vmap_[v.get()] = nv;
    return nv;
  }
  Buffer MapBuffer(const Buffer& b) {
    auto it = buffers_.find(b.get());
    return it != buffers_.end() ? it->second : b;
  }

  VarMap vmap_;
  bool fresh_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
  std::vector<Var> vars_keep_;
};

}  // namespace

PrimExpr Substitute(const PrimExpr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  return Substituter(vmap, false).VisitExpr(e);
}
Stmt Substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return Substituter(vmap, false).VisitStmt(s);
}
Stmt CopyWithFreshDefs(const Stmt& s, const VarMap& vmap) { return Substituter(vmap, true).VisitStmt(s); }

Buffer WithFlatShape(const Buffer& b, PrimExpr extent) {
  auto n = make_object<BufferNode>();
  n->data = b->data;
  n->dtype = b->dtype;
  if (extent.defined()) n->shape = {extent};
  n->name = b->name;
  n->data_alignment = b->data_alignment;
  n->offset_factor = b->offset_factor;
  n->buffer_type = b->buffer_type;
  n->span = b->span;
  return Buffer(ObjectPtr<Object>(std::move(n)));
}

PrimExpr CastTo(DataType t, const PrimExpr& e) {
  DataType target = t.with_lanes(e.dtype().lanes());
  if (e.dtype() == target) return e;
  if (const auto* imm = e.as<IntImmNode>()) {
    if (target.is_int_or_bool()) return IntImm(target, imm->value);
  }
  if (const auto* r = e.as<RampNode>()) {
    return Ramp(CastTo(t.element_of(), r->base), CastTo(t.element_of(), r->stride), r->lanes);
  }
  if (const auto* b = e.as<BroadcastNode>()) return Broadcast(CastTo(t.element_of(), b->value), b->lanes);
  return Cast(target, e);
}

DataType WiderIndexType(DataType a, DataType b) {
  return a.element_of().bits() >= b.element_of().bits() ? a.element_of() : b.element_of();
}

ir::PrimFunc WithBody(const ir::PrimFunc& f, const ir::Stmt& body) {
  if (body.same_as(f->body)) return f;
  ir::PrimFunc out = f;
  out.CopyOnWrite()->body = body;
  return out;
}

ir::Stmt AsSerialLoop(const ir::ForNode* op, const ir::Stmt& body) {
  ir::For f = ir::GetRef<ir::For>(op);
  ir::ForNode* n = f.CopyOnWrite();
  n->kind = ir::ForKind::kSerial;
  n->body = body;
  return f;
}

ir::Stmt WithLoopBody(const ir::ForNode* op, const ir::Stmt& body) {
  if (body.same_as(op->body)) return ir::GetRef<ir::Stmt>(op);
  ir::For f = ir::GetRef<ir::For>(op);
  f.CopyOnWrite()->body = body;
  return f;
}

std::optional<int64_t> ConstUnitStepExtent(const ir::ForNode* op) {
  const auto* ext = op->extent.as<ir::IntImmNode>();
  const auto* step = op->step.defined() ? op->step.as<ir::IntImmNode>() : nullptr;
  bool unit_step = !op->step.defined() || (step && step->value == 1);
  if (!ext || !unit_step) return std::nullopt;
  return ext->value;
}

}  // namespace kiln::tir::transform
