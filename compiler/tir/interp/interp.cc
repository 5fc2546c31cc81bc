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

#include "compiler/tir/analysis/allocation_size.h"
#include "compiler/tir/analysis/scalable_vectors.h"
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

absl::Status Interpreter::RunEntry(const PrimFunc& f, const std::string& name, const KilnAny* args, int32_t num_args,
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

absl::Status Interpreter::EvalInt(const PrimExpr& e, int64_t* out) {
  Value v;
  KILN_INTERP_TRY(Eval(e, &v));
  if (!v.dtype.is_int_or_bool() || v.lanes.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": expected an integer scalar, got ", v.dtype.ToString()));
  }
  *out = v.AsInt();
  return absl::OkStatus();
}

absl::Status Interpreter::EvalBool(const PrimExpr& e, bool* out) {
  Value v;
  KILN_INTERP_TRY(Eval(e, &v));
  if (v.lanes.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(frame_->func, ": expected a scalar condition, got ", v.dtype.ToString()));
  }
  *out = v.dtype.is_floating() ? v.AsFloat() != 0 : v.AsInt() != 0;
  return absl::OkStatus();
}

absl::Status Interpreter::Exec(const Stmt& s, Flow* flow) {
  if (options_.max_steps > 0 && ++steps_ > options_.max_steps) {
    return absl::DeadlineExceededError(
        absl::StrCat(frame_->func, ": stopped after ", options_.max_steps, " statements (max_steps)"));
  }
  *flow = Flow::kNormal;
  const StmtNode* outer = stmt_;
  stmt_ = s.get();
  absl::Status st = VisitStmt(s, flow);
  stmt_ = outer;
  KILN_INTERP_TRY(st);
  if (frame_->returned) *flow = Flow::kReturn;
  return absl::OkStatus();
}

absl::Status Interpreter::Located(const absl::Status& st, const ir::Span& span) const {
  ir::Span where = span.defined() || stmt_ == nullptr ? span : stmt_->span;
  if (st.ok() || !where.defined()) return st;
  return absl::Status(st.code(), absl::StrCat(st.message(), " (at ", where.ToString(), ")"));
}

// The address of the element at `indices` (lane `lane` of the last index), checked against the
// buffer's shape and the known memory.
absl::Status Interpreter::ElementAddress(const Buffer& b, const BufferView& view,
                                         const absl::InlinedVector<Value, 4>& indices, size_t lane, const ir::Span& where,
                                         char** out) {
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
      return Located(absl::OutOfRangeError(absl::StrCat(frame_->func, ": out-of-bounds access ", b->name, "[",
                                                        absl::StrJoin(shown, ", "), "]: index ", i, " of dimension ",
                                                        d, " is not in [0, ", view.shape[d], ")")),
                     where);
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

// `expected` (a buffer field) against the run-time value `actual`: an unbound variable is bound,
// anything else must evaluate to it. Fails with `error_kind` and a message naming `label`.
absl::Status Interpreter::BindOrCheck(const PrimExpr& expected, int64_t actual, const std::string& label,
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

}  // namespace kiln::tir::interp_internal

namespace kiln::tir {

using namespace ir;  // NOLINT

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
  // Values here are fixed lane vectors: vscale has no value to interpret a scalable one with.
  absl::Status scalable = RejectScalableVectors(module, "the TIR interpreter");
  if (!scalable.ok()) return scalable;
  absl::Status sizes = CheckAllocationSizes(module);  // an allocation whose index would wrap
  if (!sizes.ok()) return sizes;
  interp_internal::Interpreter interp(module, options);
  return interp.RunEntry(func, name, args, num_args, result);
}

}  // namespace kiln::tir
