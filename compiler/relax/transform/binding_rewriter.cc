#include "compiler/relax/transform/binding_rewriter.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

template <typename Ref>
Expr SetType(const Expr& expr, const Type& ty) {
  Ref ref = Downcast<Ref>(expr);
  ref.CopyOnWrite()->ty = ty;
  return ref;
}

}  // namespace

absl::StatusOr<Expr> Typed(Expr expr, const IRModule& module) {
  if (expr->ty.defined()) return expr;
  absl::StatusOr<Type> ty = InferExprType(expr, module);
  if (!ty.ok()) return ty.status();
  // Copy-on-write through the concrete node type: `expr` may still be held by the caller.
  if (expr.as<rx::CallNode>()) return SetType<rx::Call>(expr, *ty);
  if (expr.as<rx::TupleNode>()) return SetType<rx::Tuple>(expr, *ty);
  if (expr.as<rx::TupleGetItemNode>()) return SetType<rx::TupleGetItem>(expr, *ty);
  if (expr.as<rx::ShapeExprNode>()) return SetType<rx::ShapeExpr>(expr, *ty);
  if (expr.as<rx::PrimValueNode>()) return SetType<rx::PrimValue>(expr, *ty);
  if (expr.as<rx::IfNode>()) return SetType<rx::If>(expr, *ty);
  if (expr.as<rx::SeqExprNode>()) return SetType<rx::SeqExpr>(expr, *ty);
  return absl::InternalError(std::string("cannot type a ") + expr->type_key());
}

namespace {

// `exprs` with `rewrite` applied to each, or nullopt where nothing changed.
absl::StatusOr<std::optional<Array<Expr>>> MapExprs(const Array<Expr>& exprs, const LeafRewrite& rewrite) {
  Array<Expr> out;
  bool changed = false;
  for (const Expr& e : exprs) {
    absl::StatusOr<Expr> r = rewrite(e);
    if (!r.ok()) return r.status();
    changed |= !r->same_as(e);
    out.push_back(*r);
  }
  if (!changed) return std::optional<Array<Expr>>();
  return std::optional<Array<Expr>>(std::move(out));
}

absl::StatusOr<Expr> RewriteThroughTuples(const Expr& expr, const LeafRewrite& leaf) {
  const auto* tuple = expr.as<rx::TupleNode>();
  if (tuple == nullptr) return leaf(expr);
  return MapTupleFields(Downcast<rx::Tuple>(expr), [&](const Expr& f) { return RewriteThroughTuples(f, leaf); });
}

}  // namespace

absl::StatusOr<Expr> MapCallArgs(const rx::Call& call, const LeafRewrite& rewrite) {
  absl::StatusOr<std::optional<Array<Expr>>> args = MapExprs(call->args, rewrite);
  if (!args.ok()) return args.status();
  if (!args->has_value()) return Expr(call);
  rx::Call out = call;
  out.CopyOnWrite()->args = **args;
  return Expr(out);
}

absl::StatusOr<Expr> MapTupleFields(const rx::Tuple& tuple, const LeafRewrite& rewrite) {
  absl::StatusOr<std::optional<Array<Expr>>> fields = MapExprs(tuple->fields, rewrite);
  if (!fields.ok()) return fields.status();
  if (!fields->has_value()) return Expr(tuple);
  rx::Tuple out = tuple;
  out.CopyOnWrite()->fields = **fields;
  return Expr(out);
}

absl::StatusOr<Expr> RewriteCallArgs(const rx::Call& call, const LeafRewrite& leaf) {
  return MapCallArgs(call, [&](const Expr& a) { return RewriteThroughTuples(a, leaf); });
}

absl::StatusOr<Var> BlockBuilder::Emit(Expr value, const std::string& name) {
  absl::StatusOr<Expr> typed = Typed(std::move(value), module_);
  if (!typed.ok()) return typed.status();
  Var var(name, (*typed)->ty);
  bindings_.push_back(rx::VarBinding(var, *typed));
  return var;
}

Array<rx::Binding> BlockBuilder::TakeBindings() {
  Array<rx::Binding> out(bindings_);
  bindings_.clear();
  return out;
}

absl::StatusOr<IRModule> BindingRewriter::Run() {
  for (const auto& [gv, func] : module_.Functions()) {
    const auto* f = func.as<rx::FunctionNode>();
    if (f == nullptr) continue;
    current_function_ = gv->name;
    absl::StatusOr<rx::Function> rewritten = RewriteFunction(Downcast<rx::Function>(func));
    if (!rewritten.ok()) {
      return absl::Status(rewritten.status().code(),
                          absl::StrCat("in function '", gv->name, "': ", rewritten.status().message()));
    }
    // Later functions see this one's new signature (callers type their calls against it).
    IRModule next = module_;
    next.CopyOnWrite()->functions.Set(gv, *rewritten);
    module_ = next;
  }
  return module_;
}

absl::StatusOr<rx::Function> BindingRewriter::RewriteFunction(const rx::Function& func) {
  const auto* seq = func->body.as<rx::SeqExprNode>();
  if (seq == nullptr) return absl::InvalidArgumentError("the function body is not a SeqExpr");
  absl::StatusOr<Expr> body = RewriteSeq(Downcast<rx::SeqExpr>(func->body));
  if (!body.ok()) return body.status();
  if (body->same_as(func->body)) return func;
  rx::Function out = func;
  out.CopyOnWrite()->body = *body;
  return out;
}

absl::StatusOr<Expr> BindingRewriter::RewriteSeq(const rx::SeqExpr& seq) {
  Array<rx::BindingBlock> blocks;
  for (const rx::BindingBlock& block : seq->blocks) {
    BlockBuilder bb(module_);
    bool outer_dataflow = in_dataflow_block_;
    in_dataflow_block_ = block.as<rx::DataflowBlockNode>() != nullptr;
    for (const rx::Binding& b : block->bindings) {
      absl::Status st = RewriteBinding(b, &bb);
      if (!st.ok()) return st;
    }
    in_dataflow_block_ = outer_dataflow;
    Array<rx::Binding> bindings = bb.TakeBindings();
    if (bindings.empty()) continue;
    bool dataflow = block.as<rx::DataflowBlockNode>() != nullptr && KeepDataflow();
    blocks.push_back(dataflow ? rx::BindingBlock(rx::DataflowBlock(bindings, block->span))
                              : rx::BindingBlock(bindings, block->span));
  }
  BlockBuilder tail(module_);
  Expr result = seq->body;
  if (result.as<rx::CallNode>() || result.as<rx::IfNode>()) {
    // A computed result (an If branch ending in a call) is bound first, so that every pass sees
    // it as the binding it rewrites.
    Var var("res", result->ty);
    absl::Status st = RewriteBinding(rx::VarBinding(var, result), &tail);
    if (!st.ok()) return st;
    result = var;
  }
  absl::StatusOr<Expr> body = RewriteBody(result, &tail);
  if (!body.ok()) return body.status();
  Array<rx::Binding> tail_bindings = tail.TakeBindings();
  if (!tail_bindings.empty()) blocks.push_back(rx::BindingBlock(tail_bindings));
  rx::SeqExpr out(blocks, *body, seq->span);
  out.CopyOnWrite()->ty = (*body)->ty.defined() ? (*body)->ty : seq->ty;
  return Expr(out);
}

absl::Status BindingRewriter::RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) {
  Var var = binding->var;
  auto it = var_map_.find(var.get());
  if (it != var_map_.end() && it->second.as<VarNode>()) var = Downcast<Var>(it->second);
  if (const auto* vb = binding.as<rx::VarBindingNode>()) {
    absl::StatusOr<Expr> value = RewriteValue(vb->value, bb);
    if (!value.ok()) return value.status();
    bb->EmitBinding(rx::VarBinding(var, *value, vb->span));
    return absl::OkStatus();
  }
  const auto* mc = binding.as<rx::MatchCastNode>();
  absl::StatusOr<Expr> value = RewriteValue(mc->value, bb);
  if (!value.ok()) return value.status();
  bb->EmitBinding(rx::MatchCast(var, *value, mc->cast_ty, mc->span));
  return absl::OkStatus();
}

absl::StatusOr<Expr> BindingRewriter::RewriteValue(const Expr& value, BlockBuilder* bb) {
  if (const auto* f = value.as<rx::FunctionNode>()) {
    absl::StatusOr<rx::Function> out = RewriteFunction(Downcast<rx::Function>(value));
    if (!out.ok()) return out.status();
    return Expr(*out);
  }
  if (const auto* i = value.as<rx::IfNode>()) {
    absl::StatusOr<Expr> t = RewriteSeq(Downcast<rx::SeqExpr>(i->true_branch));
    if (!t.ok()) return t.status();
    absl::StatusOr<Expr> e = RewriteSeq(Downcast<rx::SeqExpr>(i->false_branch));
    if (!e.ok()) return e.status();
    rx::If out = Downcast<rx::If>(value);
    rx::IfNode* n = out.CopyOnWrite();
    n->cond = Remap(i->cond);
    n->true_branch = *t;
    n->false_branch = *e;
    return Expr(out);
  }
  return Remap(value);
}

namespace {

// Remaps each element; returns whether any changed.
template <typename T, typename F>
bool MapArray(const Array<T>& in, Array<T>* out, F f) {
  bool changed = false;
  for (const T& x : in) {
    T y = f(x);
    changed |= !y.same_as(x);
    out->push_back(y);
  }
  return changed;
}

}  // namespace

Expr BindingRewriter::Remap(const Expr& expr) const {
  if (!expr.defined() || var_map_.empty()) return expr;
  auto remap = [this](const Expr& e) { return Remap(e); };
  if (expr.as<VarNode>()) {
    auto it = var_map_.find(expr.get());
    return it == var_map_.end() ? expr : it->second;
  }
  if (const auto* t = expr.as<rx::TupleNode>()) {
    Array<Expr> fields;
    if (!MapArray(t->fields, &fields, remap)) return expr;
    rx::Tuple out = Downcast<rx::Tuple>(expr);
    out.CopyOnWrite()->fields = fields;
    return out;
  }
  if (const auto* g = expr.as<rx::TupleGetItemNode>()) {
    Expr tuple = Remap(g->tuple);
    if (tuple.same_as(g->tuple)) return expr;
    rx::TupleGetItem out = Downcast<rx::TupleGetItem>(expr);
    out.CopyOnWrite()->tuple = tuple;
    return out;
  }
  if (const auto* c = expr.as<rx::CallNode>()) {
    Expr op = Remap(c->op);
    Array<Expr> args;
    bool changed = MapArray(c->args, &args, remap);
    if (!changed && op.same_as(c->op)) return expr;
    rx::Call out = Downcast<rx::Call>(expr);
    out.CopyOnWrite()->op = op;
    out.CopyOnWrite()->args = args;
    return out;
  }
  if (const auto* i = expr.as<rx::IfNode>()) {
    Expr cond = Remap(i->cond), t = Remap(i->true_branch), f = Remap(i->false_branch);
    if (cond.same_as(i->cond) && t.same_as(i->true_branch) && f.same_as(i->false_branch)) return expr;
    rx::If out = Downcast<rx::If>(expr);
    rx::IfNode* n = out.CopyOnWrite();
    n->cond = cond;
    n->true_branch = t;
    n->false_branch = f;
    return out;
  }
  if (const auto* s = expr.as<rx::SeqExprNode>()) {
    bool changed = false;
    Array<rx::BindingBlock> blocks;
    for (const rx::BindingBlock& block : s->blocks) {
      Array<rx::Binding> bindings;
      bool block_changed = false;
      for (const rx::Binding& b : block->bindings) {
        Var var = Downcast<Var>(Remap(b->var));
        if (const auto* vb = b.as<rx::VarBindingNode>()) {
          Expr value = Remap(vb->value);
          bool same = value.same_as(vb->value) && var.same_as(b->var);
          bindings.push_back(same ? b : rx::Binding(rx::VarBinding(var, value, vb->span)));
          block_changed |= !same;
        } else {
          const auto* mc = b.as<rx::MatchCastNode>();
          Expr value = Remap(mc->value);
          bool same = value.same_as(mc->value) && var.same_as(b->var);
          bindings.push_back(same ? b : rx::Binding(rx::MatchCast(var, value, mc->cast_ty, mc->span)));
          block_changed |= !same;
        }
      }
      if (block_changed) {
        rx::BindingBlock nb = block;
        nb.CopyOnWrite()->bindings = bindings;
        blocks.push_back(nb);
      } else {
        blocks.push_back(block);
      }
      changed |= block_changed;
    }
    Expr body = Remap(s->body);
    if (!changed && body.same_as(s->body)) return expr;
    rx::SeqExpr out = Downcast<rx::SeqExpr>(expr);
    out.CopyOnWrite()->blocks = blocks;
    out.CopyOnWrite()->body = body;
    return out;
  }
  if (const auto* f = expr.as<rx::FunctionNode>()) {
    Expr body = Remap(f->body);
    if (body.same_as(f->body)) return expr;
    rx::Function out = Downcast<rx::Function>(expr);
    out.CopyOnWrite()->body = body;
    return out;
  }
  return expr;
}

const PrimFuncNode* CalledPrimFunc(const Expr& callee, const IRModule& module) {
  const auto* gv = callee.as<GlobalVarNode>();
  if (gv == nullptr || !module.defined()) return nullptr;
  BaseFunc f = module.Lookup(gv->name);
  return f.defined() ? f.as<PrimFuncNode>() : nullptr;
}

bool IsOp(const Expr& expr, const char* name) {
  const auto* op = expr.as<OpNode>();
  return op != nullptr && op->name == name;
}

rx::PrimValue MakeInt64(int64_t value) {
  rx::PrimValue v(IntImm(DataType::Int(64), value));
  v.CopyOnWrite()->ty = PrimType(DataType::Int(64), v->value);
  return v;
}

rx::StringImm MakeString(std::string value) {
  rx::StringImm s(std::move(value));
  s.CopyOnWrite()->ty = AnyType::Make();
  return s;
}

rx::DataTypeImm MakeDType(DataType dtype) {
  rx::DataTypeImm d(dtype);
  d.CopyOnWrite()->ty = AnyType::Make();
  return d;
}

rx::ShapeExpr MakeShape(Array<PrimExpr> values) {
  rx::ShapeExpr s(values);
  s.CopyOnWrite()->ty = ShapeType(values);
  return s;
}

rx::Call MakePackedCall(const std::string& name, Array<Expr> args, Type ret) {
  rx::ExternFunc f(name);
  f.CopyOnWrite()->ty = PackedFuncType::Make();
  rx::Call call(f, std::move(args), {}, {ret});
  call.CopyOnWrite()->ty = ret;
  return call;
}

}  // namespace kiln::relax::transform
