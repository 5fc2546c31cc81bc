// Finds the first scalable vector construct of a PrimFunc (see scalable_vectors.h).
#include "compiler/tir/analysis/scalable_vectors.h"

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only

bool IsVScaleCall(const PrimExpr& e) {
  const auto* call = e.as<CallNode>();
  const auto* op = call ? call->op.as<OpNode>() : nullptr;
  return op != nullptr && op->name == "tirx.vscale";
}

// What the message calls the construct, as a script writes it.
std::string Describe(const PrimExpr& e) {
  if (IsVScaleCall(e)) return "T.vscale()";
  std::string what;
  if (const auto* r = e.as<RampNode>()) {
    what = absl::StrCat("T.Ramp(..., T.vscale() * ", -r->lanes, ")");
  } else if (const auto* b = e.as<BroadcastNode>()) {
    what = absl::StrCat("T.Broadcast(..., T.vscale() * ", -b->lanes, ")");
  } else if (const auto* l = e.as<BufferLoadNode>()) {
    what = absl::StrCat("a load of ", l->buffer->name);
  } else if (const auto* c = e.as<CallNode>()) {
    const auto* op = c->op.as<OpNode>();
    what = op ? absl::StrCat("a call of ", op->name) : "a call";
  } else {
    what = "an expression";
  }
  return absl::StrCat(what, " (", e.dtype().ToString(), ")");
}

class Finder : public StmtExprVisitor {
 public:
  std::string found;  // the description of the first construct met; empty when none
  Span where;         // its span, else the innermost enclosing statement's that has one

  void VisitExpr(const PrimExpr& e) override {
    if (!found.empty()) return;
    if (e.dtype().is_scalable_vector() || IsVScaleCall(e)) {
      found = Describe(e);
      if (e->span.defined()) where = e->span;
      return;
    }
    StmtExprVisitor::VisitExpr(e);
  }
  void VisitStmt(const Stmt& s) override {
    if (!found.empty()) return;
    Span outer = where;
    if (s->span.defined()) where = s->span;
    StmtExprVisitor::VisitStmt(s);
    if (found.empty()) where = outer;
  }
  void VisitBufferDef(const Buffer& b) override { CheckBuffer(b); }
  void CheckBuffer(const Buffer& b) {
    if (found.empty() && b->dtype.is_scalable_vector()) {
      found = absl::StrCat("buffer ", b->name, " of ", b->dtype.ToString());
      if (b->span.defined()) where = b->span;
    }
  }
};

}  // namespace

absl::Status RejectScalableVectors(const PrimFunc& func, const std::string& name, const std::string& stage) {
  Finder f;
  for (const Var& p : func->params) {
    if (f.found.empty() && p.dtype().is_scalable_vector()) {
      f.found = absl::StrCat("parameter ", p->name, " (", p.dtype().ToString(), ")");
      f.where = p->span;
    }
  }
  for (const auto& [param, buffer] : func->buffer_map.items()) f.CheckBuffer(buffer);
  if (f.found.empty() && func->body.defined()) f.VisitStmt(func->body);
  if (f.found.empty()) return absl::OkStatus();
  std::string at = f.where.defined() ? absl::StrCat(" at ", f.where.ToString()) : "";
  return absl::UnimplementedError(absl::StrCat(stage, " does not support scalable vectors: ", f.found,
                                               " in function '", name, "'", at));
}

absl::Status RejectScalableVectors(const IRModule& module, const std::string& stage) {
  for (const auto& [gv, func] : module.Functions()) {
    if (func.as<PrimFuncNode>() != nullptr) {
      absl::Status st = RejectScalableVectors(Downcast<PrimFunc>(func), gv->name, stage);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::Status RejectScalableVectors(const std::vector<PrimFunc>& kernels, const std::string& stage) {
  for (const PrimFunc& f : kernels) {
    absl::Status st = RejectScalableVectors(f, f->GetGlobalSymbol(), stage);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace kiln::tir
