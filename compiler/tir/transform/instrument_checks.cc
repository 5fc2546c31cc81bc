// InstrumentChecks: checked mode (`kiln build/run --checked`, BuildOptions::checked), TVM's
// tir.instrument_bound_checkers and more. Compiled kernels otherwise do what C does with a bad
// index or divisor: read or write someone else's memory, or raise SIGFPE. In checked mode every
// statement is preceded by checks for the faults the reference interpreter (compiler/tir/interp)
// detects in the expressions it evaluates: `if not ok: T.check_failure(parts...)`, whose message
// is the interpreter's for the same fault, with the same run-time values and source location
// (the span of the access, division, shift or call, else of its statement):
//
//   buffer access B[i, j]   per dimension d: 0 <= index < B.shape[d] (a Ramp index: its first and
//                           last lane; a Broadcast: its value)
//       "f: out-of-bounds access B[3, 16]: index 16 of dimension 1 is not in [0, 16) (at k.py:7:20)"
//   integer a / b, a % b, floordiv, floormod: b != 0
//       "f: int32 division by zero (at k.py:9:16)"
//   signed a / b, floordiv(a, b): not (a == INT_MIN and b == -1)
//       "f: undefined behaviour: int32 division overflow (-2147483648 / -1) (at ...)"
//   T.shift_left / T.shift_right(x, s): 0 <= s < bits(x)
//       "f: undefined behaviour: T.shift_left of int32 by 40 bits (at ...)"
//   a call to another PrimFunc: the call depth < 64, the interpreter's limit (kMaxCallDepth), so
//   unbounded recursion is an error, not a stack overflow
//       "f: calls nest deeper than 64 (at ...)"
//
// The backends format the values into the message when a check fails (the kernel ABI's
// kKilnErrorMessageOwned, runtime/kernel_abi.h). One difference remains: for a vector (Ramp)
// index the message shows the lane checked (the first or the last), where the interpreter shows
// the first lane out of bounds. Checks respect evaluation order and laziness: those of the index
// expressions of a load come before the load's own check; the arms of T.if_then_else and the
// right operand of && / || are checked only when the program evaluates them (the check sits under
// the same condition); a While condition is checked before every evaluation. A check the
// arithmetic analyzer proves (loop variables bound to their ranges) is dropped, which is what
// keeps the overhead low on loops over constant shapes. Not checked: accesses inside a Let
// expression's body (the Let binds a variable the check cannot see), vector indices other than
// Ramp and Broadcast, and operands that call another PrimFunc or contain a Let (a check evaluates
// its operand again: side effects would repeat, a Let would define its variable twice).
//
// The call depth travels as an extra trailing int32 parameter of every internal (non-exported)
// PrimFunc; an exported one starts at 0. Run on every PrimFunc of the module right after
// LowerSBlocks, while accesses still have their N-D indices and buffers their declared shapes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// The reference interpreter's limit (compiler/tir/interp/interpreter.h: kMaxCallDepth).
constexpr int kMaxCheckedCallDepth = 64;
constexpr char kDepthParam[] = "checked_call_depth";

struct Check {
  std::vector<PrimExpr> guards;  // evaluated only when all hold (nested ifs keep them lazy)
  PrimExpr condition;
  Array<PrimExpr> message;  // T.check_failure's arguments: strings and integer values
};

// Builds a message from string parts and values, merging adjacent strings.
class Message {
 public:
  Message& operator<<(const std::string& s) {
    text_ += s;
    return *this;
  }
  Message& operator<<(const PrimExpr& v) {
    if (const auto* imm = v.as<IntImmNode>()) return *this << absl::StrCat(imm->value);
    Flush();
    parts_.push_back(v);
    return *this;
  }
  Array<PrimExpr> Take() {
    Flush();
    return std::move(parts_);
  }

 private:
  void Flush() {
    if (!text_.empty()) parts_.push_back(StringImm(text_));
    text_.clear();
  }
  std::string text_;
  Array<PrimExpr> parts_;
};

// Whether a check may evaluate `e` a second time: not when it calls another PrimFunc (side
// effects would repeat) or binds a variable with a Let (the copy would define it twice).
bool Duplicable(const PrimExpr& e) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const CallNode* op) override {
      if (op->op.as<GlobalVarNode>() != nullptr) found = true;
      StmtExprVisitor::VisitExpr_(op);
    }
    void VisitExpr_(const LetNode* op) override { found = true; }
  } finder;
  finder.VisitExpr(e);
  return !finder.found;
}

std::string OpName(const CallNode* op) {
  const auto* o = op->op.as<OpNode>();
  return o != nullptr ? o->name : "";
}

// The checks of the expressions one statement evaluates, in evaluation order.
class CheckCollector : public StmtExprVisitor {
 public:
  CheckCollector(const std::string& func, arith::Analyzer* analyzer, PrimExpr depth, Span stmt_span)
      : func_(func), analyzer_(analyzer), depth_(std::move(depth)), stmt_span_(std::move(stmt_span)) {}

  std::vector<Check> Take() { return std::move(checks_); }

  // The bounds of a store to `buffer` at `indices`, after its operands' own checks.
  void StoreBounds(const Buffer& buffer, const Array<PrimExpr>& indices, const Span& span) {
    Bounds(buffer, indices, span);
  }

 protected:
  using StmtExprVisitor::VisitExpr_;

  void VisitExpr_(const BufferLoadNode* op) override {
    StmtExprVisitor::VisitExpr_(op);  // nested loads in the indices come first
    Bounds(op->buffer, op->indices, op->span);
  }

  void VisitExpr_(const LetNode* op) override { VisitExpr(op->value); }  // see the header comment

  void VisitExpr_(const AndNode* op) override { Lazy(op->a, op->a, op->b); }
  void VisitExpr_(const OrNode* op) override { Lazy(op->a, Not(op->a), op->b); }

  void VisitExpr_(const DivNode* op) override { Division(op, true); }
  void VisitExpr_(const FloorDivNode* op) override { Division(op, true); }
  void VisitExpr_(const ModNode* op) override { Division(op, false); }
  void VisitExpr_(const FloorModNode* op) override { Division(op, false); }

  void VisitExpr_(const CallNode* op) override {
    std::string name = OpName(op);
    if (name == "tirx.if_then_else" && op->args.size() == 3) {
      VisitExpr(op->args[0]);
      Guarded(op->args[0], op->args[1]);
      Guarded(Not(op->args[0]), op->args[2]);
      return;
    }
    StmtExprVisitor::VisitExpr_(op);
    if ((name == "tirx.shift_left" || name == "tirx.shift_right") && op->args.size() == 2) Shift(op, name.substr(5));
    if (op->op.as<GlobalVarNode>() != nullptr) {
      Message m;
      m << absl::StrCat(func_, ": calls nest deeper than ", kMaxCheckedCallDepth);
      AddCheck(LT(depth_, IntImm(depth_.dtype(), kMaxCheckedCallDepth)), m, op->span);
    }
  }

 private:
  // `rhs` is evaluated only when `when` holds (&&, || and the arms of if_then_else).
  void Lazy(const PrimExpr& lhs, const PrimExpr& when, const PrimExpr& rhs) {
    VisitExpr(lhs);
    if (lhs.dtype().is_scalar()) {
      Guarded(when, rhs);
    } else {
      VisitExpr(rhs);  // vector logic evaluates both sides
    }
  }
  void Guarded(const PrimExpr& when, const PrimExpr& e) {
    guards_.push_back(when);
    VisitExpr(e);
    guards_.pop_back();
  }

  void AddCheck(PrimExpr condition, Message& message, const Span& span) {
    if (analyzer_->CanProve(condition)) return;
    const Span& where = span.defined() ? span : stmt_span_;
    if (where.defined()) message << absl::StrCat(" (at ", where.ToString(), ")");
    checks_.push_back(Check{guards_, std::move(condition), message.Take()});
  }

  void Bounds(const Buffer& buffer, const Array<PrimExpr>& indices, const Span& span) {
    if (indices.size() != buffer->shape.size()) return;  // the verifier's business
    for (size_t d = 0; d < indices.size(); ++d) {
      // A Ramp is linear: its extreme lanes are its first and last.
      std::vector<int> lanes = {0};
      if (const auto* ramp = indices[d].as<RampNode>()) {
        lanes.push_back(ramp->lanes - 1);
      } else if (!indices[d].dtype().is_scalar() && indices[d].as<BroadcastNode>() == nullptr) {
        continue;
      }
      for (int lane : lanes) {
        PrimExpr i = Lane(indices[d], lane);
        if (!Duplicable(i)) continue;
        DataType t = WiderIndexType(i.dtype(), buffer->shape[d].dtype());
        PrimExpr v = CastTo(t, i);
        PrimExpr in_range = LT(v, CastTo(t, buffer->shape[d]));
        if (i.dtype().is_int()) in_range = And(GE(v, IntImm(t, 0)), in_range);
        // As the interpreter: every dimension's index at this lane and the extent, as int64.
        Message m;
        m << absl::StrCat(func_, ": out-of-bounds access ", buffer->name, "[");
        for (size_t k = 0; k < indices.size(); ++k) {
          if (k > 0) m << ", ";
          PrimExpr ik = Lane(indices[k], lane);
          if (ik.defined() && Duplicable(ik)) {
            m << CastTo(DataType::Int(64), ik);
          } else {
            m << arith::ExprToString(indices[k]);
          }
        }
        m << "]: index " << CastTo(DataType::Int(64), i) << absl::StrCat(" of dimension ", d, " is not in [0, ")
          << CastTo(DataType::Int(64), buffer->shape[d]) << ")";
        AddCheck(in_range, m, span);
      }
    }
  }

  // Lane `lane` of a scalar, Ramp or Broadcast index; undefined for other vectors.
  static PrimExpr Lane(const PrimExpr& index, int lane) {
    if (index.dtype().is_scalar()) return index;
    if (const auto* ramp = index.as<RampNode>()) {
      return lane == 0 ? ramp->base : Add(ramp->base, Mul(ramp->stride, IntImm(ramp->stride.dtype(), lane)));
    }
    if (const auto* bc = index.as<BroadcastNode>()) return bc->value;
    return PrimExpr();
  }

  void Division(const BinaryNode* op, bool quotient) {
    VisitExpr(op->a);
    VisitExpr(op->b);
    DataType t = op->dtype;
    if (!t.is_integer() || !t.is_scalar() || !Duplicable(op->a) || !Duplicable(op->b)) return;
    const std::string ty = t.ToString();
    Message zero;
    zero << absl::StrCat(func_, ": ", ty, " division by zero");
    AddCheck(NE(op->b, IntImm(t, 0)), zero, op->span);
    if (!quotient || !t.is_int()) return;  // the remainder of INT_MIN by -1 is defined (0)
    int64_t min_value = t.bits() >= 64 ? INT64_MIN : -(int64_t{1} << (t.bits() - 1));
    Message overflow;
    overflow << absl::StrCat(func_, ": undefined behaviour: ", ty, " division overflow (", min_value, " / -1)");
    AddCheck(Or(NE(op->a, IntImm(t, min_value)), NE(op->b, IntImm(t, -1))), overflow, op->span);
  }

  void Shift(const CallNode* op, const std::string& name) {
    const PrimExpr& s = op->args[1];
    DataType e = op->dtype.element_of();
    if (!s.dtype().is_scalar() || !s.dtype().is_integer() || !e.is_integer() || !Duplicable(s)) return;
    PrimExpr ok = LT(s, IntImm(s.dtype(), e.bits()));
    if (s.dtype().is_int()) ok = And(GE(s, IntImm(s.dtype(), 0)), ok);
    Message m;
    m << absl::StrCat(func_, ": undefined behaviour: T.", name, " of ", e.ToString(), " by ") << s << " bits";
    AddCheck(ok, m, op->span);
  }

  std::string func_;
  arith::Analyzer* analyzer_;
  PrimExpr depth_;
  Span stmt_span_;
  std::vector<PrimExpr> guards_;
  std::vector<Check> checks_;
};

Stmt ToStmt(const Check& c) {
  Stmt s = IfThenElse(Not(c.condition), Evaluate(Call(DataType::Int(32), Op("tirx.check_failure"), c.message)));
  for (auto it = c.guards.rbegin(); it != c.guards.rend(); ++it) s = IfThenElse(*it, s);
  return s;
}

// Prepends to each statement the checks of the expressions it evaluates itself.
class CheckInserter : public StmtExprMutator {
 public:
  CheckInserter(std::string func, PrimExpr depth) : func_(std::move(func)), depth_(std::move(depth)) {}

  Stmt VisitStmt(const Stmt& s) override {
    std::vector<Stmt> checks = ChecksOf(s);
    Stmt inner = StmtExprMutator::VisitStmt(s);
    if (checks.empty()) return inner;
    checks.push_back(inner);
    return SeqStmt(checks);
  }

 protected:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    if (op->loop_var.dtype().is_int() && !op->step.defined()) analyzer_.BindRange(op->loop_var, op->min, op->extent);
    return StmtExprMutator::VisitStmt_(op);
  }

  // The condition runs before every iteration: checked before the loop and at the end of its body.
  Stmt VisitStmt_(const WhileNode* op) override {
    Stmt body = VisitStmt(op->body);
    std::vector<Stmt> again = Checks({op->condition}, op->span);
    if (!again.empty()) {
      again.insert(again.begin(), body);
      body = SeqStmt(again);
    }
    return While(op->condition, body, op->span);
  }

 private:
  std::vector<Stmt> Checks(const std::vector<PrimExpr>& exprs, const Span& span,
                           const BufferStoreNode* store = nullptr) {
    CheckCollector c(func_, &analyzer_, depth_, span);
    for (const PrimExpr& e : exprs) c.VisitExpr(e);
    if (store != nullptr) c.StoreBounds(store->buffer, store->indices, store->span);
    std::vector<Stmt> out;
    for (const Check& check : c.Take()) out.push_back(ToStmt(check));
    return out;
  }

  std::vector<Stmt> ChecksOf(const Stmt& s) {
    if (const auto* op = s.as<BufferStoreNode>()) {
      std::vector<PrimExpr> exprs = {op->value};
      for (const PrimExpr& i : op->indices) exprs.push_back(i);
      return Checks(exprs, op->span, op);
    }
    if (const auto* op = s.as<LetStmtNode>()) return Checks({op->value}, op->span);
    if (const auto* op = s.as<IfThenElseNode>()) return Checks({op->condition}, op->span);
    if (const auto* op = s.as<ForNode>()) return Checks({op->min, op->extent}, op->span);
    if (const auto* op = s.as<WhileNode>()) return Checks({op->condition}, op->span);
    if (const auto* op = s.as<EvaluateNode>()) return Checks({op->value}, op->span);
    if (const auto* op = s.as<AssertStmtNode>()) return Checks({op->condition}, op->span);
    return {};
  }

  std::string func_;
  PrimExpr depth_;
  arith::Analyzer analyzer_;
};

// Every call to another PrimFunc passes the callee its call depth.
class DepthArgs : public StmtExprMutator {
 public:
  explicit DepthArgs(PrimExpr next) : next_(std::move(next)) {}

 protected:
  using StmtExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const CallNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* call = e.as<CallNode>();
    if (call == nullptr || call->op.as<GlobalVarNode>() == nullptr) return e;
    Array<PrimExpr> args = call->args;
    args.push_back(next_);
    return Call(call->dtype, call->op, args, call->span);
  }

 private:
  PrimExpr next_;
};

}  // namespace

absl::StatusOr<PrimFunc> InstrumentChecks(const PrimFunc& f, const std::string& name) {
  bool exported = !f->GetGlobalSymbol().empty();
  Var depth_param(kDepthParam, DataType::Int(32));
  PrimExpr depth = exported ? PrimExpr(IntImm(DataType::Int(32), 0)) : PrimExpr(depth_param);
  Stmt body = CheckInserter(name, depth).VisitStmt(f->body);
  body = DepthArgs(Add(depth, IntImm(DataType::Int(32), 1))).VisitStmt(body);
  PrimFunc out = WithBody(f, body);
  if (!exported) out.CopyOnWrite()->params.push_back(depth_param);
  return out;
}

}  // namespace kiln::tir::transform
