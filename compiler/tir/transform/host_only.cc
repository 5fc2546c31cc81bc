// CheckHostOnly: the host/device split as it stands for CPU targets ("llvm", "c"). A function that
// binds GPU threads (a thread_binding loop, T.launch_thread -> AttrStmt "thread_extent", or a
// "virtual_thread" attribute, or a tile-dialect scope id such as T.cta_id) is a GPU kernel: running it serially on the CPU would change what
// its thread-indexed code computes (and its shared-memory/synchronisation builtins have no CPU
// meaning), so it is rejected with a message naming the thread and the target. Splitting such
// functions into host and device parts belongs to the GPU targets.
// The other AttrStmts (pragmas and similar scheduling hints) are removed: no CPU backend reads
// them, and the lowered form is simpler without them.
#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

class HostChecker : public StmtExprMutator {
 public:
  HostChecker(std::string name, std::string target) : name_(std::move(name)), target_(std::move(target)) {}
  absl::Status status() const { return status_; }

 private:
  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding) {
      std::string tag = op->thread_binding.defined() ? op->thread_binding->thread_tag : "";
      Fail(absl::StrCat("loop ", op->loop_var->name, " is bound to GPU thread ", tag.empty() ? "(unknown)" : tag));
      return GetRef<Stmt>(op);
    }
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
      const auto* iv = op->node.as<IterVarNode>();
      std::string tag = iv ? iv->thread_tag : "";
      Fail(absl::StrCat("launches GPU thread ", tag.empty() ? op->attr_key : tag));
      return GetRef<Stmt>(op);
    }
    return VisitStmt(op->body);
  }

  // The tile dialect's scope ids (T.cta_id, T.warp_id, ...) index GPU thread hierarchies too.
  Stmt VisitStmt_(const ScopeIdDefStmtNode* op) override {
    Fail(absl::StrCat("defines GPU scope ids with T.", ScopeIdFunctionName(op->scope)));
    return GetRef<Stmt>(op);
  }

  void Fail(const std::string& what) {
    if (!status_.ok()) return;
    status_ = absl::InvalidArgumentError(absl::StrCat(
        name_, ": ", what, "; target '", target_,
        "' runs on the CPU and cannot execute GPU kernels (compile it for a GPU target such as cuda)"));
  }

  std::string name_, target_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<PrimFunc> CheckHostOnly(const PrimFunc& f, const std::string& name, const std::string& target_kind) {
  HostChecker c(name, target_kind);
  Stmt body = c.VisitStmt(f->body);
  if (!c.status().ok()) return c.status();
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
