// The TIR reference interpreter (see interp.h): a tree walker over high-level PrimFuncs that follows
// the TIR spec's "Semantics" sections rule by rule.
//
// State: one Frame per PrimFunc activation maps variables to Values and buffers to BufferViews
// (data pointer, evaluated shape and strides in elements, element offset). Buffer memory is either
// a caller's DLTensor or owned by an Allocation of this run; every access is checked against the
// buffer's shape and against the memory regions known to the run, so a bad index is an OUT_OF_RANGE
// error and never a stray read or write.
//
// Loops of every kind run serially in index order, which is one of the executions the spec allows
// for parallel, vectorized and thread-bound loops. The one construct serial execution gets wrong is
// a barrier (tvm_storage_sync) between GPU threads: a threadIdx-bound body whose statement list is
// split by barriers runs one segment at a time across all threads; a barrier anywhere else in a
// thread-bound body is UNIMPLEMENTED rather than silently wrong.
#include "compiler/tir/interp/interp.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/functor.h"
#include "compiler/tir/analysis/abi_checks.h"
#include "compiler/tir/interp/intrinsics.h"
#include "compiler/tir/interp/value.h"
#include "compiler/tir/op/op.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT
using interp::ArithOp;
using interp::CompareOp;
using interp::Lane;
using interp::Value;

#define KILN_INTERP_TRY(expr)          \
  do {                                 \
    absl::Status _st = (expr);         \
    if (!_st.ok()) return _st;         \
  } while (0)

// Calls between PrimFuncs nest at most this deep (recursion must not overflow the C++ stack).
constexpr int kMaxCallDepth = 64;

// How a statement finished.
enum class Flow { kNormal, kBreak, kContinue, kReturn };

// A buffer as the running program sees it.
struct BufferView {
  char* data = nullptr;
  DataType dtype;          // element type; lanes > 1 for vector-element buffers
  int64_t elem_bytes = 1;  // bytes of one element (all its lanes)
  std::vector<int64_t> shape, strides;
  int64_t elem_offset = 0;
};

// Memory ranges the program may touch: the argument tensors and its own allocations.
class MemoryMap {
 public:
  void Add(uintptr_t begin, uintptr_t end) { regions_.emplace_back(begin, end); }
  void Remove(uintptr_t begin) {
    for (size_t i = regions_.size(); i-- > 0;) {
      if (regions_[i].first == begin) {
        regions_.erase(regions_.begin() + i);
        break;
      }
    }
    last_ = 0;
  }
  bool Contains(uintptr_t p, uint64_t bytes) const {
    auto inside = [&](const std::pair<uintptr_t, uintptr_t>& r) {
      return p >= r.first && p <= r.second && bytes <= r.second - p;
    };
    if (last_ < regions_.size() && inside(regions_[last_])) return true;
    for (size_t i = 0; i < regions_.size(); ++i) {
      if (inside(regions_[i])) {
        last_ = i;
        return true;
      }
    }
    return false;
  }

 private:
  std::vector<std::pair<uintptr_t, uintptr_t>> regions_;
  mutable size_t last_ = 0;  // the region that answered last (accesses come in runs)
};

// Zero-filled storage for one allocated buffer, known to the MemoryMap and counted in `live_bytes`
// while it lives.
class Allocation {
 public:
  Allocation(MemoryMap* memory, int64_t* live_bytes, int64_t bytes)
      : memory_(memory), live_bytes_(live_bytes), bytes_(bytes), data_(new char[std::max<int64_t>(bytes, 1)]()) {
    begin_ = reinterpret_cast<uintptr_t>(data_.get());
    memory_->Add(begin_, begin_ + bytes);
    *live_bytes_ += bytes_;
  }
  ~Allocation() {
    memory_->Remove(begin_);
    *live_bytes_ -= bytes_;
  }
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  char* data() const { return data_.get(); }

 private:
  MemoryMap* memory_;
  int64_t* live_bytes_;
  int64_t bytes_;
  std::unique_ptr<char[]> data_;
  uintptr_t begin_;
};

// A small map searched from its most recent entry: a frame holds few live variables and buffers,
// and the innermost (latest bound) are the ones used most.
template <typename K, typename V>
class ScopeMap {
 public:
  using Entry = std::pair<const K*, V>;
  Entry* find(const K* k) {
    for (size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].first == k) return &entries_[i];
    }
    return nullptr;
  }
  const Entry* find(const K* k) const { return const_cast<ScopeMap*>(this)->find(k); }
  size_t count(const K* k) const { return find(k) != nullptr ? 1 : 0; }
  void emplace(const K* k, V v) { entries_.emplace_back(k, std::move(v)); }
  V& operator[](const K* k) {
    if (Entry* e = find(k)) return e->second;
    entries_.emplace_back(k, V());
    return entries_.back().second;
  }
  void erase(const K* k) {
    for (size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].first == k) {
        entries_.erase(entries_.begin() + i);
        return;
      }
    }
  }

 private:
  std::vector<Entry> entries_;
};

struct Frame {
  std::string func;  // the function's name, for messages
  ScopeMap<VarNode, Value> vars;
  ScopeMap<BufferNode, BufferView> buffers;
  bool returned = false;  // tirx.ret ran
  Value ret;
};

std::string OpName(const CallNode* op) {
  const auto* o = op->op.as<OpNode>();
  if (o == nullptr) return "";
  return absl::StartsWith(o->name, "tirx.") ? o->name.substr(5) : o->name;
}

// Whether a statement contains tvm_storage_sync.
class SyncFinder : public StmtExprVisitor {
 public:
  bool found = false;
  void VisitExpr_(const CallNode* op) override {
    if (OpName(op) == "tvm_storage_sync") found = true;
    StmtExprVisitor::VisitExpr_(op);
  }
};

bool IsSync(const Stmt& s) {
  const auto* ev = s.as<EvaluateNode>();
  const auto* call = ev ? ev->value.as<CallNode>() : nullptr;
  return call != nullptr && OpName(call) == "tvm_storage_sync";
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= shape[k];
  }
  return strides;
}

// The lowest and highest element offsets (relative to the first element) a layout reaches; false
// if it reaches none (a zero extent).
bool Span(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t* lo, int64_t* hi) {
  *lo = 0;
  *hi = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] <= 0) return false;
    int64_t reach = (shape[k] - 1) * strides[k];
    (reach < 0 ? *lo : *hi) += reach;
  }
  return true;
}

class Interpreter : public ExprFunctor<absl::Status(const PrimExpr&, Value*)>,
                    public StmtFunctor<absl::Status(const Stmt&, Flow*)> {
 public:
  Interpreter(const IRModule& module, const InterpOptions& options) : module_(module), options_(options) {}

  absl::Status RunEntry(const PrimFunc& f, const std::string& name, const KilnAny* args, int32_t num_args,
                        KilnAny* result) {
    Frame frame;
    frame.func = name;
    frame_ = &frame;
    KILN_INTERP_TRY(BindArguments(f, args, num_args));
    Flow flow;
    KILN_INTERP_TRY(Exec(f->body, &flow));
    if (result != nullptr) KILN_INTERP_TRY(WriteResult(frame, result));
    return absl::OkStatus();
  }

 private:
  using ExprFunctor::VisitExpr;
  using StmtFunctor::VisitStmt;

  // ---------------------------------------------------------------- helpers

  absl::Status Eval(const PrimExpr& e, Value* out) { return VisitExpr(e, out); }

  absl::Status EvalInt(const PrimExpr& e, int64_t* out) {
    Value v;
    KILN_INTERP_TRY(Eval(e, &v));
    if (!v.dtype.is_int_or_bool() || v.lanes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": expected an integer scalar, got ", v.dtype.ToString()));
    }
    *out = v.AsInt();
    return absl::OkStatus();
  }

  absl::Status EvalBool(const PrimExpr& e, bool* out) {
    Value v;
    KILN_INTERP_TRY(Eval(e, &v));
    if (v.lanes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": expected a scalar condition, got ", v.dtype.ToString()));
    }
    *out = v.dtype.is_floating() ? v.AsFloat() != 0 : v.AsInt() != 0;
    return absl::OkStatus();
  }

  absl::Status Exec(const Stmt& s, Flow* flow) {
    if (options_.max_steps > 0 && ++steps_ > options_.max_steps) {
      return absl::DeadlineExceededError(
          absl::StrCat(frame_->func, ": stopped after ", options_.max_steps, " statements (max_steps)"));
    }
    *flow = Flow::kNormal;
    KILN_INTERP_TRY(VisitStmt(s, flow));
    if (frame_->returned) *flow = Flow::kReturn;
    return absl::OkStatus();
  }

  bool IsBound(const VarNode* v) const { return frame_->vars.count(v) > 0; }

  // Binds v (cast to its dtype) and returns what it was bound to before, for RestoreVar.
  std::optional<Value> BindVar(const VarNode* v, Value value) { return Rebind(&frame_->vars, v, std::move(value)); }
  void RestoreVar(const VarNode* v, std::optional<Value> old) { Restore(&frame_->vars, v, std::move(old)); }
  std::optional<BufferView> BindView(const BufferNode* b, BufferView view) {
    return Rebind(&frame_->buffers, b, std::move(view));
  }
  void RestoreView(const BufferNode* b, std::optional<BufferView> old) { Restore(&frame_->buffers, b, std::move(old)); }
  template <typename Map, typename K, typename V>
  static std::optional<V> Rebind(Map* map, const K* key, V value) {
    std::optional<V> old;
    auto it = map->find(key);
    if (it != nullptr) {
      old = std::move(it->second);
      it->second = std::move(value);
    } else {
      map->emplace(key, std::move(value));
    }
    return old;
  }
  template <typename Map, typename K, typename V>
  static void Restore(Map* map, const K* key, std::optional<V> old) {
    if (old.has_value()) {
      (*map)[key] = std::move(*old);
    } else {
      map->erase(key);
    }
  }

  // Undoes bindings made for a scope (block, allocation) in reverse order when it ends.
  struct ScopeBindings {
    std::vector<std::pair<const VarNode*, std::optional<Value>>> vars;
    std::vector<std::pair<const BufferNode*, std::optional<BufferView>>> views;
    std::vector<std::unique_ptr<Allocation>> allocations;
  };
  void BindScopedVar(ScopeBindings* s, const VarNode* v, Value value) {
    s->vars.emplace_back(v, BindVar(v, std::move(value)));
  }
  void BindScopedView(ScopeBindings* s, const BufferNode* b, BufferView view) {
    s->views.emplace_back(b, BindView(b, std::move(view)));
  }
  void Unwind(ScopeBindings* s) {
    for (size_t i = s->views.size(); i-- > 0;) RestoreView(s->views[i].first, std::move(s->views[i].second));
    for (size_t i = s->vars.size(); i-- > 0;) RestoreVar(s->vars[i].first, std::move(s->vars[i].second));
    s->allocations.clear();
  }

  // The layout of `b` from its own fields, evaluated now: for buffers not declared by a statement
  // this run has seen.
  absl::Status ComputeView(const Buffer& b, BufferView* view) {
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
  absl::Status GetView(const Buffer& b, BufferView* scratch, const BufferView** view) {
    auto it = frame_->buffers.find(b.get());
    if (it != nullptr) {
      *view = &it->second;
      return absl::OkStatus();
    }
    KILN_INTERP_TRY(ComputeView(b, scratch));
    *view = scratch;
    return absl::OkStatus();
  }

  // The address of the element at `indices` (lane `lane` of the last index), checked against the
  // buffer's shape and the known memory.
  absl::Status ElementAddress(const Buffer& b, const BufferView& view, const absl::InlinedVector<Value, 4>& indices,
                              size_t lane, char** out) {
    if (indices.size() != view.shape.size()) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": buffer ", b->name, " has ", view.shape.size(),
                                                     " dimensions but is indexed with ", indices.size()));
    }
    int64_t flat = view.elem_offset;
    for (size_t d = 0; d < indices.size(); ++d) {
      const Value& iv = indices[d];
      int64_t i = iv.lanes[iv.lanes.size() == 1 ? 0 : lane].i;
      if (i < 0 || i >= view.shape[d] || (iv.dtype.is_uint() && iv.lanes[0].i < 0)) {
        std::vector<std::string> shown;
        for (size_t k = 0; k < indices.size(); ++k) {
          const Value& kv = indices[k];
          shown.push_back(absl::StrCat(kv.lanes[kv.lanes.size() == 1 ? 0 : lane].i));
        }
        return absl::OutOfRangeError(absl::StrCat(frame_->func, ": out-of-bounds access ", b->name, "[",
                                                  absl::StrJoin(shown, ", "), "]: index ", i, " of dimension ", d,
                                                  " is not in [0, ", view.shape[d], ")"));
      }
      flat += i * view.strides[d];
    }
    uintptr_t addr = reinterpret_cast<uintptr_t>(view.data) + static_cast<uintptr_t>(flat * view.elem_bytes);
    if (view.data == nullptr || !memory_.Contains(addr, static_cast<uint64_t>(view.elem_bytes))) {
      return absl::OutOfRangeError(absl::StrCat(frame_->func, ": access to ", b->name, " at element offset ", flat,
                                                " is outside its allocation"));
    }
    *out = reinterpret_cast<char*>(addr);
    return absl::OkStatus();
  }

  absl::Status EvalIndices(const Array<PrimExpr>& exprs, absl::InlinedVector<Value, 4>* out) {
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
  absl::Status Allocate(const Buffer& b, ScopeBindings* scope) {
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

  // `expected` (a buffer field) against the run-time value `actual`: an unbound variable is bound,
  // anything else must evaluate to it. Fails with `error_kind` and a message naming `label`.
  absl::Status BindOrCheck(const PrimExpr& expected, int64_t actual, const std::string& label,
                           const std::string& error_kind, ScopeBindings* scope) {
    if (const auto* v = expected.as<VarNode>(); v && !IsBound(v)) {
      Value bound = Value::Int(v->dtype, actual);
      if (scope != nullptr) {
        BindScopedVar(scope, v, std::move(bound));
      } else {
        BindVar(v, std::move(bound));
      }
      return absl::OkStatus();
    }
    int64_t value;
    KILN_INTERP_TRY(EvalInt(expected, &value));
    if (value == actual) return absl::OkStatus();
    std::string shown = absl::StrCat(value);
    if (const auto* v = expected.as<VarNode>()) shown = v->name;
    return absl::InvalidArgumentError(absl::StrCat(error_kind, ": ", frame_->func, ": argument ", label,
                                                   " has an unsatisfied constraint: ", shown, " == ", label));
  }

  // ---------------------------------------------------------------- arguments (KernelAbiChecks)

  // What the checks of one tensor argument read: the DLTensor, its shape, the compact strides of
  // that shape, and its strides (the compact ones when t->strides is NULL).
  struct TensorArg {
    const DLTensor* t = nullptr;
    std::vector<int64_t> dims, compact, strides;
  };

  static absl::Status CheckFailed(const AbiCheck& c) {
    return absl::InvalidArgumentError(absl::StrCat(c.error_kind, ": ", c.message));
  }

  // Evaluates MakePackedAPI's argument checks (the same list, analysis/abi_checks.h) in order on
  // the arguments and binds the parameters and the variables the checks define.
  absl::Status BindArguments(const PrimFunc& f, const KilnAny* args, int32_t num_args) {
    absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, frame_->func);
    if (!checks.ok()) return checks.status();
    std::unordered_map<int, TensorArg> tensors;
    for (const AbiCheck& c : *checks) {
      if (c.kind == AbiCheck::kNumArgs) {
        if (num_args != c.value || (c.value > 0 && args == nullptr)) return CheckFailed(c);
      } else if (c.kind == AbiCheck::kTypeIndex) {
        KILN_INTERP_TRY(BindParam(c, f->params[c.arg], args[c.arg]));
      } else {
        Buffer buf = f->buffer_map.Get(f->params[c.arg]);
        KILN_INTERP_TRY(CheckTensor(c, buf, args[c.arg], &tensors[c.arg]));
      }
    }
    return absl::OkStatus();
  }

  absl::Status BindParam(const AbiCheck& c, const Var& p, const KilnAny& arg) {
    DataType t = p->dtype;
    if (c.param_kind == AbiParamKind::kFloat) KILN_INTERP_TRY(interp::CheckSupported(t));
    int tindex = arg.type_index;
    if (std::find(c.type_indices.begin(), c.type_indices.end(), tindex) == c.type_indices.end()) {
      return CheckFailed(c);
    }
    switch (c.param_kind) {
      case AbiParamKind::kTensor:
        BindVar(p.get(), Value::Handle(arg.v_ptr));
        break;
      case AbiParamKind::kPointer:
        BindVar(p.get(), Value::Handle(tindex == kKilnNone ? nullptr : arg.v_ptr));
        break;
      case AbiParamKind::kBool:
        BindVar(p.get(), Value::Bool(arg.v_int64 != 0));
        break;
      case AbiParamKind::kInt:
        BindVar(p.get(), Value::Int(t, arg.v_int64));
        break;
      case AbiParamKind::kFloat: {
        Value v;
        Value in = tindex == kKilnFloat ? Value::Float(DataType::Float(64), arg.v_float64)
                                        : Value::Int(DataType::Int(64), arg.v_int64);
        KILN_INTERP_TRY(interp::CastValue(in, t, &v));
        BindVar(p.get(), std::move(v));
        break;
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckTensor(const AbiCheck& c, const Buffer& buf, const KilnAny& arg, TensorArg* ta) {
    const DLTensor* t = ta->t;
    switch (c.kind) {
      case AbiCheck::kTensorNotNull:
        ta->t = static_cast<const DLTensor*>(arg.v_ptr);
        return ta->t == nullptr ? CheckFailed(c) : absl::OkStatus();
      case AbiCheck::kNDim:
        return t->ndim == c.value ? absl::OkStatus() : CheckFailed(c);
      case AbiCheck::kDType:
        if (!DTypeAccepted(c.dtype, t->dtype.code, t->dtype.bits, t->dtype.lanes)) return CheckFailed(c);
        KILN_INTERP_TRY(interp::CheckSupported(c.dtype));
        // A compiled kernel would read through a NULL shape array; the interpreter reports it.
        if (t->ndim > 0 && t->shape == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("ValueError: ", frame_->func, ": argument ", buf->name, ".shape is NULL"));
        }
        ta->dims.assign(t->shape, t->shape + t->ndim);
        ta->compact = CompactStrides(ta->dims);
        ta->strides = ta->compact;
        if (t->strides != nullptr) ta->strides.assign(t->strides, t->strides + t->ndim);
        return absl::OkStatus();
      case AbiCheck::kShape:
        return BindOrCheckArgument(c, ta->dims[c.dim]);
      case AbiCheck::kCompactStrides:
        for (size_t k = 0; k < ta->dims.size() && t->strides != nullptr; ++k) {
          if (ta->dims[k] != 1 && t->strides[k] != ta->compact[k]) return CheckFailed(c);
        }
        return absl::OkStatus();
      case AbiCheck::kStride:
        return BindOrCheckArgument(c, ta->strides[c.dim]);
      case AbiCheck::kByteOffsetMultiple: {
        int64_t byte_offset = static_cast<int64_t>(t->byte_offset);
        if (byte_offset % c.value != 0) return CheckFailed(c);
        BindVar(c.bind.get(), Value::Int(c.bind->dtype, byte_offset / c.value));
        return absl::OkStatus();
      }
      case AbiCheck::kByteOffset: {
        int64_t expected;
        KILN_INTERP_TRY(EvalInt(c.expected, &expected));
        return static_cast<int64_t>(t->byte_offset) == expected ? absl::OkStatus() : CheckFailed(c);
      }
      case AbiCheck::kDataNotNull: {
        bool empty = std::find(ta->dims.begin(), ta->dims.end(), 0) != ta->dims.end();
        return t->data == nullptr && !empty ? CheckFailed(c) : absl::OkStatus();
      }
      case AbiCheck::kDataAligned:
        return (reinterpret_cast<uintptr_t>(t->data) & static_cast<uintptr_t>(c.value - 1)) != 0 ? CheckFailed(c)
                                                                                                  : absl::OkStatus();
      case AbiCheck::kDevice:
        if (t->device.device_type != c.value) return CheckFailed(c);
        // The last check of a tensor: it is accepted.
        return BindTensor(buf, *ta);
      case AbiCheck::kNumArgs:
      case AbiCheck::kTypeIndex:
        break;
    }
    return absl::InternalError(absl::StrCat(frame_->func, ": not a tensor check"));
  }

  // A shape or stride check: defines its variable from `actual`, or compares.
  absl::Status BindOrCheckArgument(const AbiCheck& c, int64_t actual) {
    if (c.bind.defined()) {
      BindVar(c.bind.get(), Value::Int(c.bind->dtype, actual));
      return absl::OkStatus();
    }
    int64_t expected;
    KILN_INTERP_TRY(EvalInt(c.expected, &expected));
    return expected == actual ? absl::OkStatus() : CheckFailed(c);
  }

  // Binds an accepted tensor argument: its data pointer, the memory it spans, its view.
  absl::Status BindTensor(const Buffer& buf, const TensorArg& ta) {
    const DLTensor* t = ta.t;
    BindVar(buf->data.get(), Value::Handle(t->data));
    // The memory the caller handed over: every element the tensor's own layout reaches.
    int64_t lo, hi;
    int64_t storage = buf->dtype.StorageBytes();
    if (Span(ta.dims, ta.strides, &lo, &hi)) {
      uintptr_t base = reinterpret_cast<uintptr_t>(t->data) + static_cast<uintptr_t>(t->byte_offset);
      memory_.Add(base + static_cast<uintptr_t>(lo * storage), base + static_cast<uintptr_t>((hi + 1) * storage));
    }
    BufferView view;
    KILN_INTERP_TRY(ComputeView(buf, &view));
    BindView(buf.get(), std::move(view));
    return absl::OkStatus();
  }

  absl::Status WriteResult(const Frame& frame, KilnAny* result) {
    *result = KilnAny{};
    result->type_index = kKilnNone;
    if (!frame.returned) return absl::OkStatus();
    const Value& v = frame.ret;
    if (v.lanes.size() != 1) {
      return absl::UnimplementedError(absl::StrCat(frame.func, ": cannot return a ", v.dtype.ToString(), " vector"));
    }
    if (v.dtype.is_bool()) {
      result->type_index = kKilnBool;
      result->v_int64 = v.AsInt();
    } else if (v.dtype.is_int_or_bool()) {
      result->type_index = kKilnInt;
      result->v_int64 = v.AsInt();
    } else if (v.dtype.is_floating()) {
      result->type_index = kKilnFloat;
      result->v_float64 = v.AsFloat();
    } else if (v.dtype.is_handle()) {
      result->type_index = kKilnOpaquePtr;
      result->v_ptr = v.AsPointer();
    }
    return absl::OkStatus();
  }

  // A call to PrimFunc `name` from TIR: scalar arguments bind the parameters, a buffer parameter
  // takes a data pointer and its layout from its declaration (as an internal function's must be).
  absl::Status CallFunction(const std::string& name, const CallNode* op, Value* out) {
    BaseFunc base = module_.Lookup(name);
    PrimFunc f = TryDowncast<PrimFunc>(base);
    if (!f.defined()) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": call to ", name, ", which is not a PrimFunc"));
    }
    if (f->params.size() != op->args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": ", name, " takes ", f->params.size(),
                                                     " arguments, called with ", op->args.size()));
    }
    if (depth_ >= kMaxCallDepth) {
      return absl::ResourceExhaustedError(absl::StrCat(frame_->func, ": calls nest deeper than ", kMaxCallDepth));
    }
    std::vector<Value> args(op->args.size());
    for (size_t i = 0; i < args.size(); ++i) KILN_INTERP_TRY(Eval(op->args[i], &args[i]));
    Frame frame;
    frame.func = name;
    Frame* caller = frame_;
    frame_ = &frame;
    ++depth_;
    absl::Status st = RunCallee(f, args);
    --depth_;
    frame_ = caller;
    KILN_INTERP_TRY(st);
    if (frame.returned) {
      *out = std::move(frame.ret);
    } else {
      *out = Value::Int(DataType::Int(32), 0);
      out->dtype = op->dtype;
    }
    return absl::OkStatus();
  }

  absl::Status RunCallee(const PrimFunc& f, const std::vector<Value>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
      const Var& p = f->params[i];
      if (f->buffer_map.count(p) || p->dtype.is_handle()) {
        BindVar(p.get(), args[i]);
      } else {
        Value v;
        KILN_INTERP_TRY(interp::CastValue(args[i], p->dtype, &v));
        BindVar(p.get(), std::move(v));
      }
    }
    for (const Var& p : f->params) {
      Buffer buf = f->buffer_map.Get(p);
      if (!buf.defined()) continue;
      BindVar(buf->data.get(), frame_->vars[p.get()]);
      BufferView view;
      KILN_INTERP_TRY(ComputeView(buf, &view));
      BindView(buf.get(), std::move(view));
    }
    Flow flow;
    return Exec(f->body, &flow);
  }

  // ---------------------------------------------------------------- expressions

  absl::Status VisitExprDefault_(const Object* op, Value*) override {
    return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter cannot evaluate ", op->type_key()));
  }

  absl::Status VisitExpr_(const VarNode* op, Value* out) override {
    auto it = frame_->vars.find(op);
    if (it == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": variable ", op->name, " is not bound"));
    }
    *out = it->second;
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const SizeVarNode* op, Value* out) override { return VisitExpr_(static_cast<const VarNode*>(op), out); }

  absl::Status VisitExpr_(const IntImmNode* op, Value* out) override {
    *out = Value::Int(op->dtype, op->value);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const FloatImmNode* op, Value* out) override {
    KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
    *out = Value::Float(op->dtype, op->value);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const StringImmNode* op, Value* out) override {
    *out = Value::Handle(op->value.c_str());  // the node outlives the run
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const CastNode* op, Value* out) override {
    Value v;
    KILN_INTERP_TRY(Eval(op->value, &v));
    KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
    return interp::CastValue(v, op->dtype, out);
  }

  // Evaluates both operands; a scalar operand next to a vector acts as its broadcast.
  absl::Status Operands(const BinaryNode* op, Value* a, Value* b) {
    KILN_INTERP_TRY(Eval(op->a, a));
    KILN_INTERP_TRY(Eval(op->b, b));
    if (a->lanes.size() != b->lanes.size() && a->lanes.size() != 1 && b->lanes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": operands ", a->dtype.ToString(), " and ",
                                                     b->dtype.ToString(), " have different lanes"));
    }
    return absl::OkStatus();
  }
  static Lane At(const Value& v, size_t i) { return v.lanes[v.lanes.size() == 1 ? 0 : i]; }

  absl::Status Arith(const BinaryNode* op, ArithOp kind, Value* out) {
    Value a, b;
    KILN_INTERP_TRY(Operands(op, &a, &b));
    size_t n = std::max(a.lanes.size(), b.lanes.size());
    Value r;
    r.dtype = op->dtype;
    r.lanes.resize(n);
    for (size_t i = 0; i < n; ++i) {
      absl::Status st = interp::ArithLane(kind, a.dtype, At(a, i), At(b, i), &r.lanes[i]);
      if (!st.ok()) return absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
    }
    *out = std::move(r);
    return absl::OkStatus();
  }
  absl::Status Compare(const BinaryNode* op, CompareOp kind, Value* out) {
    Value a, b;
    KILN_INTERP_TRY(Operands(op, &a, &b));
    size_t n = std::max(a.lanes.size(), b.lanes.size());
    Value r;
    r.dtype = DataType::Bool(static_cast<int>(n));
    r.lanes.resize(n);
    for (size_t i = 0; i < n; ++i) r.lanes[i].i = interp::CompareLane(kind, a.dtype, At(a, i), At(b, i)) ? 1 : 0;
    *out = std::move(r);
    return absl::OkStatus();
  }

  absl::Status VisitExpr_(const AddNode* op, Value* out) override { return Arith(op, ArithOp::kAdd, out); }
  absl::Status VisitExpr_(const SubNode* op, Value* out) override { return Arith(op, ArithOp::kSub, out); }
  absl::Status VisitExpr_(const MulNode* op, Value* out) override { return Arith(op, ArithOp::kMul, out); }
  absl::Status VisitExpr_(const DivNode* op, Value* out) override { return Arith(op, ArithOp::kDiv, out); }
  absl::Status VisitExpr_(const ModNode* op, Value* out) override { return Arith(op, ArithOp::kMod, out); }
  absl::Status VisitExpr_(const FloorDivNode* op, Value* out) override { return Arith(op, ArithOp::kFloorDiv, out); }
  absl::Status VisitExpr_(const FloorModNode* op, Value* out) override { return Arith(op, ArithOp::kFloorMod, out); }
  absl::Status VisitExpr_(const MinNode* op, Value* out) override { return Arith(op, ArithOp::kMin, out); }
  absl::Status VisitExpr_(const MaxNode* op, Value* out) override { return Arith(op, ArithOp::kMax, out); }
  absl::Status VisitExpr_(const EQNode* op, Value* out) override { return Compare(op, CompareOp::kEQ, out); }
  absl::Status VisitExpr_(const NENode* op, Value* out) override { return Compare(op, CompareOp::kNE, out); }
  absl::Status VisitExpr_(const LTNode* op, Value* out) override { return Compare(op, CompareOp::kLT, out); }
  absl::Status VisitExpr_(const LENode* op, Value* out) override { return Compare(op, CompareOp::kLE, out); }
  absl::Status VisitExpr_(const GTNode* op, Value* out) override { return Compare(op, CompareOp::kGT, out); }
  absl::Status VisitExpr_(const GENode* op, Value* out) override { return Compare(op, CompareOp::kGE, out); }

  // Scalar and/or short-circuit (the spec's rule); vectors combine lane by lane.
  absl::Status Logical(const BinaryNode* op, bool is_and, Value* out) {
    Value a;
    KILN_INTERP_TRY(Eval(op->a, &a));
    if (a.lanes.size() == 1 && (a.AsInt() != 0) != is_and) {
      *out = Value::Bool(!is_and);
      out->dtype = op->dtype;
      return absl::OkStatus();
    }
    Value b;
    KILN_INTERP_TRY(Eval(op->b, &b));
    size_t n = std::max(a.lanes.size(), b.lanes.size());
    Value r;
    r.dtype = op->dtype;
    r.lanes.resize(n);
    for (size_t i = 0; i < n; ++i) {
      bool x = At(a, i).i != 0, y = At(b, i).i != 0;
      r.lanes[i].i = (is_and ? (x && y) : (x || y)) ? 1 : 0;
    }
    *out = std::move(r);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const AndNode* op, Value* out) override { return Logical(op, true, out); }
  absl::Status VisitExpr_(const OrNode* op, Value* out) override { return Logical(op, false, out); }
  absl::Status VisitExpr_(const NotNode* op, Value* out) override {
    KILN_INTERP_TRY(Eval(op->a, out));
    for (Lane& l : out->lanes) l.i = l.i != 0 ? 0 : 1;
    out->dtype = op->dtype;
    return absl::OkStatus();
  }

  absl::Status VisitExpr_(const SelectNode* op, Value* out) override {
    Value c, t, f;
    KILN_INTERP_TRY(Eval(op->condition, &c));
    KILN_INTERP_TRY(Eval(op->true_value, &t));
    KILN_INTERP_TRY(Eval(op->false_value, &f));
    size_t n = std::max(t.lanes.size(), f.lanes.size());
    Value r;
    r.dtype = op->dtype;
    r.lanes.resize(n);
    for (size_t i = 0; i < n; ++i) r.lanes[i] = At(c, i).i != 0 ? At(t, i) : At(f, i);
    *out = std::move(r);
    return absl::OkStatus();
  }

  absl::Status VisitExpr_(const RampNode* op, Value* out) override {
    Value base, stride;
    KILN_INTERP_TRY(Eval(op->base, &base));
    KILN_INTERP_TRY(Eval(op->stride, &stride));
    Value r;
    r.dtype = op->dtype;
    r.lanes.resize(op->lanes);
    Lane cur = base.lanes[0];
    for (int i = 0; i < op->lanes; ++i) {
      r.lanes[i] = cur;
      KILN_INTERP_TRY(interp::ArithLane(ArithOp::kAdd, base.dtype, cur, stride.lanes[0], &cur));
    }
    *out = std::move(r);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const BroadcastNode* op, Value* out) override {
    Value v;
    KILN_INTERP_TRY(Eval(op->value, &v));
    out->dtype = op->dtype;
    out->lanes.assign(op->lanes, v.lanes[0]);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const ShuffleNode* op, Value* out) override {
    std::vector<Lane> all;
    for (const PrimExpr& e : op->vectors) {
      Value v;
      KILN_INTERP_TRY(Eval(e, &v));
      all.insert(all.end(), v.lanes.begin(), v.lanes.end());
    }
    Value r;
    r.dtype = op->dtype;
    for (const PrimExpr& e : op->indices) {
      int64_t k;
      KILN_INTERP_TRY(EvalInt(e, &k));
      if (k < 0 || k >= static_cast<int64_t>(all.size())) {
        return absl::OutOfRangeError(absl::StrCat(frame_->func, ": shuffle index ", k, " is not in [0, ", all.size(), ")"));
      }
      r.lanes.push_back(all[k]);
    }
    *out = std::move(r);
    return absl::OkStatus();
  }
  absl::Status VisitExpr_(const LetNode* op, Value* out) override {
    Value v;
    KILN_INTERP_TRY(Eval(op->value, &v));
    std::optional<Value> old = BindVar(op->var.get(), std::move(v));
    absl::Status st = Eval(op->body, out);
    RestoreVar(op->var.get(), std::move(old));
    return st;
  }

  absl::Status VisitExpr_(const BufferLoadNode* op, Value* out) override {
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
    int64_t elem_size = elem.bytes();
    out->dtype = op->dtype;
    out->lanes.resize(index_lanes * w);
    for (size_t j = 0; j < index_lanes; ++j) {
      if (op->predicate.defined() && At(mask, j).i == 0) {
        for (size_t k = 0; k < w; ++k) out->lanes[j * w + k].i = 0;
        continue;
      }
      char* p;
      KILN_INTERP_TRY(ElementAddress(op->buffer, *view, indices, j, &p));
      for (size_t k = 0; k < w; ++k) out->lanes[j * w + k] = interp::LoadLane(p + k * elem_size, elem);
    }
    return absl::OkStatus();
  }

  absl::Status VisitExpr_(const CallNode* op, Value* out) override {
    if (const auto* gv = op->op.as<GlobalVarNode>()) return CallFunction(gv->name, op, out);
    std::string name = OpName(op);
    const Array<PrimExpr>& args = op->args;
    auto need = [&](size_t n) -> absl::Status {
      if (args.size() >= n) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.", name, " needs ", n, " arguments"));
    };
    if (name == "if_then_else") {  // lazy: only the taken branch runs
      KILN_INTERP_TRY(need(3));
      Value c;
      KILN_INTERP_TRY(Eval(args[0], &c));
      if (c.lanes.size() == 1) return Eval(c.AsInt() != 0 ? args[1] : args[2], out);
      Value t, f;
      KILN_INTERP_TRY(Eval(args[1], &t));
      KILN_INTERP_TRY(Eval(args[2], &f));
      out->dtype = op->dtype;
      out->lanes.resize(c.lanes.size());
      for (size_t i = 0; i < c.lanes.size(); ++i) out->lanes[i] = c.lanes[i].i != 0 ? At(t, i) : At(f, i);
      return absl::OkStatus();
    }
    if (name == "ret") {
      KILN_INTERP_TRY(need(1));
      KILN_INTERP_TRY(Eval(args[0], out));
      frame_->returned = true;
      frame_->ret = *out;
      return absl::OkStatus();
    }
    if (name == "assume") {
      // A promise the compiler may rely on: a false one makes the program's meaning undefined.
      KILN_INTERP_TRY(need(1));
      bool holds;
      KILN_INTERP_TRY(EvalBool(args[0], &holds));
      if (!holds) return absl::OutOfRangeError(absl::StrCat(frame_->func, ": undefined behaviour: T.assume failed"));
      *out = Value::Bool(true);
      return absl::OkStatus();
    }
    if (name == "call_extern" || name == "call_pure_extern") {
      KILN_INTERP_TRY(need(1));
      const auto* callee = args[0].as<StringImmNode>();
      if (callee == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.", name, " needs the callee's name first"));
      }
      std::vector<Value> values(args.size() - 1);
      for (size_t i = 1; i < args.size(); ++i) KILN_INTERP_TRY(Eval(args[i], &values[i - 1]));
      absl::Status st = interp::EvalExternCall(callee->value, op->dtype, values, out);
      if (!st.ok()) return absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
      return absl::OkStatus();
    }
    if (name == "address_of") {
      KILN_INTERP_TRY(need(1));
      const auto* load = args[0].as<BufferLoadNode>();
      if (load == nullptr) return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": T.address_of needs a buffer element"));
      absl::InlinedVector<Value, 4> indices;
      KILN_INTERP_TRY(EvalIndices(load->indices, &indices));
      BufferView scratch;
      const BufferView* view;
      KILN_INTERP_TRY(GetView(load->buffer, &scratch, &view));
      int64_t flat = view->elem_offset;
      for (size_t d = 0; d < indices.size() && d < view->strides.size(); ++d) flat += indices[d].AsInt() * view->strides[d];
      *out = Value::Handle(view->data + flat * view->elem_bytes);
      return absl::OkStatus();
    }
    // A handle `args[data_i]` moved by `args[data_i + 1]` units of `unit_bytes`.
    auto offset_handle = [&](size_t data_i, int64_t unit_bytes) -> absl::Status {
      Value data;
      int64_t offset;
      KILN_INTERP_TRY(Eval(args[data_i], &data));
      KILN_INTERP_TRY(EvalInt(args[data_i + 1], &offset));
      *out = Value::Handle(static_cast<char*>(data.AsPointer()) + offset * unit_bytes);
      return absl::OkStatus();
    };
    if (name == "tvm_access_ptr") {  // (type_annotation(dtype), data, offset, extent, rw_mask)
      KILN_INTERP_TRY(need(3));
      return offset_handle(1, std::max(1, args[0].dtype().bytes()));
    }
    if (name == "handle_add_byte_offset") {
      KILN_INTERP_TRY(need(2));
      return offset_handle(0, 1);
    }
    if (name == "isnullptr") {
      KILN_INTERP_TRY(need(1));
      Value h;
      KILN_INTERP_TRY(Eval(args[0], &h));
      *out = Value::Bool(h.AsInt() == 0);
      return absl::OkStatus();
    }
    if (name == "type_annotation") {  // only a dtype carrier
      *out = Value::Int(DataType::Int(32), 0);
      out->dtype = op->dtype;
      return absl::OkStatus();
    }
    if (name == "tvm_storage_sync" || name == "start_profile_intrinsic" || name == "end_profile_intrinsic" ||
        name == "prefetch") {
      // No effect on one serial thread; barriers between threads are handled where threads run.
      *out = Value::Int(DataType::Int(32), 0);
      if (!op->dtype.is_void()) *out = Value::Int(op->dtype.is_handle() ? DataType::Int(64) : op->dtype, 0);
      out->dtype = op->dtype;
      return absl::OkStatus();
    }
    std::vector<Value> values(args.size());
    for (size_t i = 0; i < args.size(); ++i) KILN_INTERP_TRY(Eval(args[i], &values[i]));
    KILN_INTERP_TRY(interp::CheckSupported(op->dtype));
    absl::Status st = interp::EvalPureIntrinsic(name, op->dtype, values, out);
    if (st.ok()) return st;
    if (!absl::IsNotFound(st)) return absl::Status(st.code(), absl::StrCat(frame_->func, ": ", st.message()));
    const auto* o = op->op.as<OpNode>();
    std::string full = o ? o->name : "<unknown op>";
    if (IntrinsicRegistry::Global().FindByName(full) != nullptr) {
      return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter does not support intrinsic ", full));
    }
    return absl::UnimplementedError(absl::StrCat(frame_->func, ": unknown intrinsic ", full));
  }

  // ---------------------------------------------------------------- statements

  absl::Status VisitStmtDefault_(const Object* op, Flow*) override {
    return absl::UnimplementedError(absl::StrCat(frame_->func, ": the interpreter cannot execute ", op->type_key()));
  }

  absl::Status VisitStmt_(const LetStmtNode* op, Flow* flow) override {
    Value v;
    KILN_INTERP_TRY(Eval(op->value, &v));
    std::optional<Value> old = BindVar(op->var.get(), std::move(v));
    absl::Status st = Exec(op->body, flow);
    RestoreVar(op->var.get(), std::move(old));
    return st;
  }

  absl::Status VisitStmt_(const AttrStmtNode* op, Flow* flow) override {
    if ((op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") && op->node.as<IterVarNode>()) {
      const auto* iv = op->node.as<IterVarNode>();
      int64_t extent;
      KILN_INTERP_TRY(EvalInt(op->value, &extent));
      return RunThreads(op, iv->var, 0, extent, iv->thread_tag, op->body, flow);
    }
    return Exec(op->body, flow);
  }

  absl::Status VisitStmt_(const AssertStmtNode* op, Flow* flow) override {
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

  absl::Status VisitStmt_(const BufferStoreNode* op, Flow*) override {
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
      KILN_INTERP_TRY(ElementAddress(op->buffer, *view, indices, j, &p));
      for (size_t k = 0; k < w; ++k) interp::StoreLane(p + k * elem_size, elem, At(value, j * w + k));
    }
    return absl::OkStatus();
  }

  // Runs `body` for var = min, min + step, ... below min + extent; loop kinds differ only in how a
  // compiler may schedule the iterations.
  absl::Status Loop(const VarNode* var, int64_t min, int64_t extent, int64_t step, const Stmt& body, Flow* flow) {
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

  absl::Status VisitStmt_(const ForNode* op, Flow* flow) override {
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

  absl::Status VisitStmt_(const WhileNode* op, Flow* flow) override {
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

  absl::Status VisitStmt_(const BreakNode*, Flow* flow) override {
    *flow = Flow::kBreak;
    return absl::OkStatus();
  }
  absl::Status VisitStmt_(const ContinueNode*, Flow* flow) override {
    *flow = Flow::kContinue;
    return absl::OkStatus();
  }

  absl::Status VisitStmt_(const IfThenElseNode* op, Flow* flow) override {
    bool c;
    KILN_INTERP_TRY(EvalBool(op->condition, &c));
    if (c) return Exec(op->then_case, flow);
    if (op->else_case.defined()) return Exec(op->else_case, flow);
    return absl::OkStatus();
  }

  absl::Status VisitStmt_(const SeqStmtNode* op, Flow* flow) override {
    for (const Stmt& s : op->seq) {
      KILN_INTERP_TRY(Exec(s, flow));
      if (*flow != Flow::kNormal) return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  absl::Status VisitStmt_(const EvaluateNode* op, Flow*) override {
    Value v;
    return Eval(op->value, &v);
  }

  absl::Status VisitStmt_(const AllocBufferNode* op, Flow* flow) override {
    ScopeBindings scope;
    KILN_INTERP_TRY(Allocate(op->buffer, &scope));
    absl::Status st = Exec(op->body, flow);
    Unwind(&scope);
    return st;
  }

  absl::Status VisitStmt_(const DeclBufferNode* op, Flow* flow) override {
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

  absl::Status VisitStmt_(const SBlockRealizeNode* op, Flow* flow) override {
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

  absl::Status VisitStmt_(const SBlockNode* op, Flow* flow) override { return ExecBlock(op, flow); }

  absl::Status ExecBlock(const SBlockNode* block, Flow* flow) {
    ScopeBindings scope;
    absl::Status st = ExecBlockIn(block, &scope, flow);
    Unwind(&scope);
    return st;
  }

  absl::Status ExecBlockIn(const SBlockNode* block, ScopeBindings* scope, Flow* flow) {
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
  absl::Status MatchBuffer(const MatchBufferRegion& m, ScopeBindings* scope) {
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

  absl::Status MatchField(const PrimExpr& field, int64_t actual, const std::string& label, ScopeBindings* scope) {
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

  // ---------------------------------------------------------------- GPU threads

  bool ContainsSync(const Stmt& s) {
    auto it = sync_cache_.find(s.get());
    if (it != sync_cache_.end()) return it->second;
    SyncFinder finder;
    finder.VisitStmt(s);
    sync_cache_.emplace(s.get(), finder.found);
    return finder.found;
  }

  // One thread binding (thread_extent AttrStmt or thread-bound loop): without barriers inside, a
  // serial loop. With barriers, the directly nested threadIdx bindings form a thread block whose
  // innermost body must be a statement list split by barriers; each piece runs for every thread
  // before the next starts, which is what the barrier guarantees.
  absl::Status RunThreads(const StmtNode* node, const Var& var, int64_t min, int64_t extent, const std::string& tag,
                          const Stmt& body, Flow* flow) {
    if (!absl::StartsWith(tag, "threadIdx") || !ContainsSync(body)) {
      return Loop(var.get(), min, extent, 1, body, flow);
    }
    struct Axis {
      const VarNode* var;
      int64_t min, extent;
    };
    std::vector<Axis> axes = {{var.get(), min, extent}};
    Stmt inner = body;
    while (true) {
      if (const auto* attr = inner.as<AttrStmtNode>();
          attr && attr->attr_key == "thread_extent" && attr->node.as<IterVarNode>() &&
          absl::StartsWith(attr->node.as<IterVarNode>()->thread_tag, "threadIdx")) {
        int64_t e;
        KILN_INTERP_TRY(EvalInt(attr->value, &e));
        axes.push_back({attr->node.as<IterVarNode>()->var.get(), 0, e});
        inner = attr->body;
        continue;
      }
      if (const auto* loop = inner.as<ForNode>();
          loop && loop->kind == ForKind::kThreadBinding && loop->thread_binding.defined() &&
          absl::StartsWith(loop->thread_binding->thread_tag, "threadIdx") && !loop->step.defined()) {
        int64_t m, e;
        KILN_INTERP_TRY(EvalInt(loop->min, &m));
        KILN_INTERP_TRY(EvalInt(loop->extent, &e));
        axes.push_back({loop->loop_var.get(), m, e});
        inner = loop->body;
        continue;
      }
      break;
    }
    std::vector<std::vector<Stmt>> segments(1);
    if (const auto* seq = inner.as<SeqStmtNode>()) {
      for (const Stmt& s : seq->seq) {
        if (IsSync(s)) {
          segments.emplace_back();
        } else if (ContainsSync(s)) {
          return absl::UnimplementedError(absl::StrCat(
              frame_->func, ": the interpreter runs GPU threads one after another and supports tvm_storage_sync "
                            "only between the top-level statements of a thread block"));
        } else {
          segments.back().push_back(s);
        }
      }
    } else if (!IsSync(inner)) {
      return absl::UnimplementedError(absl::StrCat(
          frame_->func, ": the interpreter runs GPU threads one after another and supports tvm_storage_sync "
                        "only between the top-level statements of a thread block"));
    }
    std::vector<std::pair<const VarNode*, std::optional<Value>>> saved;
    for (const Axis& a : axes) saved.emplace_back(a.var, BindVar(a.var, Value::Int(a.var->dtype, a.min)));
    absl::Status st;
    for (const std::vector<Stmt>& segment : segments) {
      st = ForEachThread(axes, 0, segment, flow);
      if (!st.ok()) break;
    }
    for (size_t i = saved.size(); i-- > 0;) RestoreVar(saved[i].first, std::move(saved[i].second));
    return st;
  }

  template <typename Axes>
  absl::Status ForEachThread(const Axes& axes, size_t k, const std::vector<Stmt>& segment, Flow* flow) {
    if (k == axes.size()) {
      for (const Stmt& s : segment) {
        KILN_INTERP_TRY(Exec(s, flow));
        if (*flow != Flow::kNormal) {
          return absl::UnimplementedError(
              absl::StrCat(frame_->func, ": break, continue or return in a thread block split by barriers"));
        }
      }
      return absl::OkStatus();
    }
    for (int64_t i = 0; i < axes[k].extent; ++i) {
      frame_->vars[axes[k].var] = Value::Int(axes[k].var->dtype, axes[k].min + i);
      KILN_INTERP_TRY(ForEachThread(axes, k + 1, segment, flow));
    }
    return absl::OkStatus();
  }

  const IRModule& module_;
  const InterpOptions& options_;
  Frame* frame_ = nullptr;
  MemoryMap memory_;
  int64_t steps_ = 0;
  int64_t allocated_bytes_ = 0;
  int depth_ = 0;
  std::unordered_map<const Object*, bool> sync_cache_;
};

}  // namespace

absl::Status Interpret(const IRModule& module, const std::string& entry, const KilnAny* args, int32_t num_args,
                       KilnAny* result, const InterpOptions& options) {
  if (result != nullptr) {
    *result = KilnAny{};
    result->type_index = kKilnNone;
  }
  PrimFunc func;
  for (const auto& [gv, f] : module.Functions()) {
    PrimFunc pf = TryDowncast<PrimFunc>(f);
    if (pf.defined() && pf->GetGlobalSymbol() == entry) {
      func = pf;
      break;
    }
  }
  if (!func.defined()) {
    BaseFunc f = module.Lookup(entry);
    if (!f.defined()) return absl::NotFoundError(absl::StrCat("no PrimFunc named ", entry, " in the module"));
    func = TryDowncast<PrimFunc>(f);
    if (!func.defined()) return absl::InvalidArgumentError(absl::StrCat(entry, " is not a PrimFunc"));
  }
  std::string name = func->GetGlobalSymbol().empty() ? entry : func->GetGlobalSymbol();
  Interpreter interp(module, options);
  return interp.RunEntry(func, name, args, num_args, result);
}

}  // namespace kiln::tir
