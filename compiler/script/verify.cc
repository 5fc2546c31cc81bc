// Buildability checks (see verify.h): one walk per PrimFunc keeping the enclosing spans, plus the
// names of the exported symbols.
#include "compiler/script/verify.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"

namespace kiln::script {
namespace {

using namespace ir;  // NOLINT

// A symbol the backends can export: printable ASCII without spaces, quotes or backslashes (the C
// backend quotes it for the assembler; TVM's symbols like `fused_kernel[` or `0main` stay valid).
bool IsValidSymbol(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c <= ' ' || c > '~' || c == '"' || c == '\\') return false;
  }
  return true;
}

// The smallest value of a signed integer dtype.
int64_t MinOf(DataType t) {
  return t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1));
}

// An integer constant, also broadcast to every lane.
const IntImmNode* ConstInt(const PrimExpr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return b->value.as<IntImmNode>();
  return e.as<IntImmNode>();
}

// Two parameters of one name: the printer renamed the second (A_1) and the body's uses went to it,
// while Python itself rejects such a definition.
void CheckParamNames(const Array<Var>& params, DiagnosticList* diags) {
  std::set<std::string> names;
  for (const Var& p : params) {
    if (!names.insert(p->name).second) diags->Error(p->span, absl::StrCat("duplicate parameter name ", p->name));
  }
}

class FuncChecker : public StmtExprVisitor {
 public:
  FuncChecker(const PrimFuncNode* f, DiagnosticList* diags) : f_(f), diags_(diags) {}

  void Run() {
    spans_.push_back(f_->span);
    CheckParamNames(f_->params, diags_);
    for (const Var& p : f_->params) CheckLanes(p->dtype, p->span);
    for (const auto& [param, buffer] : f_->buffer_map.items()) CheckBuffer(buffer);
    if (f_->body.defined()) VisitStmt(f_->body);
  }

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) return;
    bool push = e->span.defined();
    if (push) spans_.push_back(e->span);
    ExprFunctor::VisitExpr(e);
    if (push) spans_.pop_back();
  }
  void VisitStmt(const Stmt& s) override {
    if (!s.defined()) return;
    bool push = s->span.defined();
    if (push) spans_.push_back(s->span);
    StmtFunctor::VisitStmt(s);
    if (push) spans_.pop_back();
  }

 protected:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void Error(const Span& span, std::string msg) {
    if (span.defined()) {
      diags_->Error(span, std::move(msg));
      return;
    }
    for (auto it = spans_.rbegin(); it != spans_.rend(); ++it) {
      if (it->defined()) {
        diags_->Error(*it, std::move(msg));
        return;
      }
    }
    diags_->Error(span, std::move(msg));
  }

  // One lanes error per function: a too-wide vector makes every expression around it as wide.
  void ReportLanes(int64_t lanes, const Span& span) {
    if (lanes_reported_) return;
    lanes_reported_ = true;
    Error(span, lanes > 0 ? absl::StrCat("a vector of ", lanes, " lanes is wider than kiln's limit of ",
                                         kMaxVectorLanes, " lanes")
                          : absl::StrCat("a vector type of 0 lanes (more than 65535 lanes wrap to 0); kiln's "
                                         "limit is ", kMaxVectorLanes, " lanes"));
  }
  void CheckLanes(DataType t, const Span& span) {
    if (!t.is_void() && (t.lanes() == 0 || t.lanes() > kMaxVectorLanes)) ReportLanes(t.lanes(), span);
  }

  void CheckBuffer(const Buffer& b) {
    if (!b.defined()) return;
    CheckLanes(b->dtype, b->span);
    const int64_t rank = static_cast<int64_t>(b->shape.size());
    if (rank > kMaxBufferRank) {
      Error(b->span, absl::StrCat("buffer ", b->name, " has ", rank, " dimensions; kiln's limit is ", kMaxBufferRank));
      return;
    }
    for (int64_t k = 0; k < rank; ++k) {
      const auto* imm = b->shape[k].as<IntImmNode>();
      if (imm != nullptr && imm->value < 0) {
        Error(b->span, absl::StrCat("buffer ", b->name, " has a negative extent ", imm->value, " in dimension ", k));
        return;
      }
    }
    // An allocation too large for its index dtype is accepted here, as TVM's parser accepts it;
    // lowering refuses it (tir/analysis/allocation_size.h).
  }

  void VisitExpr_(const RampNode* op) override {
    if (op->lanes > kMaxVectorLanes) ReportLanes(op->lanes, op->span);
    CheckLanes(op->dtype, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const BroadcastNode* op) override {
    if (op->lanes > kMaxVectorLanes) ReportLanes(op->lanes, op->span);
    CheckLanes(op->dtype, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const VarNode* op) override { CheckLanes(op->dtype, op->span); }
  void VisitExpr_(const CastNode* op) override {
    CheckLanes(op->dtype, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    CheckAccessLanes(op->buffer, op->indices, op->span);
    CheckLanes(op->dtype, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    CheckAccessLanes(op->buffer, op->indices, op->span);
    StmtExprVisitor::VisitStmt_(op);
  }
  // A vector index into a vector buffer multiplies the lanes; a product past the 16-bit lane field
  // would wrap (to 0, or to what reads as a scalable vector), so it is checked before it is used.
  void CheckAccessLanes(const Buffer& b, const Array<PrimExpr>& indices, const Span& span) {
    if (indices.empty() || !b.defined()) return;
    DataType bt = b->dtype, it = indices.back().dtype();
    if (bt.is_scalable_vector() || it.is_scalable_vector()) return;
    int64_t lanes = int64_t{bt.lanes()} * it.lanes();
    if (lanes > kMaxVectorLanes) ReportLanes(lanes, span);
  }
  void VisitExpr_(const ShuffleNode* op) override {
    CheckLanes(op->dtype, op->span);
    StmtExprVisitor::VisitExpr_(op);
  }

  // Integer division and modulo by constants: a zero divisor has no result, and neither has the
  // quotient INT_MIN / -1; both trap at run time.
  void CheckDivision(const BinaryNode* op, const char* sym, bool quotient) {
    const IntImmNode* b = ConstInt(op->b);
    DataType t = op->a.dtype();
    if (b != nullptr && t.is_integer()) {
      const IntImmNode* a = ConstInt(op->a);
      if (b->value == 0) {
        Error(op->span, absl::StrCat("division by zero (", sym, " by the constant 0)"));
      } else if (quotient && a != nullptr && t.is_int() && b->value == -1 && a->value == MinOf(t)) {
        Error(op->span, absl::StrCat("integer overflow: ", a->value, " ", sym, " -1 does not fit in ", t.ToString(),
                                     " (the division traps at run time)"));
      }
    }
  }
  void VisitExpr_(const DivNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    CheckDivision(op, "/", true);
  }
  void VisitExpr_(const FloorDivNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    CheckDivision(op, "//", true);
  }
  void VisitExpr_(const ModNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    CheckDivision(op, "%", false);
  }
  void VisitExpr_(const FloorModNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    CheckDivision(op, "%", false);
  }

  void VisitExpr_(const CallNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    const auto* o = op->op.as<OpNode>();
    if (o == nullptr || op->args.size() != 2 || (o->name != "tirx.shift_left" && o->name != "tirx.shift_right")) {
      return;
    }
    const IntImmNode* amount = ConstInt(op->args[1]);
    DataType t = op->args[0].dtype();
    if (amount != nullptr && t.is_integer() && (amount->value < 0 || amount->value >= t.bits())) {
      Error(op->span, absl::StrCat("shift by ", amount->value, " is out of range for ", t.ToString(), " (0 to ",
                                   t.bits() - 1, "); the result is undefined"));
    }
  }

  void VisitStmt_(const AllocBufferNode* op) override {
    CheckBuffer(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    CheckBuffer(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) CheckBuffer(b);
    for (const MatchBufferRegion& m : op->match_buffers) CheckBuffer(m->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }

 private:
  const PrimFuncNode* f_;
  DiagnosticList* diags_;
  std::vector<Span> spans_;
  bool lanes_reported_ = false;
};

// global_symbol: a valid symbol (what the backends can emit). Which symbols a module may export
// together is the build's business (driver/kernel_symbols.h): TVM's parser accepts two functions
// exporting one name, or a kernel named like a libm function.
void CheckSymbols(const IRModule& module, DiagnosticList* diags) {
  for (const auto& [gv, func] : module.Functions()) {
    const auto* f = func.as<PrimFuncNode>();
    if (f == nullptr) continue;
    int64_t at = f->attrs.Find(String("global_symbol"));
    if (at < 0) continue;
    const auto* s = f->attrs.value_at(at).as<StringNode>();
    if (s == nullptr) {
      diags->Error(f->span, absl::StrCat("function ", gv->name, ": global_symbol must be a string"));
    } else if (!IsValidSymbol(s->value)) {
      diags->Error(f->span, absl::StrCat("global_symbol \"", absl::CEscape(s->value), "\" ",
                                         s->value.empty() ? "is empty" : "is not a valid symbol name",
                                         "; it must be printable ASCII without spaces, quotes or backslashes"));
    }
  }
}

}  // namespace

absl::Status VerifyBuildable(const IRModule& module, DiagnosticList* diags) {
  DiagnosticList local;
  if (module.defined()) {
    CheckSymbols(module, &local);
    for (const auto& [gv, func] : module.Functions()) {
      if (const auto* f = func.as<PrimFuncNode>()) FuncChecker(f, &local).Run();
      if (const auto* f = func.as<relax::FunctionNode>()) CheckParamNames(f->params, &local);
    }
  }
  if (diags != nullptr) {
    for (const Diagnostic& d : local.items()) diags->Add(d);
  }
  return local.ToStatus();
}

}  // namespace kiln::script
