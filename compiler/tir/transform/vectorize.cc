// VectorizeLoops: `for v in T.vectorized(L)` with a constant extent L (2 <= L <= max_lanes) and
// unit step becomes straight-line vector code: v turns into ramp(min, 1, L), scalar operands are
// broadcast, and every operation works on L lanes. What is vectorizable, conservatively:
//   * the body is a BufferStore or a sequence of them (no loops, ifs, lets or allocations);
//   * every store index is a Ramp after simplification (a contiguous or strided vector store),
//     and so is every load index that depends on v (loads not depending on v stay scalar);
//   * expressions are elementwise: arithmetic, comparisons, logic, min/max, casts, Select, and
//     pure math intrinsics (tirx.exp, ...). tirx.if_then_else, impure calls (call_extern) and
//     calls to other functions are not, since vectorizing would evaluate what the scalar loop
//     might skip or repeat.
// Anything else leaves a serial loop, which is always correct. As in TVM, T.vectorized is the
// author's promise that the lanes are independent; no dependence analysis is done.
// Extent 1 loops become the body with v = min.
#include <optional>
#include <vector>

#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/op.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// Rewrites one expression in terms of the vector loop variable; sets ok_ = false on anything not
// vectorizable. Results are scalar when they do not depend on the loop variable.
class ExprVectorizer : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
  ExprVectorizer(const Var& var, const PrimExpr& min, int lanes, arith::Analyzer* analyzer)
      : var_(var), min_(min), lanes_(lanes), analyzer_(analyzer) {}
  bool ok() const { return ok_; }

  PrimExpr Widen(const PrimExpr& e) { return e.dtype().is_vector() ? e : PrimExpr(Broadcast(e, lanes_)); }

 private:
  PrimExpr VisitExprDefault_(const Object* op) override {
    ok_ = false;
    return GetRef<PrimExpr>(static_cast<const PrimExprNode*>(op));
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == var_.get()) return Ramp(min_, IntImm(var_.dtype(), 1), lanes_);
    return GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override { return GetRef<PrimExpr>(op); }
  PrimExpr VisitExpr_(const IntImmNode* op) override { return GetRef<PrimExpr>(op); }
  PrimExpr VisitExpr_(const FloatImmNode* op) override { return GetRef<PrimExpr>(op); }

  template <typename T>
  PrimExpr Binary(const BinaryNode* op) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.dtype().is_scalar() && b.dtype().is_scalar()) return T(a, b, op->span);
    return analyzer_->Simplify(T(Widen(a), Widen(b), op->span));
  }
  PrimExpr VisitExpr_(const AddNode* op) override { return Binary<Add>(op); }
  PrimExpr VisitExpr_(const SubNode* op) override { return Binary<Sub>(op); }
  PrimExpr VisitExpr_(const MulNode* op) override { return Binary<Mul>(op); }
  PrimExpr VisitExpr_(const DivNode* op) override { return Binary<Div>(op); }
  PrimExpr VisitExpr_(const ModNode* op) override { return Binary<Mod>(op); }
  PrimExpr VisitExpr_(const FloorDivNode* op) override { return Binary<FloorDiv>(op); }
  PrimExpr VisitExpr_(const FloorModNode* op) override { return Binary<FloorMod>(op); }
  PrimExpr VisitExpr_(const MinNode* op) override { return Binary<Min>(op); }
  PrimExpr VisitExpr_(const MaxNode* op) override { return Binary<Max>(op); }
  PrimExpr VisitExpr_(const EQNode* op) override { return Binary<EQ>(op); }
  PrimExpr VisitExpr_(const NENode* op) override { return Binary<NE>(op); }
  PrimExpr VisitExpr_(const LTNode* op) override { return Binary<LT>(op); }
  PrimExpr VisitExpr_(const LENode* op) override { return Binary<LE>(op); }
  PrimExpr VisitExpr_(const GTNode* op) override { return Binary<GT>(op); }
  PrimExpr VisitExpr_(const GENode* op) override { return Binary<GE>(op); }
  PrimExpr VisitExpr_(const AndNode* op) override { return Binary<And>(op); }
  PrimExpr VisitExpr_(const OrNode* op) override { return Binary<Or>(op); }
  PrimExpr VisitExpr_(const NotNode* op) override { return Not(VisitExpr(op->a), op->span); }
  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    return Cast(op->dtype.with_lanes(v.dtype().lanes()), v, op->span);
  }
  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (c.dtype().is_scalar() && t.dtype().is_scalar() && f.dtype().is_scalar()) return Select(c, t, f, op->span);
    return Select(Widen(c), Widen(t), Widen(f), op->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->indices.size() != 1 || op->predicate.defined()) {
      ok_ = false;
      return GetRef<PrimExpr>(op);
    }
    PrimExpr index = analyzer_->Simplify(VisitExpr(op->indices[0]));
    if (index.dtype().is_vector() && index.as<RampNode>() == nullptr) ok_ = false;
    if (index.same_as(op->indices[0])) return GetRef<PrimExpr>(op);
    return BufferLoad(op->buffer, {index}, op->span);
  }
  PrimExpr VisitExpr_(const CallNode* op) override {
    const auto* o = op->op.as<OpNode>();
    const IntrinsicInfo* info = o ? IntrinsicRegistry::Global().FindByName(o->name) : nullptr;
    if (info == nullptr || info->effect != CallEffect::kPure || o->name == "tirx.if_then_else") {
      ok_ = false;
      return GetRef<PrimExpr>(op);
    }
    std::vector<PrimExpr> args;
    bool vector = false;
    for (const PrimExpr& a : op->args) {
      args.push_back(VisitExpr(a));
      vector |= args.back().dtype().is_vector();
    }
    if (!vector) return Call(op->dtype, op->op, args, op->span);
    for (PrimExpr& a : args) a = Widen(a);
    return Call(op->dtype.with_lanes(lanes_), op->op, args, op->span);
  }

  Var var_;
  PrimExpr min_;
  int lanes_;
  arith::Analyzer* analyzer_;
  bool ok_ = true;
};

// The vector form of `body`, or an undefined Stmt if it is not vectorizable.
Stmt VectorizeBody(const Stmt& body, const Var& var, const PrimExpr& min, int lanes) {
  std::vector<Stmt> stores;
  std::vector<Stmt> work = {body};
  while (!work.empty()) {
    Stmt s = work.front();
    work.erase(work.begin());
    if (const auto* seq = s.as<SeqStmtNode>()) {
      std::vector<Stmt> inner = seq->seq.ToVector();
      work.insert(work.begin(), inner.begin(), inner.end());
      continue;
    }
    if (s.as<BufferStoreNode>() == nullptr) return Stmt();
    stores.push_back(s);
  }
  arith::Analyzer analyzer;
  ExprVectorizer vec(var, min, lanes, &analyzer);
  std::vector<Stmt> out;
  for (const Stmt& s : stores) {
    const auto* store = s.as<BufferStoreNode>();
    if (store->indices.size() != 1 || store->predicate.defined()) return Stmt();
    PrimExpr index = analyzer.Simplify(vec.VisitExpr(store->indices[0]));
    PrimExpr value = vec.VisitExpr(store->value);
    if (!vec.ok() || index.as<RampNode>() == nullptr) return Stmt();
    out.push_back(BufferStore(store->buffer, analyzer.Simplify(vec.Widen(value)), {index}, store->span));
  }
  return SeqStmt::Flatten(out);
}

class LoopVectorizer : public StmtExprMutator {
 public:
  explicit LoopVectorizer(int max_lanes) : max_lanes_(max_lanes) {}

 private:
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (op->kind != ForKind::kVectorized) return WithLoopBody(op, body);
    std::optional<int64_t> lanes = ConstUnitStepExtent(op);
    if (lanes && *lanes == 1) {
      VarMap vmap{{op->loop_var.get(), op->min}};
      return Substitute(body, vmap);
    }
    if (lanes && *lanes >= 2 && *lanes <= max_lanes_) {
      Stmt v = VectorizeBody(body, op->loop_var, op->min, static_cast<int>(*lanes));
      if (v.defined()) return v;
    }
    return AsSerialLoop(op, body);
  }

  int max_lanes_;
};

}  // namespace

PrimFunc VectorizeLoops(const PrimFunc& f, int max_lanes) {
  LoopVectorizer v(max_lanes);
  Stmt body = v.VisitStmt(f->body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
