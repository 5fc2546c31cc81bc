// The interpreter's GPU thread-bound loops: serial execution, and barriers between threads run
// one segment at a time (see interpreter.h).
#include "compiler/tir/interp/interpreter.h"

namespace kiln::tir::interp_internal {

bool Interpreter::ContainsSync(const Stmt& s) {
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
absl::Status Interpreter::RunThreads(const StmtNode* node, const Var& var, int64_t min, int64_t extent,
                                     const std::string& tag, const Stmt& body, Flow* flow) {
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

}  // namespace kiln::tir::interp_internal
