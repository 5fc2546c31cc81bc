// LegalizeOps: rewrites every call of a Relax operator in the module's Relax functions with the
// legalization its family registered (table.h), usually R.call_tir of a new PrimFunc. Calls of the
// operators the VM runs itself (kVMOps) stay; a call of any other operator without an entry is an
// error naming it and its line, so nothing reaches code generation unlowered.
#include "compiler/relax/legalize/legalize.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/table.h"
#include "compiler/relax/op/op.h"
#include "compiler/tir/functor.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

const LegalizeTable& Table() {
  static const LegalizeTable* table = [] {
    auto* t = new LegalizeTable;
    RegisterElementwiseOps(t);
    RegisterReduceOps(t);
    RegisterManipulateOps(t);
    RegisterIndexOps(t);
    RegisterCreateOps(t);
    RegisterNNOps(t);
    RegisterLinalgOps(t);
    RegisterConvOps(t);
    RegisterPoolOps(t);
    RegisterAttentionOps(t);
    return t;
  }();
  return *table;
}

// Operators lowered later (CallTIRRewrite, VMShapeLower, LowerRuntimeBuiltin) or run by the VM.
bool IsVMOp(const std::string& name) {
  static const std::unordered_set<std::string>* ops = new std::unordered_set<std::string>{
      "relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad", "relax.call_dps_packed",
      "relax.call_packed", "relax.call_pure_packed", "relax.call_builtin_with_ctx", "relax.call_inplace_packed",
      "relax.invoke_closure", "relax.invoke_pure_closure", "relax.make_closure", "relax.shape_of",
      "relax.to_vdevice", "relax.hint_on_device", "relax.tensor_to_shape", "relax.print", "relax.assert_op",
      "relax.null_value", "relax.dist.call_tir_local_view",
  };
  if (ops->count(name)) return true;
  for (const char* prefix : {"relax.memory.", "relax.vm.", "relax.builtin.alloc_tensor"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string Spelling(const std::string& op_name) {
  const OpSchema* s = OpRegistry::Global().FindByName(op_name);
  return "R." + (s ? s->script_name : op_name);
}

std::string Where(const Span& span) {
  if (!span.defined()) return "at an unknown line";
  std::string where = absl::StrCat("at line ", span.line);
  if (!span.source_name().empty()) absl::StrAppend(&where, " of ", span.source_name());
  return where;
}

class Legalizer {
 public:
  explicit Legalizer(LegalizeContext* ctx) : ctx_(ctx) {}

  absl::StatusOr<Expr> Visit(const Expr& e, const Span& outer) {
    if (const auto* call = e.as<rx::CallNode>()) return VisitCall(GetRef<rx::Call>(call), outer);
    if (const auto* seq = e.as<rx::SeqExprNode>()) return VisitSeq(GetRef<rx::SeqExpr>(seq), outer);
    if (const auto* f = e.as<rx::FunctionNode>()) {
      absl::StatusOr<Expr> body = Visit(f->body, f->span.defined() ? f->span : outer);
      if (!body.ok()) return body.status();
      if (body->same_as(f->body)) return e;
      rx::Function out = GetRef<rx::Function>(f);
      out.CopyOnWrite()->body = *body;
      return Expr(out);
    }
    if (const auto* i = e.as<rx::IfNode>()) {
      absl::StatusOr<Expr> t = Visit(i->true_branch, outer);
      if (!t.ok()) return t.status();
      absl::StatusOr<Expr> f = Visit(i->false_branch, outer);
      if (!f.ok()) return f.status();
      if (t->same_as(i->true_branch) && f->same_as(i->false_branch)) return e;
      rx::If out = GetRef<rx::If>(i);
      out.CopyOnWrite()->true_branch = *t;
      out.CopyOnWrite()->false_branch = *f;
      return Expr(out);
    }
    if (const auto* t = e.as<rx::TupleNode>()) {
      absl::StatusOr<Array<Expr>> fields = VisitAll(t->fields, outer);
      if (!fields.ok()) return fields.status();
      if (fields->same_as(t->fields)) return e;
      rx::Tuple out = GetRef<rx::Tuple>(t);
      out.CopyOnWrite()->fields = *fields;
      return Expr(out);
    }
    if (const auto* g = e.as<rx::TupleGetItemNode>()) {
      absl::StatusOr<Expr> tuple = Visit(g->tuple, outer);
      if (!tuple.ok()) return tuple.status();
      if (tuple->same_as(g->tuple)) return e;
      rx::TupleGetItem out = GetRef<rx::TupleGetItem>(g);
      out.CopyOnWrite()->tuple = *tuple;
      return Expr(out);
    }
    return e;
  }

 private:
  absl::StatusOr<Array<Expr>> VisitAll(const Array<Expr>& in, const Span& outer) {
    Array<Expr> out;
    bool changed = false;
    for (const Expr& a : in) {
      absl::StatusOr<Expr> v = Visit(a, outer);
      if (!v.ok()) return v.status();
      changed |= !v->same_as(a);
      out.push_back(*v);
    }
    return changed ? out : in;
  }

  absl::StatusOr<Expr> VisitCall(rx::Call call, const Span& outer) {
    const Span& span = call->span.defined() ? call->span : outer;
    absl::StatusOr<Array<Expr>> args = VisitAll(call->args, span);
    if (!args.ok()) return args.status();
    if (!args->same_as(call->args)) call.CopyOnWrite()->args = *args;
    const auto* op = call->op.as<OpNode>();
    if (op == nullptr || IsVMOp(op->name)) return Expr(call);
    auto it = Table().find(op->name);
    if (it == Table().end()) {
      return absl::InvalidArgumentError(absl::StrCat("LegalizeOps: ", Spelling(op->name), " (", op->name, ") ",
                                                     Where(span), " has no legalization"));
    }
    absl::StatusOr<Expr> out = it->second(call, ctx_);
    if (!out.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("LegalizeOps: cannot legalize ", Spelling(op->name), " ",
                                                     Where(span), ": ", out.status().message()));
    }
    return out;
  }

  absl::StatusOr<Expr> VisitSeq(const rx::SeqExpr& seq, const Span& outer) {
    Array<rx::BindingBlock> blocks;
    bool changed = false;
    for (const rx::BindingBlock& block : seq->blocks) {
      Array<rx::Binding> bindings;
      bool block_changed = false;
      for (const rx::Binding& b : block->bindings) {
        const Span& span = b->span.defined() ? b->span : outer;
        if (const auto* vb = b.as<rx::VarBindingNode>()) {
          absl::StatusOr<Expr> v = Visit(vb->value, span);
          if (!v.ok()) return v.status();
          if (v->same_as(vb->value)) {
            bindings.push_back(b);
          } else {
            rx::VarBinding nb = GetRef<rx::VarBinding>(vb);
            nb.CopyOnWrite()->value = *v;
            bindings.push_back(nb);
            block_changed = true;
          }
        } else if (const auto* mc = b.as<rx::MatchCastNode>()) {
          absl::StatusOr<Expr> v = Visit(mc->value, span);
          if (!v.ok()) return v.status();
          if (v->same_as(mc->value)) {
            bindings.push_back(b);
          } else {
            rx::MatchCast nb = GetRef<rx::MatchCast>(mc);
            nb.CopyOnWrite()->value = *v;
            bindings.push_back(nb);
            block_changed = true;
          }
        } else {
          bindings.push_back(b);
        }
      }
      if (block_changed) {
        rx::BindingBlock nb = block;
        if (block.as<rx::DataflowBlockNode>()) {
          nb.CopyOnWrite<rx::DataflowBlockNode>()->bindings = bindings;
        } else {
          nb.CopyOnWrite()->bindings = bindings;
        }
        blocks.push_back(nb);
        changed = true;
      } else {
        blocks.push_back(block);
      }
    }
    absl::StatusOr<Expr> body = Visit(seq->body, outer);
    if (!body.ok()) return body.status();
    if (!changed && body->same_as(seq->body)) return Expr(seq);
    rx::SeqExpr out = seq;
    out.CopyOnWrite()->blocks = blocks;
    out.CopyOnWrite()->body = *body;
    return Expr(out);
  }

  LegalizeContext* ctx_;
};

}  // namespace

std::vector<std::string> LegalizedOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<IRModule> LegalizeOps(const IRModule& module) {
  LegalizeContext ctx(module);
  // The functions as they were: the PrimFuncs the context adds are appended after them.
  std::vector<std::pair<GlobalVar, BaseFunc>> funcs = module.Functions();
  std::vector<std::pair<GlobalVar, Expr>> rewritten;
  Legalizer legalizer(&ctx);
  for (const auto& [gv, func] : funcs) {
    if (!func.as<rx::FunctionNode>()) continue;
    absl::StatusOr<Expr> out = legalizer.Visit(func, func->span);
    if (!out.ok()) return out.status();
    if (!out->same_as(func)) rewritten.emplace_back(gv, *out);
  }
  IRModule result = ctx.module();
  for (const auto& [gv, f] : rewritten) result.Add(gv, Downcast<BaseFunc>(f));
  return result;
}

}  // namespace kiln::relax::legalize
