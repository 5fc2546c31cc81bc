// LoopPartition: splits a loop whose body tests `T.likely(cond)` on the loop variable into up to
// three loops over consecutive sub-ranges: a prologue, a middle range where every such condition
// is provably true (there it is replaced by `true`, so the guard and its test disappear after
// Simplify), and an epilogue that keeps the conditions. `likely` is how a schedule marks a guard
// that is true on almost every iteration (the bounds check of a non-divisible tile): the middle
// loop is the guard-free fast path (vectorizable when its body is), the epilogue the tail.
//
// As TVM's LoopPartition with its default configuration (partition_const_loop = false), only loops
// with a non-constant min or extent are candidates (a constant loop can be handled by unrolling or
// is expected to have been tiled exactly), and only conditions inside `likely`. Afterwards every
// `likely` wrapper is removed (it is only a hint).
//
// Deducing the middle range. A condition a < b (<=, >, >= alike) is rewritten as
// k * v + R >= 0 (v the loop variable, k a non-zero constant, R free of v). Loop variables of
// inner loops enclosing the condition are relaxed to the end of their range that makes R
// smallest, so the condition holds for every inner iteration. That gives v >= ceil(-R / k)
// (k > 0) or v <= floor(R / -k) (k < 0); the middle range is the intersection over all
// conditions, clamped to the loop's range. Conditions that are not of this form (loads, lets
// defined in the loop, non-linear uses, inner loops whose range depends on v) are left alone.
//
// Wrap-around: the deduction is done on exact integers. The bounds are computed in int64 (exact
// for int32 conditions; for int64 ones the analyzer must prove they do not wrap), and a condition
// is only removed when both of its sides provably do not wrap anywhere in the middle range (so
// the program's wrapped comparison is the exact one). Pieces are empty when the loop is.
#include <optional>
#include <unordered_set>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

bool IsLikely(const CallNode* c) {
  const auto* o = c->op.as<OpNode>();
  return o != nullptr && o->name == "tirx.likely" && c->args.size() == 1;
}

class VarUse : public StmtExprVisitor {
 public:
  explicit VarUse(const std::unordered_set<const VarNode*>& vars) : vars_(vars) {}
  bool found = false;
  void VisitExpr_(const VarNode* op) override { found |= vars_.count(op) > 0; }

 private:
  const std::unordered_set<const VarNode*>& vars_;
};
bool Uses(const PrimExpr& e, const std::unordered_set<const VarNode*>& vars) {
  if (!e.defined()) return false;
  VarUse u(vars);
  u.VisitExpr(e);
  return u.found;
}

struct InnerLoop {
  Var var;
  PrimExpr min, extent;
};

// A likely condition on the loop variable, with the inner loops around it.
struct Candidate {
  PrimExpr cond;
  std::vector<InnerLoop> inner;
  bool usable;  // no variable defined inside the loop other than relaxable loop vars
};

class CondCollector : public StmtExprVisitor {
 public:
  explicit CondCollector(const Var& v) { loop_var_.insert(v.get()); }
  std::vector<Candidate> found;

 private:
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    bool relaxable = !op->step.defined() || (op->step.as<IntImmNode>() && op->step.as<IntImmNode>()->value == 1);
    relaxable &= !Uses(op->min, local_) && !Uses(op->extent, local_) && !Uses(op->min, loop_var_) &&
                 !Uses(op->extent, loop_var_);
    if (relaxable) {
      inner_.push_back({op->loop_var, op->min, op->extent});
    } else {
      local_.insert(op->loop_var.get());
    }
    VisitStmt(op->body);
    if (relaxable) inner_.pop_back();
  }
  void VisitStmt_(const LetStmtNode* op) override {
    local_.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    local_.insert(op->var.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const CallNode* op) override {
    if (IsLikely(op) && Uses(op->args[0], loop_var_)) {
      found.push_back({op->args[0], inner_, !Uses(op->args[0], local_)});
    }
    StmtExprVisitor::VisitExpr_(op);
  }

  std::unordered_set<const VarNode*> loop_var_, local_;
  std::vector<InnerLoop> inner_;
};

// Replaces likely(c) by true for the conditions in `conds`.
class CondEliminator : public StmtExprMutator {
 public:
  explicit CondEliminator(const std::vector<PrimExpr>& conds) : conds_(conds) {}

 private:
  PrimExpr VisitExpr_(const CallNode* op) override {
    if (IsLikely(op)) {
      for (const PrimExpr& c : conds_) {
        if (c.same_as(op->args[0])) return IntImm(DataType::Bool(), 1);
      }
    }
    return StmtExprMutator::VisitExpr_(op);
  }
  const std::vector<PrimExpr>& conds_;
};

class LikelyRemover : public StmtExprMutator {
  PrimExpr VisitExpr_(const CallNode* op) override {
    if (IsLikely(op)) return VisitExpr(op->args[0]);
    return StmtExprMutator::VisitExpr_(op);
  }
};

PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

// e's linear skeleton (+, -, *, constants) in int64, other nodes cast: its exact integer value.
PrimExpr Widen(const PrimExpr& e) {
  if (e.dtype() == DataType::Int(64)) return e;
  if (const auto* imm = e.as<IntImmNode>()) return I64(imm->value);
  if (const auto* op = e.as<AddNode>()) return Add(Widen(op->a), Widen(op->b));
  if (const auto* op = e.as<SubNode>()) return Sub(Widen(op->a), Widen(op->b));
  if (const auto* op = e.as<MulNode>()) return Mul(Widen(op->a), Widen(op->b));
  return Cast(DataType::Int(64), e);
}

class Partitioner : public StmtExprMutator {
 private:
  Stmt VisitStmt_(const ForNode* op) override {
    if (op->loop_var.dtype().is_int()) analyzer_.BindRange(op->loop_var, op->min, op->extent);
    if (!skip_.count(op)) {
      Stmt s = TryPartition(op);
      if (s.defined()) return s;
    }
    return WithLoopBody(op, VisitStmt(op->body));
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    if (op->value.dtype().is_int() && op->value.dtype().is_scalar()) {
      analyzer_.BindBound(op->var, analyzer_.GetConstIntBound(op->value));
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  // The bound of v (>= lo or <= hi, int64) under which `cond` holds, if it has the supported form.
  struct Bound {
    PrimExpr lo, hi;  // one of them defined
  };
  std::optional<Bound> Deduce(const Candidate& c, const Var& v) {
    if (!c.cond.as<LTNode>() && !c.cond.as<LENode>() && !c.cond.as<GTNode>() && !c.cond.as<GENode>()) {
      return std::nullopt;
    }
    const auto* bin = static_cast<const BinaryNode*>(c.cond.get());
    if (!bin->a.dtype().is_int() || !bin->a.dtype().is_scalar()) return std::nullopt;
    PrimExpr a = Widen(bin->a), b = Widen(bin->b);
    // An exact integer expression that must be >= 0.
    PrimExpr ge0 = c.cond.as<LTNode>() ? Sub(Sub(b, a), I64(1))
                 : c.cond.as<LENode>() ? Sub(b, a)
                 : c.cond.as<GTNode>() ? Sub(Sub(a, b), I64(1))
                                       : Sub(a, b);
    std::optional<int64_t> k = Coefficient(ge0, v);
    if (!k || *k == 0) return std::nullopt;
    PrimExpr r = analyzer_.Simplify(Substitute(ge0, {{v.get(), IntImm(v.dtype(), 0)}}));
    // Relax the inner loop variables, innermost first (an inner range may use an outer one).
    for (auto it = c.inner.rbegin(); it != c.inner.rend(); ++it) {
      std::optional<int64_t> cu = Coefficient(r, it->var);
      if (!cu) return std::nullopt;
      if (*cu == 0) continue;
      PrimExpr at = *cu > 0 ? it->min : Sub(Add(it->min, it->extent), IntImm(it->extent.dtype(), 1));
      r = analyzer_.Simplify(Substitute(r, {{it->var.get(), at}}));
      // The relaxed value is exact only if the range ends themselves do not wrap.
      if (!analyzer_.CanProveNoWrap(at)) return std::nullopt;
    }
    // k * v + r >= 0.
    Bound out;
    PrimExpr num = *k > 0 ? analyzer_.Simplify(Add(Sub(I64(0), r), I64(*k - 1))) : r;
    if (bin->a.dtype().bits() == 64 && !analyzer_.CanProveNoWrap(num)) return std::nullopt;
    if (*k > 0) {
      out.lo = analyzer_.Simplify(FloorDiv(num, I64(*k)));
    } else {
      out.hi = analyzer_.Simplify(FloorDiv(num, I64(-*k)));
    }
    return out;
  }

  // The constant c with e = c * v + (terms free of v), if e has that form.
  std::optional<int64_t> Coefficient(const PrimExpr& e, const Var& v) {
    if (e.dtype() != DataType::Int(64)) return std::nullopt;
    if (!Uses(e, {v.get()})) return 0;
    PrimExpr one = Substitute(e, {{v.get(), IntImm(v.dtype(), 1)}});
    PrimExpr zero = Substitute(e, {{v.get(), IntImm(v.dtype(), 0)}});
    const auto* c = analyzer_.Simplify(Sub(one, zero)).as<IntImmNode>();
    if (c == nullptr) return std::nullopt;
    PrimExpr rest = analyzer_.Simplify(Sub(e, Mul(Widen(Cast(e.dtype(), v)), IntImm(e.dtype(), c->value))));
    if (Uses(rest, {v.get()})) return std::nullopt;
    return c->value;
  }

  Stmt TryPartition(const ForNode* op) {
    if (op->min.as<IntImmNode>() && op->extent.as<IntImmNode>()) return Stmt();
    if (op->step.defined() && !(op->step.as<IntImmNode>() && op->step.as<IntImmNode>()->value == 1)) return Stmt();
    if (!op->loop_var.dtype().is_int() || op->loop_var.dtype().bits() > 64) return Stmt();
    CondCollector collector(op->loop_var);
    collector.VisitStmt(op->body);
    PrimExpr lo, hi;
    std::vector<Candidate> used;
    for (const Candidate& c : collector.found) {
      if (!c.usable) continue;
      std::optional<Bound> b = Deduce(c, op->loop_var);
      if (!b) continue;
      if (b->lo.defined()) lo = lo.defined() ? Max(lo, b->lo) : b->lo;
      if (b->hi.defined()) hi = hi.defined() ? Min(hi, b->hi) : b->hi;
      used.push_back(c);
    }
    if (used.empty()) return Stmt();
    // The middle range [b, e) within [min, end): b = min(max(lo, min), end), e = max(min(hi + 1, end), b).
    DataType t = op->loop_var.dtype();
    PrimExpr min64 = Widen(op->min), end64 = Add(Widen(op->min), Widen(op->extent));
    if (!analyzer_.CanProveNoWrap(end64)) return Stmt();
    PrimExpr b = lo.defined() ? analyzer_.Simplify(Min(Max(lo, min64), end64)) : analyzer_.Simplify(min64);
    PrimExpr e = hi.defined() ? analyzer_.Simplify(Max(Min(Add(hi, I64(1)), end64), b)) : analyzer_.Simplify(end64);
    if (hi.defined() && !analyzer_.CanProveNoWrap(Add(hi, I64(1)))) return Stmt();
    if (analyzer_.CanProve(GE(b, e))) return Stmt();
    // Every removed condition's sides must evaluate without wrapping in the middle range.
    arith::ConstIntBound bb = analyzer_.GetConstIntBound(b), be = analyzer_.GetConstIntBound(e);
    if (bb.min_value == arith::ConstIntBound::kNegInf || be.max_value == arith::ConstIntBound::kPosInf) return Stmt();
    analyzer_.BindBound(op->loop_var, {bb.min_value, std::max(bb.min_value, be.max_value - 1)});
    std::vector<PrimExpr> conds;
    for (const Candidate& c : used) {
      for (const InnerLoop& l : c.inner) analyzer_.BindRange(l.var, l.min, l.extent);
      const auto* bin = static_cast<const BinaryNode*>(c.cond.get());
      if (!analyzer_.CanProveNoWrap(bin->a) || !analyzer_.CanProveNoWrap(bin->b)) {
        analyzer_.BindRange(op->loop_var, op->min, op->extent);
        return Stmt();
      }
      conds.push_back(c.cond);
    }

    bool pre = !analyzer_.CanProve(EQ(b, min64));
    bool post = !analyzer_.CanProve(EQ(e, end64));
    auto narrow = [&](const PrimExpr& x) { return analyzer_.Simplify(CastTo(t, x)); };
    // The middle loop keeps the loop's own variable (and is partitioned no further on it).
    Stmt mid_body = CondEliminator(conds).VisitStmt(op->body);
    For mid = GetRef<For>(op);
    ForNode* n = mid.CopyOnWrite();
    n->min = narrow(b);
    n->extent = narrow(Sub(e, b));
    n->body = VisitStmt(mid_body);
    std::vector<Stmt> pieces;
    auto piece = [&](const PrimExpr& from, const PrimExpr& to) {
      Var nv = op->loop_var->ty.defined() ? Var(op->loop_var->name, op->loop_var->ty) : Var(op->loop_var->name, t);
      For f = GetRef<For>(op);
      ForNode* fn = f.CopyOnWrite();
      fn->loop_var = nv;
      fn->min = narrow(from);
      fn->extent = narrow(analyzer_.Simplify(Sub(to, from)));
      fn->body = CopyWithFreshDefs(op->body, {{op->loop_var.get(), nv}});
      skip_.insert(f.get());
      keep_.push_back(f);
      pieces.push_back(VisitStmt(f));
    };
    if (pre) piece(min64, b);
    pieces.push_back(mid);
    if (post) piece(e, end64);
    return SeqStmt::Flatten(pieces);
  }

  arith::Analyzer analyzer_;
  std::unordered_set<const ForNode*> skip_;
  std::vector<Stmt> keep_;
};

}  // namespace

PrimFunc LoopPartition(const PrimFunc& f) {
  Partitioner p;
  Stmt body = p.VisitStmt(f->body);
  body = LikelyRemover().VisitStmt(body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
