#include "compiler/tir/functor.h"

namespace kiln::ir {

// ---------------- StmtExprVisitor ----------------

void StmtExprVisitor::VisitExpr(const PrimExpr& e) { ExprFunctor::VisitExpr(e); }
void StmtExprVisitor::VisitStmt(const Stmt& s) { StmtFunctor::VisitStmt(s); }

#define KILN_VISIT_BINARY(T)                           \
  void StmtExprVisitor::VisitExpr_(const T##Node* op) { \
    VisitExpr(op->a);                                  \
    VisitExpr(op->b);                                  \
  }
KILN_VISIT_BINARY(Add) KILN_VISIT_BINARY(Sub) KILN_VISIT_BINARY(Mul) KILN_VISIT_BINARY(Div)
KILN_VISIT_BINARY(Mod) KILN_VISIT_BINARY(FloorDiv) KILN_VISIT_BINARY(FloorMod) KILN_VISIT_BINARY(Min)
KILN_VISIT_BINARY(Max) KILN_VISIT_BINARY(EQ) KILN_VISIT_BINARY(NE) KILN_VISIT_BINARY(LT)
KILN_VISIT_BINARY(LE) KILN_VISIT_BINARY(GT) KILN_VISIT_BINARY(GE) KILN_VISIT_BINARY(And)
KILN_VISIT_BINARY(Or)
#undef KILN_VISIT_BINARY

void StmtExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void StmtExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void StmtExprVisitor::VisitExpr_(const BufferLoadNode* op) {
  for (const PrimExpr& i : op->indices) VisitExpr(i);
  if (op->predicate.defined()) VisitExpr(op->predicate);
}
void StmtExprVisitor::VisitExpr_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void StmtExprVisitor::VisitExpr_(const BroadcastNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitExpr_(const ShuffleNode* op) {
  for (const PrimExpr& v : op->vectors) VisitExpr(v);
  for (const PrimExpr& i : op->indices) VisitExpr(i);
}
void StmtExprVisitor::VisitExpr_(const LetNode* op) {
  VisitExpr(op->value);
  VisitExpr(op->body);
}
void StmtExprVisitor::VisitExpr_(const CallNode* op) {
  for (const PrimExpr& a : op->args) VisitExpr(a);
}

void StmtExprVisitor::VisitStmt_(const LetStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const AttrStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const AssertStmtNode* op) {
  VisitExpr(op->condition);
  if (op->body.defined()) VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const BufferStoreNode* op) {
  VisitExpr(op->value);
  for (const PrimExpr& i : op->indices) VisitExpr(i);
  if (op->predicate.defined()) VisitExpr(op->predicate);
}
void StmtExprVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  if (op->step.defined()) VisitExpr(op->step);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const WhileNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  if (op->else_case.defined()) VisitStmt(op->else_case);
}
void StmtExprVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}
void StmtExprVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitStmt_(const AllocBufferNode* op) {
  VisitBufferDef(op->buffer);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const DeclBufferNode* op) {
  VisitBufferDef(op->buffer);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const SBlockNode* op) {
  for (const IterVar& iv : op->iter_vars) {
    if (iv->dom.defined()) {
      VisitExpr(iv->dom->min);
      VisitExpr(iv->dom->extent);
    }
  }
  for (const Buffer& b : op->alloc_buffers) VisitBufferDef(b);
  for (const MatchBufferRegion& m : op->match_buffers) {
    for (const Range& r : m->source->region) {
      VisitExpr(r->min);
      VisitExpr(r->extent);
    }
    VisitBufferDef(m->buffer);
  }
  for (const auto& regions : {op->reads, op->writes}) {
    for (const BufferRegion& br : regions) {
      for (const Range& r : br->region) {
        VisitExpr(r->min);
        VisitExpr(r->extent);
      }
    }
  }
  if (op->init.defined()) VisitStmt(op->init);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const SBlockRealizeNode* op) {
  for (const PrimExpr& v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}
void StmtExprVisitor::VisitStmt_(const ScopeIdDefStmtNode* op) {
  for (const PrimExpr& e : op->extents) VisitExpr(e);
  for (const PrimExpr& e : op->preferred_extents) VisitExpr(e);
  VisitStmt(op->body);
}

void StmtExprVisitor::VisitStmt_(const TilePrimitiveCallNode* op) {
  for (const ObjectRef& a : op->args) {
    if (const auto* br = a.as<BufferRegionNode>()) {
      for (const Range& r : br->region) {
        VisitExpr(r->min);
        VisitExpr(r->extent);
      }
    } else if (a.as<PrimExprNode>()) {
      VisitExpr(Downcast<PrimExpr>(a));
    } else if (a.as<StmtNode>()) {  // compose_op's operands are the calls it composes
      VisitStmt(Downcast<Stmt>(a));
    }
  }
}

// ---------------- StmtExprMutator ----------------

PrimExpr StmtExprMutator::VisitExprDefault_(const Object* op) {
  return PrimExpr(ObjectPtr<Object>(const_cast<Object*>(op)));
}
Stmt StmtExprMutator::VisitStmtDefault_(const Object* op) {
  return Stmt(ObjectPtr<Object>(const_cast<Object*>(op)));
}

Array<PrimExpr> StmtExprMutator::VisitExprs(const Array<PrimExpr>& arr) {
  Array<PrimExpr> out = arr;
  for (size_t i = 0; i < arr.size(); ++i) {
    PrimExpr e = VisitExpr(arr[i]);
    if (!e.same_as(arr[i])) out.Set(i, e);
  }
  return out;
}
Range StmtExprMutator::VisitRange(const Range& r) {
  PrimExpr min = VisitExpr(r->min);
  PrimExpr extent = VisitExpr(r->extent);
  if (min.same_as(r->min) && extent.same_as(r->extent)) return r;
  return Range(min, extent, r->span);
}
BufferRegion StmtExprMutator::VisitBufferRegion(const BufferRegion& br) {
  Array<Range> region = br->region;
  for (size_t i = 0; i < region.size(); ++i) {
    Range r = VisitRange(region[i]);
    if (!r.same_as(region[i])) region.Set(i, r);
  }
  if (region.same_as(br->region)) return br;
  return BufferRegion(br->buffer, region);
}

#define KILN_MUTATE_BINARY(T)                                       \
  PrimExpr StmtExprMutator::VisitExpr_(const T##Node* op) {         \
    PrimExpr a = VisitExpr(op->a);                                  \
    PrimExpr b = VisitExpr(op->b);                                  \
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op); \
    auto n = CloneNode(*op);                                        \
    n->a = std::move(a);                                            \
    n->b = std::move(b);                                            \
    return PrimExpr(ObjectPtr<Object>(std::move(n)));                \
  }
KILN_MUTATE_BINARY(Add) KILN_MUTATE_BINARY(Sub) KILN_MUTATE_BINARY(Mul) KILN_MUTATE_BINARY(Div)
KILN_MUTATE_BINARY(Mod) KILN_MUTATE_BINARY(FloorDiv) KILN_MUTATE_BINARY(FloorMod) KILN_MUTATE_BINARY(Min)
KILN_MUTATE_BINARY(Max) KILN_MUTATE_BINARY(EQ) KILN_MUTATE_BINARY(NE) KILN_MUTATE_BINARY(LT)
KILN_MUTATE_BINARY(LE) KILN_MUTATE_BINARY(GT) KILN_MUTATE_BINARY(GE) KILN_MUTATE_BINARY(And)
KILN_MUTATE_BINARY(Or)
#undef KILN_MUTATE_BINARY

namespace {
// Clones `op` and lets `edit` change the copy.
template <typename Node, typename Ref, typename F>
Ref Rebuild(const Node* op, F&& edit) {
  auto n = CloneNode(*op);
  edit(n.get());
  return Ref(ObjectPtr<Object>(std::move(n)));
}
}  // namespace

PrimExpr StmtExprMutator::VisitExpr_(const CastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Rebuild<CastNode, PrimExpr>(op, [&](CastNode* n) { n->value = v; });
}
PrimExpr StmtExprMutator::VisitExpr_(const NotNode* op) {
  PrimExpr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return GetRef<PrimExpr>(op);
  return Rebuild<NotNode, PrimExpr>(op, [&](NotNode* n) { n->a = a; });
}
PrimExpr StmtExprMutator::VisitExpr_(const SelectNode* op) {
  PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return GetRef<PrimExpr>(op);
  }
  return Rebuild<SelectNode, PrimExpr>(op, [&](SelectNode* n) {
    n->condition = c;
    n->true_value = t;
    n->false_value = f;
  });
}
PrimExpr StmtExprMutator::VisitExpr_(const BufferLoadNode* op) {
  Array<PrimExpr> idx = VisitExprs(op->indices);
  PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
  if (idx.same_as(op->indices) && pred.same_as(op->predicate)) return GetRef<PrimExpr>(op);
  return Rebuild<BufferLoadNode, PrimExpr>(op, [&](BufferLoadNode* n) {
    n->indices = idx;
    n->predicate = pred;
  });
}
PrimExpr StmtExprMutator::VisitExpr_(const RampNode* op) {
  PrimExpr b = VisitExpr(op->base), s = VisitExpr(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return GetRef<PrimExpr>(op);
  return Rebuild<RampNode, PrimExpr>(op, [&](RampNode* n) {
    n->base = b;
    n->stride = s;
  });
}
PrimExpr StmtExprMutator::VisitExpr_(const BroadcastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Rebuild<BroadcastNode, PrimExpr>(op, [&](BroadcastNode* n) { n->value = v; });
}
PrimExpr StmtExprMutator::VisitExpr_(const ShuffleNode* op) {
  Array<PrimExpr> vs = VisitExprs(op->vectors), is = VisitExprs(op->indices);
  if (vs.same_as(op->vectors) && is.same_as(op->indices)) return GetRef<PrimExpr>(op);
  return Rebuild<ShuffleNode, PrimExpr>(op, [&](ShuffleNode* n) {
    n->vectors = vs;
    n->indices = is;
  });
}
PrimExpr StmtExprMutator::VisitExpr_(const LetNode* op) {
  PrimExpr v = VisitExpr(op->value), b = VisitExpr(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<PrimExpr>(op);
  return Rebuild<LetNode, PrimExpr>(op, [&](LetNode* n) {
    n->value = v;
    n->body = b;
    n->dtype = b.dtype();
  });
}
PrimExpr StmtExprMutator::VisitExpr_(const CallNode* op) {
  Array<PrimExpr> args = VisitExprs(op->args);
  if (args.same_as(op->args)) return GetRef<PrimExpr>(op);
  return Rebuild<CallNode, PrimExpr>(op, [&](CallNode* n) { n->args = args; });
}

Stmt StmtExprMutator::VisitStmt_(const LetStmtNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<LetStmtNode, Stmt>(op, [&](LetStmtNode* n) {
    n->value = v;
    n->body = b;
  });
}
Stmt StmtExprMutator::VisitStmt_(const AttrStmtNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<AttrStmtNode, Stmt>(op, [&](AttrStmtNode* n) {
    n->value = v;
    n->body = b;
  });
}
Stmt StmtExprMutator::VisitStmt_(const AssertStmtNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt b = op->body.defined() ? VisitStmt(op->body) : op->body;
  if (c.same_as(op->condition) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<AssertStmtNode, Stmt>(op, [&](AssertStmtNode* n) {
    n->condition = c;
    n->body = b;
  });
}
Stmt StmtExprMutator::VisitStmt_(const BufferStoreNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Array<PrimExpr> idx = VisitExprs(op->indices);
  PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
  if (v.same_as(op->value) && idx.same_as(op->indices) && pred.same_as(op->predicate)) return GetRef<Stmt>(op);
  return Rebuild<BufferStoreNode, Stmt>(op, [&](BufferStoreNode* n) {
    n->value = v;
    n->indices = idx;
    n->predicate = pred;
  });
}
Stmt StmtExprMutator::VisitStmt_(const ForNode* op) {
  PrimExpr mn = VisitExpr(op->min), ex = VisitExpr(op->extent);
  PrimExpr st = op->step.defined() ? VisitExpr(op->step) : op->step;
  Stmt b = VisitStmt(op->body);
  if (mn.same_as(op->min) && ex.same_as(op->extent) && st.same_as(op->step) && b.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  return Rebuild<ForNode, Stmt>(op, [&](ForNode* n) {
    n->min = mn;
    n->extent = ex;
    n->step = st;
    n->body = b;
  });
}
Stmt StmtExprMutator::VisitStmt_(const WhileNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt b = VisitStmt(op->body);
  if (c.same_as(op->condition) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<WhileNode, Stmt>(op, [&](WhileNode* n) {
    n->condition = c;
    n->body = b;
  });
}
Stmt StmtExprMutator::VisitStmt_(const IfThenElseNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case);
  Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : op->else_case;
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return GetRef<Stmt>(op);
  return Rebuild<IfThenElseNode, Stmt>(op, [&](IfThenElseNode* n) {
    n->condition = c;
    n->then_case = t;
    n->else_case = e;
  });
}
Stmt StmtExprMutator::VisitStmt_(const SeqStmtNode* op) {
  Array<Stmt> seq = op->seq;
  for (size_t i = 0; i < seq.size(); ++i) {
    Stmt s = VisitStmt(seq[i]);
    if (!s.same_as(seq[i])) seq.Set(i, s);
  }
  if (seq.same_as(op->seq)) return GetRef<Stmt>(op);
  return Rebuild<SeqStmtNode, Stmt>(op, [&](SeqStmtNode* n) { n->seq = seq; });
}
Stmt StmtExprMutator::VisitStmt_(const EvaluateNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<Stmt>(op);
  return Rebuild<EvaluateNode, Stmt>(op, [&](EvaluateNode* n) { n->value = v; });
}
Stmt StmtExprMutator::VisitStmt_(const AllocBufferNode* op) {
  Stmt b = VisitStmt(op->body);
  if (b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<AllocBufferNode, Stmt>(op, [&](AllocBufferNode* n) { n->body = b; });
}
Stmt StmtExprMutator::VisitStmt_(const DeclBufferNode* op) {
  Stmt b = VisitStmt(op->body);
  if (b.same_as(op->body)) return GetRef<Stmt>(op);
  return Rebuild<DeclBufferNode, Stmt>(op, [&](DeclBufferNode* n) { n->body = b; });
}
Stmt StmtExprMutator::VisitStmt_(const SBlockNode* op) {
  Array<BufferRegion> reads = op->reads, writes = op->writes;
  for (size_t i = 0; i < reads.size(); ++i) {
    BufferRegion r = VisitBufferRegion(reads[i]);
    if (!r.same_as(reads[i])) reads.Set(i, r);
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    BufferRegion w = VisitBufferRegion(writes[i]);
    if (!w.same_as(writes[i])) writes.Set(i, w);
  }
  Stmt init = op->init.defined() ? VisitStmt(op->init) : op->init;
  Stmt body = VisitStmt(op->body);
  if (reads.same_as(op->reads) && writes.same_as(op->writes) && init.same_as(op->init) &&
      body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  return Rebuild<SBlockNode, Stmt>(op, [&](SBlockNode* n) {
    n->reads = reads;
    n->writes = writes;
    n->init = init;
    n->body = body;
  });
}
Stmt StmtExprMutator::VisitStmt_(const SBlockRealizeNode* op) {
  Array<PrimExpr> vals = VisitExprs(op->iter_values);
  PrimExpr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  if (vals.same_as(op->iter_values) && pred.same_as(op->predicate) && block.same_as(op->block)) {
    return GetRef<Stmt>(op);
  }
  return Rebuild<SBlockRealizeNode, Stmt>(op, [&](SBlockRealizeNode* n) {
    n->iter_values = vals;
    n->predicate = pred;
    n->block = Downcast<SBlock>(block);
  });
}
Stmt StmtExprMutator::VisitStmt_(const ScopeIdDefStmtNode* op) {
  Array<PrimExpr> extents = VisitExprs(op->extents);
  Array<PrimExpr> preferred = VisitExprs(op->preferred_extents);
  Stmt body = VisitStmt(op->body);
  if (extents.same_as(op->extents) && preferred.same_as(op->preferred_extents) && body.same_as(op->body)) {
    return GetRef<Stmt>(op);
  }
  return Rebuild<ScopeIdDefStmtNode, Stmt>(op, [&](ScopeIdDefStmtNode* n) {
    n->extents = extents;
    n->preferred_extents = preferred;
    n->body = body;
  });
}

Stmt StmtExprMutator::VisitStmt_(const TilePrimitiveCallNode* op) {
  Array<ObjectRef> args = op->args;
  for (size_t i = 0; i < args.size(); ++i) {
    ObjectRef a = args[i];
    if (a.as<BufferRegionNode>()) {
      a = VisitBufferRegion(Downcast<BufferRegion>(a));
    } else if (a.as<PrimExprNode>()) {
      a = VisitExpr(Downcast<PrimExpr>(a));
    } else if (a.as<StmtNode>()) {
      a = VisitStmt(Downcast<Stmt>(a));
    }
    if (!a.same_as(args[i])) args.Set(i, a);
  }
  if (args.same_as(op->args)) return GetRef<Stmt>(op);
  return Rebuild<TilePrimitiveCallNode, Stmt>(op, [&](TilePrimitiveCallNode* n) { n->args = args; });
}

}  // namespace kiln::ir
