// SplitHostDevice: a PrimFunc that binds GPU threads becomes host code plus device kernels, as in
// TVM's SplitHostDevice. Each outermost thread-bound region (a `thread_extent` AttrStmt from
// T.launch_thread, or a loop bound with T.thread_binding) is outlined into a kernel PrimFunc:
//
//   * its params are the region's free variables, buffer data handles first, then scalars (the
//     order TVM uses, so a launcher can pass buffers and scalars positionally);
//   * thread-bound loops inside it are rewritten into `thread_extent` AttrStmts over a thread
//     IterVar (a loop with a non-zero min binds its loop var to min + thread index), so device
//     codegen sees one form: AttrStmt(IterVar(tag), "thread_extent", extent, body);
//   * attrs: global_symbol "<name>_kernel[_k]", calling_conv 2 (device kernel launch),
//     "tir.kernel_launch_params" = the thread tags in launch order, then
//     "tir.use_dyn_shared_memory" when the region allocates "shared.dyn" memory (one constant-size
//     allocation, whose byte size the host passes last), "target" = the device target.
//
// The region in the host function is replaced by
//   T.call_packed("<kernel>", params..., extent of each launch tag...)
// so the launch sizes are computed on the host from host values (symbolic shapes included). A
// launch extent that depends on a value defined inside the region cannot be computed there and
// is rejected, as is one tag launched with two different extents in a kernel.
//
// Run it on flattened TIR (after FlattenBuffer): kernels then index 1-D buffers through their
// data handles, and the host keeps the function's params and buffer_map (the argument contract).
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/analysis/device_kernel.h"
#include "compiler/tir/analysis/free_vars.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

bool IsThreadRegion(const Stmt& s) {
  if (const auto* f = s.as<ForNode>()) return f->kind == ForKind::kThreadBinding;
  if (const auto* a = s.as<AttrStmtNode>()) return a->attr_key == "thread_extent" && a->node.as<IterVarNode>();
  return false;
}

// Thread-bound loops -> thread_extent AttrStmts; collects the launch tags and extents in order.
class Normalizer : public StmtExprMutator {
 public:
  struct Launch {
    std::string tag;
    PrimExpr extent;
  };
  std::vector<Launch> launches;
  std::vector<Var> thread_vars;
  absl::Status status;

 private:
  Stmt VisitStmt_(const ForNode* op) override {
    if (op->kind != ForKind::kThreadBinding) return StmtExprMutator::VisitStmt_(op);
    std::string tag = op->thread_binding.defined() ? op->thread_binding->thread_tag : "";
    if (tag.empty()) {
      Fail(absl::StrCat("loop ", op->loop_var->name, " is a thread binding without a thread tag"));
      return GetRef<Stmt>(op);
    }
    if (op->step.defined() && !IsOne(op->step)) {
      Fail(absl::StrCat("thread-bound loop ", op->loop_var->name, " has a step other than 1"));
      return GetRef<Stmt>(op);
    }
    Var tv = IsZero(op->min) ? op->loop_var : Var(op->loop_var->name + "_t", op->loop_var.dtype());
    IterVar iv = Record(tag, tv, op->extent);
    Stmt body = VisitStmt(op->body);
    if (!tv.same_as(op->loop_var)) body = LetStmt(op->loop_var, Add(tv, op->min), body);
    return AttrStmt(iv, "thread_extent", op->extent, body);
  }
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    const auto* iv = op->node.as<IterVarNode>();
    if (op->attr_key != "thread_extent" || iv == nullptr) return StmtExprMutator::VisitStmt_(op);
    IterVar bound = Record(iv->thread_tag, iv->var, op->value);
    return AttrStmt(bound, "thread_extent", op->value, VisitStmt(op->body));
  }

  // Called before the body is visited, so that launches are listed outermost first.
  IterVar Record(const std::string& tag, const Var& var, const PrimExpr& extent) {
    if (tag.rfind("blockIdx.", 0) != 0 && tag.rfind("threadIdx.", 0) != 0) {
      Fail(absl::StrCat("thread tag ", tag, " is not blockIdx.x/y/z or threadIdx.x/y/z"));
    }
    thread_vars.push_back(var);
    auto it = std::find_if(launches.begin(), launches.end(), [&](const Launch& l) { return l.tag == tag; });
    if (it == launches.end()) {
      launches.push_back({tag, extent});
    } else if (!StructuralEqual(it->extent, extent)) {
      Fail(absl::StrCat(tag, " is launched with two different extents in one kernel"));
    }
    return IterVar(Range(IntImm(extent.dtype(), 0), extent), var, IterVarType::kThreadIndex, tag);
  }

  static bool IsZero(const PrimExpr& e) {
    const auto* i = e.as<IntImmNode>();
    return i != nullptr && i->value == 0;
  }
  static bool IsOne(const PrimExpr& e) {
    const auto* i = e.as<IntImmNode>();
    return i != nullptr && i->value == 1;
  }
  void Fail(const std::string& msg) {
    if (status.ok()) status = absl::InvalidArgumentError(msg);
  }
};

// TVM's launch tag for the dynamic shared memory size, passed after the thread extents.
constexpr char kDynamicSharedTag[] = "tir.use_dyn_shared_memory";

// The bytes of the region's "shared.dyn" allocation (0 without one); it must have a constant size.
absl::StatusOr<int64_t> DynamicSharedBytes(const Stmt& body) {
  struct Finder : StmtExprVisitor {
    int64_t bytes = 0;
    absl::Status status;
    void VisitStmt_(const AllocBufferNode* op) override {
      const Buffer& b = op->buffer;
      if (b->scope() == "shared.dyn") {
        std::optional<int64_t> n = ConstantElementCount(b);
        if (!n) {
          status = absl::InvalidArgumentError(absl::StrCat("dynamic shared allocation ", b->name, " has a non-constant size"));
        } else {
          bytes += *n * b->dtype.StorageBytes();
        }
      }
      StmtExprVisitor::VisitStmt_(op);
    }
  } finder;
  finder.VisitStmt(body);
  if (!finder.status.ok()) return finder.status;
  return finder.bytes;
}

class Splitter : public StmtExprMutator {
 public:
  Splitter(std::string name, std::string target) : name_(std::move(name)), target_(std::move(target)) {}
  std::vector<PrimFunc> kernels;
  absl::Status status;

  Stmt VisitStmt(const Stmt& s) override {
    if (!IsThreadRegion(s)) return StmtExprMutator::VisitStmt(s);
    if (!status.ok()) return s;
    Normalizer norm;
    Stmt body = norm.VisitStmt(s);
    if (!norm.status.ok()) {
      status = absl::InvalidArgumentError(absl::StrCat(name_, ": ", norm.status.message()));
      return s;
    }
    std::vector<Var> free = FreeVars(body, norm.thread_vars);
    std::unordered_set<const VarNode*> free_set;
    for (const Var& v : free) free_set.insert(v.get());
    // Launch sizes are evaluated on the host: they may use only what the host has.
    std::unordered_set<const VarNode*> thread_set;
    for (const Var& v : norm.thread_vars) thread_set.insert(v.get());
    for (const auto& l : norm.launches) {
      for (const Var& v : FreeVars(Evaluate(l.extent))) {
        if (thread_set.count(v.get()) || !free_set.count(v.get())) {
          status = absl::InvalidArgumentError(absl::StrCat(name_, ": the extent of ", l.tag, " uses ", v->name,
                                                           ", which is not known before the kernel launches"));
          return s;
        }
      }
    }
    std::stable_partition(free.begin(), free.end(), [](const Var& v) { return v.dtype().is_handle(); });
    std::string kernel_name = absl::StrCat(name_, "_kernel", kernels.empty() ? "" : absl::StrCat("_", kernels.size()));
    Map<String, ObjectRef> attrs;
    attrs.Set(String("global_symbol"), String(kernel_name));
    attrs.Set(String(driver::kCallingConvAttr), IntImm(DataType::Int(32), kDeviceKernelLaunchCallingConv));
    Array<ObjectRef> tags;
    for (const auto& l : norm.launches) tags.push_back(String(l.tag));
    absl::StatusOr<int64_t> dynamic_shared = DynamicSharedBytes(body);
    if (!dynamic_shared.ok()) {
      status = absl::InvalidArgumentError(absl::StrCat(name_, ": ", dynamic_shared.status().message()));
      return s;
    }
    if (*dynamic_shared > 0) tags.push_back(String(kDynamicSharedTag));
    attrs.Set(String("tir.kernel_launch_params"), tags);
    attrs.Set(String("target"), String(target_));
    kernels.push_back(PrimFunc(Array<Var>(free), body, Type(), {}, attrs));

    Array<PrimExpr> args = {StringImm(kernel_name)};
    for (const Var& v : free) args.push_back(v);
    for (const auto& l : norm.launches) args.push_back(l.extent);
    if (*dynamic_shared > 0) args.push_back(IntImm(DataType::Int(64), *dynamic_shared));
    return Evaluate(Call(DataType::Int(32), Op("tirx.tvm_call_packed"), args));
  }

 private:
  std::string name_, target_;
};

}  // namespace

absl::StatusOr<SplitFunctions> SplitHostDevice(const PrimFunc& f, const std::string& name,
                                               const std::string& device_target) {
  Splitter splitter(name, device_target);
  Stmt host_body = splitter.VisitStmt(f->body);
  if (!splitter.status.ok()) return splitter.status;
  SplitFunctions out;
  out.host = splitter.kernels.empty() ? f : WithBody(f, host_body);
  out.kernels = std::move(splitter.kernels);
  return out;
}

}  // namespace kiln::tir::transform
