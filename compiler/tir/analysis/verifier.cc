// TIR verifier (see verifier.h). One recursive walk that keeps the set of variables and buffers in
// scope, the enclosing loops and thread bindings, and checks each node's typing rule on the way.
#include "compiler/tir/analysis/verifier.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/tir/analysis/scope_ids.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/builtin.h"
#include "compiler/tir/op/op.h"

namespace kiln::tir {
namespace {

using namespace ::kiln::ir;  // NOLINT: this file is all about IR nodes

std::string DT(DataType t) { return t.ToString(); }

// A Ramp's or Broadcast's lanes: more than one fixed lane, or vscale * k (encoded -k, k > 1).
bool IsVectorLanes(int lanes) { return lanes > 1 || lanes < -1; }

// The binding sites of shape variables tolerate re-binding: a symbolic dim shared by two buffers
// is one variable bound consistently, and thread vars are re-launched by sibling kernels.
enum class DefMode { kStrict, kRebindable };

bool IsValidThreadTag(const std::string& tag) {
  static const char* const kTags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z",
                                      "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  for (const char* t : kTags) {
    if (tag == t) return true;
  }
  return absl::StartsWith(tag, "vthread");
}

// Collects which SBlock owns each block iter var, for better "used outside its sblock" messages.
class IterVarOwners : public StmtExprVisitor {
 public:
  std::unordered_map<const VarNode*, std::string> owners;

 protected:
  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const SBlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) owners[iv->var.get()] = op->name;
    StmtExprVisitor::VisitStmt_(op);
  }
};

class Verifier : public StmtExprVisitor {
 public:
  Verifier(const PrimFuncNode* func, const IRModule& module, DiagnosticList* diags, const VerifyOptions& options)
      : func_(func), module_(module), diags_(diags), options_(options) {}

  void Run() {
    spans_.push_back(func_->span);
    // T.prim_func(persistent=True): TVM launches such a kernel over the SMs it occupies and loops
    // over the work itself; kiln's lowering does not have that launch.
    if (options_.backend_rules && func_->attrs.Find(String("tirx.persistent_kernel")) >= 0) {
      Error(func_->span, "a persistent kernel (T.prim_func(persistent=True)) is not lowered by kiln yet");
    }
    for (const Var& p : func_->params) Define(p, DefMode::kStrict);
    // Buffer params bind their data pointers and symbolic shape/stride/offset variables; the
    // expressions that are not bare variables are checked once everything is bound.
    for (const auto& [param, buffer] : func_->buffer_map.items()) {
      if (!live_.count(param.get())) Error(func_->span, "buffer_map key " + param->name + " is not a parameter");
      BindBufferVars(buffer, /*bind_shape=*/true);
      Define(buffer->data, DefMode::kRebindable);
      DeclareBuffer(buffer);
    }
    for (const auto& [param, buffer] : func_->buffer_map.items()) CheckBufferExprs(buffer, /*shape=*/true);
    if (func_->body.defined()) VisitStmt(func_->body);
  }

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) return;
    bool push = e->span.defined() && e.as<VarNode>() == nullptr;
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

  // ---------------- diagnostics ----------------

  // Reports at `span`, or at the innermost enclosing node that has a span.
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
  void Error(const Object* node, std::string msg) {
    const auto* s = dynamic_cast<const SpannedNode*>(node);
    Error(s ? s->span : Span(), std::move(msg));
  }

  // ---------------- scopes ----------------

  void Define(const Var& v, DefMode mode) {
    if (!v.defined()) return;
    const VarNode* n = v.get();
    if (live_.count(n)) {
      if (mode == DefMode::kStrict && options_.ssa) {
        Error(v->span, absl::StrCat("variable ", n->name, " is defined more than once (TIR is SSA)"));
      }
      return;
    }
    if (ever_.count(n) && mode == DefMode::kStrict && options_.ssa) {
      Error(v->span, absl::StrCat("variable ", n->name, " is defined more than once (TIR is SSA)"));
    }
    ever_.insert(n);
    live_.insert(n);
    var_log_.push_back(n);
  }
  void DeclareBuffer(const Buffer& b) {
    if (live_buffers_.insert(b.get()).second) buffer_log_.push_back(b.get());
    CheckNoLayout(b, b->span);
  }
  // A TVM tile layout (T.TileLayout / T.ComposeLayout, and the views A.sub[...], A.permute(...),
  // A.local(), ... that derive one) maps indices in a way kiln's lowering does not apply yet: a
  // build must not silently read such a buffer row-major.
  void CheckNoLayout(const Buffer& b, const Span& at) {
    if (!options_.backend_rules || !b->layout.defined()) return;
    const char* kind = b->layout.as<ComposeLayoutNode>() ? "T.ComposeLayout" : "T.TileLayout";
    Error(at.defined() ? at : b->span, absl::StrCat("buffer ", b->name, " has a ", kind, " layout, which is not lowered by kiln yet"));
  }
  struct Mark {
    size_t vars, buffers;
  };
  Mark Enter() const { return {var_log_.size(), buffer_log_.size()}; }
  void Leave(Mark m) {
    while (var_log_.size() > m.vars) {
      live_.erase(var_log_.back());
      var_log_.pop_back();
    }
    while (buffer_log_.size() > m.buffers) {
      live_buffers_.erase(buffer_log_.back());
      buffer_log_.pop_back();
    }
  }

  // Only the message for an undefined variable needs to know which sblock owns an iter var: the
  // walk that finds out runs on the first such error, not for every function verified.
  const std::unordered_map<const VarNode*, std::string>& IterVarOwnerMap() {
    if (!iter_owner_) {
      IterVarOwners owners;
      owners.VisitStmt(func_->body);
      iter_owner_ = std::move(owners.owners);
    }
    return *iter_owner_;
  }

  void UseVar(const VarNode* v) {
    if (live_.count(v) || !options_.defined_vars) return;
    std::string msg = absl::StrCat("Undefined variable: ", v->name);
    const auto& owners = IterVarOwnerMap();
    auto owner = owners.find(v);
    if (owner != owners.end()) {
      absl::StrAppend(&msg, " (an iter var of sblock \"", owner->second, "\", used outside that sblock)");
    } else if (ever_.count(v)) {
      absl::StrAppend(&msg, " (used after its scope ended)");
    }
    Error(Span(), std::move(msg));
  }
  // A buffer is usable while declared, or while its data pointer is (flattened/lowered IR
  // re-creates buffer objects over a live data var).
  bool UseBuffer(const Buffer& b, const Span& span) {
    if (!b.defined()) {
      Error(span, "access to a null buffer");
      return false;
    }
    if (live_buffers_.count(b.get()) || live_.count(b->data.get())) return true;
    Error(span, absl::StrCat("Undefined buffer: ", b->name));
    return false;
  }

  // Binds the bare variables among a buffer's strides and elem_offset (and shape, if bind_shape).
  void BindBufferVars(const Buffer& b, bool bind_shape) {
    auto bind = [&](const PrimExpr& e) {
      if (const auto* v = e.as<VarNode>()) Define(GetRef<Var>(v), DefMode::kRebindable);
    };
    if (bind_shape) {
      for (const PrimExpr& e : b->shape) bind(e);
    }
    for (const PrimExpr& e : b->strides) bind(e);
    if (b->elem_offset.defined()) bind(b->elem_offset);
  }
  // Checks the buffer's shape/strides/offset: integer scalars, using only variables in scope.
  void CheckBufferExprs(const Buffer& b, bool shape) {
    auto check = [&](const PrimExpr& e, const char* what) {
      if (!e.defined()) return;
      VisitExpr(e);
      if (!e.dtype().is_integer() || !e.dtype().is_scalar()) {
        Error(b->span, absl::StrCat("buffer ", b->name, " has a ", what, " of dtype ", DT(e.dtype()),
                                    "; expected an integer scalar"));
      }
    };
    if (shape) {
      for (const PrimExpr& e : b->shape) check(e, "shape dimension");
    }
    for (const PrimExpr& e : b->strides) check(e, "stride");
    check(b->elem_offset, "elem_offset");
    if (b->data.defined() && b->data->ty.defined() && b->data->ty.as<PointerTypeNode>() == nullptr) {
      Error(b->span, absl::StrCat("data of buffer ", b->name, " is not a pointer"));
    }
  }

  // ---------------- shared checks ----------------

  // Index rules shared by BufferLoad and BufferStore; returns the lanes of the access.
  int CheckIndices(const Object* node, const char* what, const Buffer& b, const Array<PrimExpr>& indices) {
    if (indices.size() != b->shape.size()) {
      Error(node, absl::StrCat(what, " ", b->shape.size(), "-dimensional buffer ", b->name, " with ",
                               indices.size(), " indices"));
    }
    for (size_t i = 0; i < indices.size(); ++i) {
      DataType t = indices[i].dtype();
      if (!t.is_integer()) {
        Error(node, absl::StrCat("index ", i, " of buffer ", b->name, " has dtype ", DT(t),
                                 "; indices must be integers"));
      } else if (i + 1 < indices.size() && !t.is_scalar()) {
        Error(node, absl::StrCat("index ", i, " of buffer ", b->name, " is a vector (", DT(t),
                                 "); only the last index may be"));
      }
    }
    return indices.empty() ? 1 : indices.back().dtype().lanes();
  }

  // The dtype at `indices` of `b` (`lanes` from CheckIndices): the buffer's dtype with its lanes
  // times the index's, either of which may be scalable (a negative lane count). Both scalable would
  // be vscale^2 lanes, which TVM's BufferLoad and BufferStore refuse, and so does this (false).
  bool AccessType(const Object* node, const Buffer& b, const Array<PrimExpr>& indices, int lanes, DataType* type) {
    if (b->dtype.is_scalable_vector() && lanes < -1) {
      Error(node, absl::StrCat("index dtype ", DT(indices.back().dtype()), " and buffer ", b->name, "'s dtype ",
                               DT(b->dtype), " can't both be scalable"));
      return false;
    }
    *type = b->dtype.with_lanes(b->dtype.lanes() * lanes);
    return true;
  }

  // An integer loop bound may be a narrower IntImm (spec: For rule 3/4); otherwise dtypes match.
  bool BoundMatches(const PrimExpr& e, DataType var_type) {
    if (e.dtype() == var_type) return true;
    const auto* imm = e.as<IntImmNode>();
    return imm && imm->dtype.is_integer() && imm->dtype.is_scalar() && var_type.is_integer() &&
           imm->dtype.bits() <= var_type.bits();
  }

  void CheckRegion(const BufferRegion& r, const std::string& what) {
    if (!r.defined() || !UseBuffer(r->buffer, r->span)) {
      for (const Range& rg : r->region) VisitRange(rg);
      return;
    }
    const Buffer& b = r->buffer;
    if (r->region.size() != b->shape.size()) {
      Error(r->span, absl::StrCat(what, " of ", b->shape.size(), "-dimensional buffer ", b->name, " has ",
                                  r->region.size(), " ranges"));
    }
    for (const Range& rg : r->region) VisitRange(rg);
  }
  void VisitRange(const Range& r) {
    if (!r.defined()) return;
    VisitExpr(r->min);
    VisitExpr(r->extent);
  }

  // Enters a thread binding; returns false (after reporting) if the tag is bad or already bound.
  bool PushThreadTag(const std::string& tag, const Span& span) {
    // TVM's CUDA backend also launches over a thread-block cluster (clusterCtaIdx.{x,y,z}, a CTA's
    // index in its cluster); the parser accepts those launches, kiln's lowering does not have them.
    bool cluster = tag == "clusterCtaIdx.x" || tag == "clusterCtaIdx.y" || tag == "clusterCtaIdx.z";
    if (cluster && options_.backend_rules) {
      Error(span, absl::StrCat("thread tag ", tag, " (a cluster launch) is not lowered by kiln yet"));
      return false;
    }
    if (!IsValidThreadTag(tag) && !cluster) {
      Error(span, absl::StrCat("invalid thread tag \"", tag,
                               "\"; expected blockIdx.{x,y,z}, threadIdx.{x,y,z} or vthread*"));
      return false;
    }
    for (const std::string& t : thread_tags_) {
      if (t == tag && options_.backend_rules) {
        Error(span, absl::StrCat("thread tag ", tag, " is already bound by an enclosing loop or launch"));
        return false;
      }
    }
    thread_tags_.push_back(tag);
    return true;
  }

  // ---------------- expressions ----------------

  void VisitExpr_(const VarNode* op) override { UseVar(op); }
  void VisitExpr_(const SizeVarNode* op) override { UseVar(op); }

  void VisitExpr_(const IntImmNode* op) override {
    DataType t = op->dtype;
    if (!t.is_int_or_bool() || !t.is_scalar()) {
      Error(op, absl::StrCat("IntImm has dtype ", DT(t), "; expected an integer scalar"));
      return;
    }
    bool fits = true;
    if (t.is_bool()) {
      fits = op->value == 0 || op->value == 1;
    } else if (t.bits() < 64) {
      int64_t lim = int64_t{1} << (t.bits() - 1);
      fits = t.is_int() ? (op->value >= -lim && op->value < lim) : (op->value >= 0 && op->value < 2 * lim);
    }
    if (!fits) Error(op, absl::StrCat("IntImm value ", op->value, " does not fit in ", DT(t)));
  }
  void VisitExpr_(const FloatImmNode* op) override {
    if (!op->dtype.is_floating() || !op->dtype.is_scalar()) {
      Error(op, absl::StrCat("FloatImm has dtype ", DT(op->dtype), "; expected a floating-point scalar"));
    }
  }

  void VisitExpr_(const CastNode* op) override {
    VisitExpr(op->value);
    DataType from = op->value.dtype(), to = op->dtype;
    if (from.lanes() != to.lanes()) {
      Error(op, absl::StrCat("Cast from ", DT(from), " to ", DT(to), " changes the number of lanes"));
    }
    if (from.is_handle() && !to.is_handle() && !(options_.lowered_form && to == DataType::Int(64))) {
      Error(op, absl::StrCat("Cast from handle to ", DT(to), " is not allowed"));
    }
    if (to.is_handle() && !(from.is_handle() || from.is_int_or_bool())) {
      Error(op, absl::StrCat("Cast from ", DT(from), " to handle is not allowed"));
    }
  }

  // Arithmetic binary operators: both sides one dtype, not a handle; result = that dtype.
  void CheckArith(const BinaryNode* op, const char* name, bool int_only) {
    VisitExpr(op->a);
    VisitExpr(op->b);
    DataType ta = op->a.dtype(), tb = op->b.dtype();
    if (ta != tb) {
      Error(op, absl::StrCat("mismatched types: ", DT(ta), " vs ", DT(tb), " in ", name));
      return;
    }
    if (!ta.is_numeric()) {
      Error(op, absl::StrCat(name, " of ", DT(ta), " operands is not allowed"));
      return;
    }
    if (int_only && !ta.is_int_or_bool()) {
      Error(op, absl::StrCat(name, " requires integer operands, got ", DT(ta)));
    }
    if (op->dtype != ta) {
      Error(op, absl::StrCat(name, " has dtype ", DT(op->dtype), " but its operands are ", DT(ta)));
    }
  }
  void VisitExpr_(const AddNode* op) override { CheckArith(op, "Add", false); }
  void VisitExpr_(const SubNode* op) override { CheckArith(op, "Sub", false); }
  void VisitExpr_(const MulNode* op) override { CheckArith(op, "Mul", false); }
  void VisitExpr_(const DivNode* op) override { CheckArith(op, "Div", false); }
  void VisitExpr_(const ModNode* op) override { CheckArith(op, "Mod", true); }
  void VisitExpr_(const FloorDivNode* op) override { CheckArith(op, "FloorDiv", false); }
  void VisitExpr_(const FloorModNode* op) override { CheckArith(op, "FloorMod", false); }
  void VisitExpr_(const MinNode* op) override { CheckArith(op, "Min", false); }
  void VisitExpr_(const MaxNode* op) override { CheckArith(op, "Max", false); }

  void CheckCompare(const BinaryNode* op, const char* name) {
    VisitExpr(op->a);
    VisitExpr(op->b);
    DataType ta = op->a.dtype(), tb = op->b.dtype();
    if (ta != tb) {
      Error(op, absl::StrCat("mismatched types: ", DT(ta), " vs ", DT(tb), " in ", name));
      return;
    }
    if (!ta.is_numeric()) Error(op, absl::StrCat(name, " of ", DT(ta), " operands is not allowed"));
    if (op->dtype != DataType::Bool(ta.lanes())) {
      Error(op, absl::StrCat(name, " has dtype ", DT(op->dtype), "; a comparison of ", DT(ta), " is ",
                             DT(DataType::Bool(ta.lanes()))));
    }
  }
  void VisitExpr_(const EQNode* op) override { CheckCompare(op, "EQ"); }
  void VisitExpr_(const NENode* op) override { CheckCompare(op, "NE"); }
  void VisitExpr_(const LTNode* op) override { CheckCompare(op, "LT"); }
  void VisitExpr_(const LENode* op) override { CheckCompare(op, "LE"); }
  void VisitExpr_(const GTNode* op) override { CheckCompare(op, "GT"); }
  void VisitExpr_(const GENode* op) override { CheckCompare(op, "GE"); }

  void CheckLogical(const BinaryNode* op, const char* name) {
    VisitExpr(op->a);
    VisitExpr(op->b);
    DataType ta = op->a.dtype(), tb = op->b.dtype();
    if (!ta.is_bool() || !tb.is_bool()) {
      Error(op, absl::StrCat(name, " expects bool operands, got ", DT(ta), " and ", DT(tb)));
    } else if (ta != tb) {
      Error(op, absl::StrCat("mismatched types: ", DT(ta), " vs ", DT(tb), " in ", name));
    } else if (op->dtype != ta) {
      Error(op, absl::StrCat(name, " has dtype ", DT(op->dtype), " but its operands are ", DT(ta)));
    }
  }
  void VisitExpr_(const AndNode* op) override { CheckLogical(op, "And"); }
  void VisitExpr_(const OrNode* op) override { CheckLogical(op, "Or"); }
  void VisitExpr_(const NotNode* op) override {
    VisitExpr(op->a);
    if (!op->a.dtype().is_bool()) {
      Error(op, absl::StrCat("Not expects a bool operand, got ", DT(op->a.dtype())));
    } else if (op->dtype != op->a.dtype()) {
      Error(op, absl::StrCat("Not has dtype ", DT(op->dtype), " but its operand is ", DT(op->a.dtype())));
    }
  }

  void VisitExpr_(const SelectNode* op) override {
    VisitExpr(op->condition);
    VisitExpr(op->true_value);
    VisitExpr(op->false_value);
    DataType c = op->condition.dtype(), t = op->true_value.dtype(), f = op->false_value.dtype();
    if (!c.is_bool()) Error(op, absl::StrCat("Select condition must be bool, got ", DT(c)));
    if (t != f) {
      Error(op, absl::StrCat("mismatched types: ", DT(t), " vs ", DT(f), " in Select"));
      return;
    }
    if (c.is_bool() && c.lanes() != 1 && c.lanes() != t.lanes()) {
      Error(op, absl::StrCat("Select condition ", DT(c), " does not match the lanes of its values ", DT(t)));
    }
    if (op->dtype != t) Error(op, absl::StrCat("Select has dtype ", DT(op->dtype), " but its values are ", DT(t)));
  }

  void VisitExpr_(const BufferLoadNode* op) override {
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    if (op->predicate.defined()) VisitExpr(op->predicate);
    if (!UseBuffer(op->buffer, op->span)) return;
    int lanes = CheckIndices(op, "BufferLoad of", op->buffer, op->indices);
    DataType expected;
    if (!AccessType(op, op->buffer, op->indices, lanes, &expected)) return;
    if (op->dtype != expected) {
      Error(op, absl::StrCat("BufferLoad has dtype ", DT(op->dtype), " but reads ", DT(expected),
                             " from buffer ", op->buffer->name));
    }
  }

  void VisitExpr_(const RampNode* op) override {
    VisitExpr(op->base);
    VisitExpr(op->stride);
    DataType b = op->base.dtype(), s = op->stride.dtype();
    if (!IsVectorLanes(op->lanes)) Error(op, absl::StrCat("Ramp must have more than 1 lane, got ", op->lanes));
    if (!b.is_scalar() || !s.is_scalar()) {
      Error(op, absl::StrCat("Ramp base and stride must be scalars, got ", DT(b), " and ", DT(s)));
    } else if (b != s) {
      Error(op, absl::StrCat("mismatched types: ", DT(b), " vs ", DT(s), " in Ramp base and stride"));
    } else if (op->dtype != b.with_lanes(op->lanes)) {
      Error(op, absl::StrCat("Ramp has dtype ", DT(op->dtype), "; expected ", DT(b.with_lanes(op->lanes))));
    }
  }

  void VisitExpr_(const BroadcastNode* op) override {
    VisitExpr(op->value);
    DataType v = op->value.dtype();
    if (!v.is_scalar()) Error(op, absl::StrCat("Broadcast of a non-scalar value of dtype ", DT(v)));
    if (!IsVectorLanes(op->lanes)) Error(op, absl::StrCat("Broadcast must have more than 1 lane, got ", op->lanes));
    if (v.is_scalar() && IsVectorLanes(op->lanes) && op->dtype != v.with_lanes(op->lanes)) {
      Error(op, absl::StrCat("Broadcast has dtype ", DT(op->dtype), "; expected ", DT(v.with_lanes(op->lanes))));
    }
  }

  void VisitExpr_(const ShuffleNode* op) override {
    for (const PrimExpr& v : op->vectors) VisitExpr(v);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    if (op->vectors.empty()) {
      Error(op, "Shuffle needs at least one vector");
      return;
    }
    DataType elem = op->vectors[0].dtype().element_of();
    int64_t total = 0;
    for (const PrimExpr& v : op->vectors) {
      if (v.dtype().element_of() != elem) {
        Error(op, absl::StrCat("mismatched types: ", DT(elem), " vs ", DT(v.dtype().element_of()),
                               " among Shuffle vectors"));
      }
      total += v.dtype().lanes();
    }
    for (const PrimExpr& i : op->indices) {
      if (!i.dtype().is_integer() || !i.dtype().is_scalar()) {
        Error(op, absl::StrCat("Shuffle index has dtype ", DT(i.dtype()), "; expected an integer scalar"));
      } else if (const auto* imm = i.as<IntImmNode>()) {
        if (imm->value < 0 || imm->value >= total) {
          Error(op, absl::StrCat("Shuffle index ", imm->value, " is out of range for ", total, " lanes"));
        }
      }
    }
    DataType expected = elem.with_lanes(static_cast<int>(op->indices.size()));
    if (op->dtype != expected) {
      Error(op, absl::StrCat("Shuffle has dtype ", DT(op->dtype), "; expected ", DT(expected)));
    }
  }

  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    if (op->var->dtype != op->value.dtype()) {
      Error(op, absl::StrCat("Let binds ", op->var->name, " of dtype ", DT(op->var->dtype),
                             " to a value of dtype ", DT(op->value.dtype())));
    }
    Mark m = Enter();
    Define(op->var, DefMode::kStrict);
    VisitExpr(op->body);
    Leave(m);
    if (op->dtype != op->body.dtype()) {
      Error(op, absl::StrCat("Let has dtype ", DT(op->dtype), " but its body is ", DT(op->body.dtype())));
    }
  }

  void VisitExpr_(const CallNode* op) override {
    for (const PrimExpr& a : op->args) VisitExpr(a);
    if (const auto* gv = op->op.as<GlobalVarNode>()) {
      CheckFunctionCall(op, gv);
      return;
    }
    const auto* opn = op->op.as<OpNode>();
    if (opn == nullptr) {
      Error(op, "Call target must be an intrinsic (Op) or a function (GlobalVar)");
      return;
    }
    if (opn->name == "tirx.buffer_offset" && options_.backend_rules) {
      Error(op, "T.buffer_offset (A.elem_offset_of: an offset through a buffer's layout) is not lowered by kiln yet");
    }
    const IntrinsicInfo* info = IntrinsicRegistry::Global().FindByName(opn->name);
    if (info == nullptr) {
      Error(op, absl::StrCat("unknown intrinsic ", opn->name));
      return;
    }
    absl::Status arity = CheckArity(*info, op->args.size(), info->script_name);
    if (!arity.ok()) {
      Error(op, std::string(arity.message()));
      return;
    }
    const std::string name = "T." + info->script_name;
    if (info->float_only && !op->args[0].dtype().is_floating()) {
      Error(op, absl::StrCat(name, " expects a floating-point argument, got ", DT(op->args[0].dtype())));
    }
    if (info->int_only && !op->args[0].dtype().is_int_or_bool()) {
      Error(op, absl::StrCat(name, " expects integer arguments, got ", DT(op->args[0].dtype())));
    }
    using Rule = IntrinsicInfo::DTypeRule;
    if (info->name == "tirx.if_then_else") {
      DataType c = op->args[0].dtype(), t = op->args[1].dtype(), f = op->args[2].dtype();
      if (!c.is_bool() || !c.is_scalar()) Error(op, absl::StrCat(name, " condition must be bool, got ", DT(c)));
      if (t != f) {
        Error(op, absl::StrCat("mismatched types: ", DT(t), " vs ", DT(f), " in ", name));
        return;
      }
    } else if (info->match_binary_args && op->args[0].dtype() != op->args[1].dtype()) {
      Error(op, absl::StrCat("mismatched types: ", DT(op->args[0].dtype()), " vs ", DT(op->args[1].dtype()),
                             " in ", name));
      return;
    }
    DataType expected = op->dtype;
    switch (info->dtype_rule) {
      case Rule::kSameAsFirstArg: expected = op->args[0].dtype(); break;
      case Rule::kSecondArg:
      case Rule::kValueArg: expected = op->args[1].dtype(); break;
      case Rule::kBool: expected = DataType::Bool(); break;
      case Rule::kBoolLanesOfFirstArg: expected = DataType::Bool(op->args[0].dtype().lanes()); break;
      default: break;  // explicit, or a fixed convention passes are free to refine
    }
    if (op->dtype != expected) {
      Error(op, absl::StrCat(name, " has dtype ", DT(op->dtype), "; expected ", DT(expected)));
    }
    if (info->name == "tirx.ret") CheckReturn(op);
  }

  void CheckFunctionCall(const CallNode* op, const GlobalVarNode* gv) {
    if (!module_.defined()) return;
    BaseFunc callee = module_.Lookup(gv->name);
    if (!callee.defined()) {
      Error(op, absl::StrCat("call to undefined function @", gv->name));
      return;
    }
    if (const auto* pf = callee.as<PrimFuncNode>()) {
      if (pf->params.size() != op->args.size()) {
        Error(op, absl::StrCat("call to @", gv->name, " passes ", op->args.size(), " arguments, but it takes ",
                               pf->params.size()));
        return;
      }
      // The backends pass arguments as they are (no implicit conversion), so their dtypes must be
      // the parameters' exactly.
      for (size_t i = 0; i < op->args.size(); ++i) {
        DataType want = pf->params[i]->dtype, got = op->args[i].dtype();
        if (got != want) {
          Error(op, absl::StrCat("mismatched types: call to @", gv->name, " passes ", DT(got), " as argument ", i,
                                 " but parameter ", pf->params[i]->name, " is ", DT(want)));
        }
      }
    }
  }

  void CheckReturn(const CallNode* op) {
    DataType v = op->args[0].dtype();
    const Type& rt = func_->ret_type;
    if (const auto* prim = rt.as<PrimTypeNode>()) {
      if (prim->dtype != v) {
        Error(op, absl::StrCat("T.ret returns ", DT(v), " but the function returns ", DT(prim->dtype)));
      }
    } else if (rt.as<PointerTypeNode>()) {
      if (!v.is_handle()) Error(op, absl::StrCat("T.ret returns ", DT(v), " but the function returns a pointer"));
    } else {
      const auto* tuple = rt.as<TupleTypeNode>();
      if ((!rt.defined() || (tuple && tuple->fields.empty())) && options_.backend_rules) {
        Error(op, absl::StrCat("T.ret returns ", DT(v), " but the function has no return type"));
      }
    }
  }

  // ---------------- statements ----------------

  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    DataType v = op->value.dtype();
    if (op->var->ty.as<PointerTypeNode>()) {
      if (!v.is_handle()) {
        Error(op, absl::StrCat("LetStmt binds pointer ", op->var->name, " to a value of dtype ", DT(v)));
      }
    } else if (op->var->dtype != v) {
      Error(op, absl::StrCat("LetStmt binds ", op->var->name, " of dtype ", DT(op->var->dtype),
                             " to a value of dtype ", DT(v)));
    }
    Mark m = Enter();
    Define(op->var, DefMode::kStrict);
    VisitStmt(op->body);
    Leave(m);
  }

  void VisitStmt_(const AttrStmtNode* op) override {
    VisitExpr(op->value);
    if (op->attr_key == "tirx.device_entry" && options_.scope_ids) {
      // The scope ids declared in a device region describe its launch (scope_ids.h).
      std::vector<const ScopeIdDefStmtNode*> defs;
      region_scope_ids_.push_back(&defs);
      VisitStmt(op->body);
      region_scope_ids_.pop_back();
      for (const std::string& e : CheckScopeIdClosure(defs)) Error(op, e);
      return;
    }
    if (op->attr_key != "thread_extent" && op->attr_key != "virtual_thread") {
      VisitStmt(op->body);
      return;
    }
    if (!op->value.dtype().is_integer() || !op->value.dtype().is_scalar()) {
      Error(op, absl::StrCat(op->attr_key, " extent has dtype ", DT(op->value.dtype()),
                             "; expected an integer scalar"));
    }
    Mark m = Enter();
    bool pushed = false;
    if (const auto* iv = op->node.as<IterVarNode>()) {
      pushed = PushThreadTag(iv->thread_tag, iv->span.defined() ? iv->span : op->span);
      Define(iv->var, DefMode::kRebindable);
    } else if (const auto* v = op->node.as<VarNode>()) {
      Define(GetRef<Var>(v), DefMode::kRebindable);
    } else {
      Error(op, absl::StrCat(op->attr_key, " must bind an IterVar or a Var"));
    }
    VisitStmt(op->body);
    if (pushed) thread_tags_.pop_back();
    Leave(m);
  }

  // TIRx tile primitives (T.tile.memset(...)): operands are regions of buffers in scope or
  // expressions (for compose_op, the tile primitive calls it composes), workspace buffers are in
  // scope. kiln does not lower them yet, so with the backend rules on (lowering's input check) each
  // one is an error at its call rather than a pass failing deep in the pipeline.
  void VisitStmt_(const TilePrimitiveCallNode* op) override {
    std::string callee = absl::StrCat("T.", TileScopeNamespace(op->scope), ".", op->op);
    for (size_t i = 0; i < op->args.size(); ++i) {
      const ObjectRef& a = op->args[i];
      if (a.as<BufferRegionNode>()) {
        CheckRegion(Downcast<BufferRegion>(a), absl::StrCat("operand ", i, " of ", callee));
      } else if (a.as<PrimExprNode>()) {
        VisitExpr(Downcast<PrimExpr>(a));
      } else if (const auto* axes = a.as<ArrayNode>()) {  // a reduction's axes: integer constants
        for (const ObjectRef& x : axes->data) {
          if (!x.as<IntImmNode>()) Error(op, absl::StrCat("operand ", i, " of ", callee, " (axes) holds a non-integer"));
        }
      } else if (op->op == "compose_op" && a.as<TilePrimitiveCallNode>()) {  // compose_op's operands: calls
        VisitStmt(Downcast<Stmt>(a));
      } else {
        Error(op, absl::StrCat("operand ", i, " of ", callee,
                               op->op == "compose_op" ? " is not a tile primitive call"
                                                      : " is neither a buffer region, an expression nor axes"));
      }
    }
    for (const auto& [name, b] : op->workspace.items()) UseBuffer(b, op->span);
    if (options_.backend_rules) Error(op, absl::StrCat("tile primitive ", callee, " is not lowered by kiln yet"));
  }

  // TVM's ScopeIdDef rules: one int32/uint32 var per extent (a deferred def has one var and no
  // extents), warp and warpgroup ids are one-dimensional, and only cluster->cta takes a
  // preferred-extent hint.
  void VisitStmt_(const ScopeIdDefStmtNode* op) override {
    if (!region_scope_ids_.empty()) region_scope_ids_.back()->push_back(op);
    for (const PrimExpr& e : op->extents) VisitExpr(e);
    for (const PrimExpr& e : op->preferred_extents) VisitExpr(e);
    const char* fn = ScopeIdFunctionName(op->scope);
    if (op->extents.empty() ? op->def_ids.size() != 1 : op->def_ids.size() != op->extents.size()) {
      Error(op, absl::StrCat("T.", fn, " defines ", op->def_ids.size(), " vars for ", op->extents.size(),
                             " extents"));
    }
    bool one_axis = op->scope == ScopeBinding::kCtaWarp || op->scope == ScopeBinding::kWarpgroupWarp ||
                    op->scope == ScopeBinding::kCtaWarpgroup || op->scope == ScopeBinding::kClusterCtaPair;
    if (one_axis && op->def_ids.size() > 1) Error(op, absl::StrCat("T.", fn, " only supports 1D extents"));
    if (!op->preferred_extents.empty() && op->scope != ScopeBinding::kClusterCta) {
      Error(op, "preferred extents are only valid for T.cta_id_in_cluster");
    }
    Mark m = Enter();
    for (const Var& v : op->def_ids) {
      DataType t = v->dtype;
      if (!t.is_scalar() || t.bits() != 32 || !(t.is_int() || t.is_uint())) {
        Error(op, absl::StrCat("scope id ", v->name, " has dtype ", DT(t), "; expected int32 or uint32"));
      }
      Define(v, DefMode::kStrict);
    }
    VisitStmt(op->body);
    Leave(m);
  }

  void VisitStmt_(const AssertStmtNode* op) override {
    VisitExpr(op->condition);
    DataType c = op->condition.dtype();
    if (!c.is_bool() || !c.is_scalar()) Error(op, absl::StrCat("assert condition must be bool, got ", DT(c)));
    if (op->body.defined()) VisitStmt(op->body);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    VisitExpr(op->value);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    if (op->predicate.defined()) VisitExpr(op->predicate);
    if (!UseBuffer(op->buffer, op->span)) return;
    int lanes = CheckIndices(op, "BufferStore to", op->buffer, op->indices);
    DataType expected;
    if (!AccessType(op, op->buffer, op->indices, lanes, &expected)) return;
    DataType v = op->value.dtype();
    if (v != expected) {
      Error(op, absl::StrCat(v.is_scalable_vector() != expected.is_scalable_vector()
                                 ? "can't mix scalable and fixed-length vectors in a store: "
                                 : "mismatched types: ",
                             "stored value is ", DT(v), " but buffer ", op->buffer->name, " holds ", DT(expected),
                             " at these indices"));
    }
  }

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    if (op->step.defined()) VisitExpr(op->step);
    DataType lv = op->loop_var->dtype;
    if (!lv.is_integer() || !lv.is_scalar()) {
      Error(op, absl::StrCat("loop variable ", op->loop_var->name, " has dtype ", DT(lv),
                             "; expected an integer scalar"));
    } else {
      auto check = [&](const PrimExpr& e, const char* what) {
        if (e.defined() && !BoundMatches(e, lv)) {
          Error(op, absl::StrCat("mismatched types: For loop ", what, " is ", DT(e.dtype()), " but loop variable ",
                                 op->loop_var->name, " is ", DT(lv)));
        }
      };
      check(op->min, "min");
      check(op->extent, "extent");
      check(op->step, "step");
    }
    bool pushed = false;
    if (op->kind == ForKind::kThreadBinding) {
      if (!op->thread_binding.defined() || op->thread_binding->thread_tag.empty()) {
        Error(op, absl::StrCat("thread-binding loop over ", op->loop_var->name, " has no thread tag"));
      } else if (!IsValidThreadTag(op->thread_binding->thread_tag)) {
        // Nested thread-binding loops may rebind a tag (schedules bind threadIdx.x again for a
        // cooperative fetch inside a threadIdx.x loop), so only the tag itself is checked here;
        // launch_thread scopes, which define the thread variable, may not nest with one tag.
        pushed = PushThreadTag(op->thread_binding->thread_tag, op->span);
      }
    }
    Mark m = Enter();
    Define(op->loop_var, DefMode::kStrict);
    ++loop_depth_;
    VisitStmt(op->body);
    --loop_depth_;
    Leave(m);
    if (pushed) thread_tags_.pop_back();
  }

  void VisitStmt_(const WhileNode* op) override {
    VisitExpr(op->condition);
    DataType c = op->condition.dtype();
    if (!c.is_int_or_bool() || !c.is_scalar()) {
      Error(op, absl::StrCat("while condition must be a bool (or integer) scalar, got ", DT(c)));
    } else if (const auto* imm = op->condition.as<IntImmNode>()) {
      Error(op, absl::StrCat("while condition must not be a constant (got ", imm->value,
                             "); use a loop condition that can change"));
    }
    ++loop_depth_;
    VisitStmt(op->body);
    --loop_depth_;
  }

  void VisitStmt_(const BreakNode* op) override {
    if (loop_depth_ == 0) Error(op, "break outside loop");
  }
  void VisitStmt_(const ContinueNode* op) override {
    if (loop_depth_ == 0) Error(op, "continue outside loop");
  }

  void VisitStmt_(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    DataType c = op->condition.dtype();
    // TVM's parser takes any integer expression as an `if` condition (`if T.cuda.elect_sync():`
    // is a uint32): nonzero is true.
    if (!(c.is_bool() || c.is_int() || c.is_uint()) || !c.is_scalar()) {
      Error(op, absl::StrCat("if condition must be bool or an integer, got ", DT(c)));
    }
    VisitStmt(op->then_case);
    if (op->else_case.defined()) VisitStmt(op->else_case);
  }

  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& b = op->buffer;
    Mark m = Enter();
    // The shape must already be computable; strides/offset may introduce fresh variables.
    BindBufferVars(b, /*bind_shape=*/false);
    CheckBufferExprs(b, /*shape=*/true);
    Define(b->data, DefMode::kStrict);
    DeclareBuffer(b);
    VisitStmt(op->body);
    Leave(m);
  }

  void VisitStmt_(const DeclBufferNode* op) override {
    const Buffer& b = op->buffer;
    // A free data pointer (TVM's check_well_formed=False) is printed as a variable defined at the
    // top of the function, like any other free variable.
    if (b->data.defined() && !live_.count(b->data.get()) && options_.defined_vars) {
      Error(op, absl::StrCat("Undefined variable: ", b->data->name, " (data of buffer ", b->name, ")"));
    }
    Mark m = Enter();
    BindBufferVars(b, /*bind_shape=*/false);
    CheckBufferExprs(b, /*shape=*/true);
    DeclareBuffer(b);
    VisitStmt(op->body);
    Leave(m);
  }

  void VisitStmt_(const SBlockRealizeNode* op) override {
    for (const PrimExpr& v : op->iter_values) VisitExpr(v);
    if (op->predicate.defined()) {
      VisitExpr(op->predicate);
      if (!op->predicate.dtype().is_bool()) {
        Error(op, absl::StrCat("sblock predicate must be bool, got ", DT(op->predicate.dtype())));
      }
    }
    if (!op->block.defined()) {
      Error(op, "SBlockRealize without a block");
      return;
    }
    const SBlockNode* block = op->block.get();
    if (op->iter_values.size() != block->iter_vars.size()) {
      Error(op, absl::StrCat("sblock \"", block->name, "\" has ", block->iter_vars.size(), " iter vars but ",
                             op->iter_values.size(), " iter values"));
    } else {
      for (size_t i = 0; i < op->iter_values.size(); ++i) {
        const Var& var = block->iter_vars[i]->var;
        if (var.defined() && op->iter_values[i].dtype() != var->dtype &&
            !BoundMatches(op->iter_values[i], var->dtype)) {
          Error(op, absl::StrCat("mismatched types: iter value ", i, " of sblock \"", block->name, "\" is ",
                                 DT(op->iter_values[i].dtype()), " but iter var ", var->name, " is ",
                                 DT(var->dtype)));
        }
      }
    }
    VisitStmt(op->block);
  }

  void VisitStmt_(const SBlockNode* op) override {
    Mark m = Enter();
    for (const IterVar& iv : op->iter_vars) {
      DataType t = iv->var->dtype;
      if (!t.is_integer() || !t.is_scalar()) {
        Error(iv->span.defined() ? iv->span : op->span,
              absl::StrCat("iter var ", iv->var->name, " of sblock \"", op->name, "\" has dtype ", DT(t),
                           "; expected an integer scalar"));
      }
      if (iv->dom.defined()) {
        VisitRange(iv->dom);
        if (iv->dom->extent.defined() && !BoundMatches(iv->dom->extent, t)) {
          Error(iv->span.defined() ? iv->span : op->span,
                absl::StrCat("mismatched types: domain extent of iter var ", iv->var->name, " is ",
                             DT(iv->dom->extent.dtype()), " but the var is ", DT(t)));
        }
      }
    }
    for (const IterVar& iv : op->iter_vars) Define(iv->var, DefMode::kStrict);
    for (const Buffer& b : op->alloc_buffers) {
      BindBufferVars(b, /*bind_shape=*/false);
      CheckBufferExprs(b, /*shape=*/true);
      Define(b->data, DefMode::kStrict);
      DeclareBuffer(b);
    }
    for (const MatchBufferRegion& mb : op->match_buffers) {
      CheckRegion(mb->source, "match_buffer source region");
      const Buffer& b = mb->buffer;
      const Buffer& src = mb->source->buffer;
      if (src.defined() && b->dtype != src->dtype) {
        Error(mb->span.defined() ? mb->span : op->span,
              absl::StrCat("mismatched types: match_buffer ", b->name, " is ", DT(b->dtype), " but its source ",
                           src->name, " is ", DT(src->dtype)));
      }
      if (b->shape.size() > mb->source->region.size()) {
        Error(mb->span.defined() ? mb->span : op->span,
              absl::StrCat("match_buffer ", b->name, " has ", b->shape.size(),
                           " dimensions but its source region has ", mb->source->region.size()));
      }
      BindBufferVars(b, /*bind_shape=*/true);
      CheckBufferExprs(b, /*shape=*/true);
      Define(b->data, DefMode::kStrict);
      DeclareBuffer(b);
    }
    for (const BufferRegion& r : op->reads) CheckRegion(r, absl::StrCat("read region of sblock \"", op->name, "\""));
    for (const BufferRegion& r : op->writes) CheckRegion(r, absl::StrCat("write region of sblock \"", op->name, "\""));
    // An init without reduction iter vars is allowed (TVM accepts it): it runs every time.
    if (op->init.defined()) VisitStmt(op->init);
    VisitStmt(op->body);
    Leave(m);
  }

 private:
  const PrimFuncNode* func_;
  const IRModule& module_;
  DiagnosticList* diags_;
  VerifyOptions options_;

  std::unordered_set<const VarNode*> live_;  // in scope now
  std::unordered_set<const VarNode*> ever_;  // defined at some point (SSA)
  std::vector<const VarNode*> var_log_;      // definition order, undone by Leave()
  std::unordered_set<const BufferNode*> live_buffers_;
  std::vector<const BufferNode*> buffer_log_;
  std::optional<std::unordered_map<const VarNode*, std::string>> iter_owner_;  // IterVarOwnerMap
  std::vector<std::string> thread_tags_;
  // The scope ids of each enclosing device region, innermost last.
  std::vector<std::vector<const ScopeIdDefStmtNode*>*> region_scope_ids_;
  std::vector<Span> spans_;  // enclosing nodes' spans, for nodes without one
  int loop_depth_ = 0;
};

}  // namespace

absl::Status VerifyPrimFunc(const PrimFunc& func, DiagnosticList* diags, const IRModule& module,
                            const VerifyOptions& options) {
  DiagnosticList local;
  if (!func.defined()) {
    local.Error(Span(), "null PrimFunc");
  } else {
    Verifier(func.get(), module, &local, options).Run();
  }
  if (diags != nullptr) {
    for (const Diagnostic& d : local.items()) diags->Add(d);
  }
  return local.ToStatus();
}

absl::Status VerifyModuleTIR(const IRModule& module, DiagnosticList* diags, const VerifyOptions& options) {
  DiagnosticList local;
  if (module.defined()) {
    for (const auto& [gv, func] : module.Functions()) {
      if (const auto* pf = func.as<PrimFuncNode>()) {
        (void)VerifyPrimFunc(GetRef<PrimFunc>(pf), &local, module, options);
      }
    }
  }
  if (diags != nullptr) {
    for (const Diagnostic& d : local.items()) diags->Add(d);
  }
  return local.ToStatus();
}

}  // namespace kiln::tir
