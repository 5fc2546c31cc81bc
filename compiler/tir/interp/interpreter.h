// The reference interpreter's internals, shared by its source files (not part of the library's
// interface, which is interp.h): the run-time state (values, frames, buffer views, memory map) and
// the Interpreter class, a tree walker whose members are defined by section in
//   interp.cc          running an entry, evaluation and execution helpers
//   interp_memory.cc   buffer views, scoped bindings and allocations
//   interp_args.cc     arguments (KernelAbiChecks evaluated on KilnAny values), results, calls
//   interp_expr.cc     expressions
//   interp_stmt.cc     statements (loops, blocks, match_buffer)
//   interp_threads.cc  GPU thread-bound loops and barriers
#ifndef KILN_COMPILER_TIR_INTERP_INTERPRETER_H_
#define KILN_COMPILER_TIR_INTERP_INTERPRETER_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tir/analysis/abi_checks.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/interp/interp.h"
#include "compiler/tir/interp/intrinsics.h"
#include "compiler/tir/interp/value.h"
#include "compiler/tir/op/op.h"

namespace kiln::tir::interp_internal {

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
inline constexpr int kMaxCallDepth = 64;

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

inline std::string OpName(const CallNode* op) {
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

inline bool IsSync(const Stmt& s) {
  const auto* ev = s.as<EvaluateNode>();
  const auto* call = ev ? ev->value.as<CallNode>() : nullptr;
  return call != nullptr && OpName(call) == "tvm_storage_sync";
}

inline int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

inline std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape) {
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
inline bool Span(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t* lo, int64_t* hi) {
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
                        KilnAny* result);

 private:
  using ExprFunctor::VisitExpr;
  using StmtFunctor::VisitStmt;

  // ---------------- helpers (interp.cc) and memory (interp_memory.cc)

  absl::Status Eval(const PrimExpr& e, Value* out) { return VisitExpr(e, out); }
  absl::Status EvalInt(const PrimExpr& e, int64_t* out);
  absl::Status EvalBool(const PrimExpr& e, bool* out);
  absl::Status Exec(const Stmt& s, Flow* flow);
  bool IsBound(const VarNode* v) const { return frame_->vars.count(v) > 0; }
  // Binds v (cast to its dtype) and returns what it was bound to before, for RestoreVar.
  std::optional<Value> BindVar(const VarNode* v, Value value) { return Rebind(&frame_->vars, v, std::move(value)); }
  void RestoreVar(const VarNode* v, std::optional<Value> old) { Restore(&frame_->vars, v, std::move(old)); }
  std::optional<BufferView> BindView(const BufferNode* b, BufferView view);
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
  void BindScopedVar(ScopeBindings* s, const VarNode* v, Value value);
  void BindScopedView(ScopeBindings* s, const BufferNode* b, BufferView view);
  void Unwind(ScopeBindings* s);
  absl::Status ComputeView(const Buffer& b, BufferView* view);
  absl::Status GetView(const Buffer& b, BufferView* scratch, const BufferView** view);
  absl::Status ElementAddress(const Buffer& b, const BufferView& view, const absl::InlinedVector<Value, 4>& indices,
                              size_t lane, const ir::Span& where, char** out);
  // `st` with " (at FILE:LINE:COL)" added: the span of the faulting node, else of the statement
  // being executed. The faults checked mode reports (tir/transform/instrument_checks.cc) carry it,
  // so a compiled kernel and the interpreter word them alike.
  absl::Status Located(const absl::Status& st, const ir::Span& span) const;
  absl::Status EvalIndices(const Array<PrimExpr>& exprs, absl::InlinedVector<Value, 4>* out);
  absl::Status Allocate(const Buffer& b, ScopeBindings* scope);
  absl::Status BindOrCheck(const PrimExpr& expected, int64_t actual, const std::string& label,
                           const std::string& error_kind, ScopeBindings* scope);

  // ---------------- arguments (KernelAbiChecks), results, calls: interp_args.cc

  // What the checks of one tensor argument read: the DLTensor, its shape, the compact strides of
  // that shape, and its strides (the compact ones when t->strides is NULL).
  struct TensorArg {
    const DLTensor* t = nullptr;
    std::vector<int64_t> dims, compact, strides;
  };
  static absl::Status CheckFailed(const AbiCheck& c);
  absl::Status BindArguments(const PrimFunc& f, const KilnAny* args, int32_t num_args);
  absl::Status BindParam(const AbiCheck& c, const Var& p, const KilnAny& arg);
  absl::Status CheckTensor(const AbiCheck& c, const Buffer& buf, const KilnAny& arg, TensorArg* ta);
  absl::Status BindOrCheckArgument(const AbiCheck& c, int64_t actual);
  absl::Status BindTensor(const Buffer& buf, const TensorArg& ta);
  absl::Status WriteResult(const Frame& frame, KilnAny* result);
  absl::Status CallFunction(const std::string& name, const CallNode* op, Value* out);
  absl::Status RunCallee(const PrimFunc& f, const std::vector<Value>& args);

  // ---------------- expressions: interp_expr.cc

  absl::Status VisitExprDefault_(const Object* op, Value*) override;
  absl::Status VisitExpr_(const VarNode* op, Value* out) override;
  absl::Status VisitExpr_(const SizeVarNode* op, Value* out) override { return VisitExpr_(static_cast<const VarNode*>(op), out); }
  absl::Status VisitExpr_(const IntImmNode* op, Value* out) override;
  absl::Status VisitExpr_(const FloatImmNode* op, Value* out) override;
  absl::Status VisitExpr_(const StringImmNode* op, Value* out) override;
  absl::Status VisitExpr_(const CastNode* op, Value* out) override;
  absl::Status Operands(const BinaryNode* op, Value* a, Value* b);
  static Lane At(const Value& v, size_t i) { return v.lanes[v.lanes.size() == 1 ? 0 : i]; }
  absl::Status Arith(const BinaryNode* op, ArithOp kind, Value* out);
  absl::Status Compare(const BinaryNode* op, CompareOp kind, Value* out);
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
  absl::Status Logical(const BinaryNode* op, bool is_and, Value* out);
  absl::Status VisitExpr_(const AndNode* op, Value* out) override { return Logical(op, true, out); }
  absl::Status VisitExpr_(const OrNode* op, Value* out) override { return Logical(op, false, out); }
  absl::Status VisitExpr_(const NotNode* op, Value* out) override;
  absl::Status VisitExpr_(const SelectNode* op, Value* out) override;
  absl::Status VisitExpr_(const RampNode* op, Value* out) override;
  absl::Status VisitExpr_(const BroadcastNode* op, Value* out) override;
  absl::Status VisitExpr_(const ShuffleNode* op, Value* out) override;
  absl::Status VisitExpr_(const LetNode* op, Value* out) override;
  absl::Status VisitExpr_(const BufferLoadNode* op, Value* out) override;
  absl::Status VisitExpr_(const CallNode* op, Value* out) override;

  // ---------------- statements: interp_stmt.cc

  absl::Status VisitStmtDefault_(const Object* op, Flow*) override;
  absl::Status VisitStmt_(const LetStmtNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const AttrStmtNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const AssertStmtNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const BufferStoreNode* op, Flow*) override;
  absl::Status Loop(const VarNode* var, int64_t min, int64_t extent, int64_t step, const Stmt& body, Flow* flow);
  absl::Status VisitStmt_(const ForNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const WhileNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const BreakNode*, Flow* flow) override;
  absl::Status VisitStmt_(const ContinueNode*, Flow* flow) override;
  absl::Status VisitStmt_(const IfThenElseNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const SeqStmtNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const EvaluateNode* op, Flow*) override;
  absl::Status VisitStmt_(const AllocBufferNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const DeclBufferNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const SBlockRealizeNode* op, Flow* flow) override;
  absl::Status VisitStmt_(const SBlockNode* op, Flow* flow) override { return ExecBlock(op, flow); }
  absl::Status ExecBlock(const SBlockNode* block, Flow* flow);
  absl::Status ExecBlockIn(const SBlockNode* block, ScopeBindings* scope, Flow* flow);
  absl::Status MatchBuffer(const MatchBufferRegion& m, ScopeBindings* scope);
  absl::Status MatchField(const PrimExpr& field, int64_t actual, const std::string& label, ScopeBindings* scope);

  // ---------------- GPU threads: interp_threads.cc

  bool ContainsSync(const Stmt& s);
  absl::Status RunThreads(const StmtNode* node, const Var& var, int64_t min, int64_t extent, const std::string& tag,
                          const Stmt& body, Flow* flow);
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
  const StmtNode* stmt_ = nullptr;  // the statement being executed (innermost)
  MemoryMap memory_;
  int64_t steps_ = 0;
  int64_t allocated_bytes_ = 0;
  int depth_ = 0;
  std::unordered_map<const Object*, bool> sync_cache_;
};

}  // namespace kiln::tir::interp_internal

#endif  // KILN_COMPILER_TIR_INTERP_INTERPRETER_H_
