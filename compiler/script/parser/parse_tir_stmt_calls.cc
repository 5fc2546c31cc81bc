// TVMScript parser, TIR statements spelled as calls: T.evaluate, T.bind, T.break_loop /
// T.continue_loop, T.attr, T.func_attr, and the thread bindings T.launch_thread / T.env_thread /
// T.iter_var. A call that opens a scope (T.bind, T.attr, T.launch_thread) covers the rest of the
// enclosing block, or the body of the `with` it is the context of.
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.func_attr({...}): attributes of the enclosing T.prim_func.
Value CallFuncAttr(Parser& p, CallArgs& a, const TirCall& c) {
  builder::PrimFuncData* fd = p.tir_.func();
  if (!fd) p.Fail(c.span, "T.func_attr must be used inside a T.prim_func");
  // As TVM's builder requires: no loop, block, if or binding frame is open around it.
  if (p.tir_.depth() != 1) p.Fail(c.span, "T.func_attr must be at the top of the T.prim_func body, outside loops, blocks and bindings");
  c.Need(1, 1);
  for (const auto& [k, v] : p.ToAttrMap(a.args[0], c.span).items()) {
    if (fd->is_private && k.str() == "global_symbol") {
      p.Fail(c.span, "a private T.prim_func has no global_symbol: drop private=True or the attribute");
    }
    if (fd->attrs.count(k)) p.Fail(c.span, absl::StrCat("T.func_attr sets \"", k.str(), "\" twice in one function"));
    fd->attrs.Set(k, v);
  }
  return Value::None();
}

// T.evaluate(value): an Evaluate statement.
Value CallEvaluate(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  c.NeedBody();
  p.tir_.Emit(Evaluate(c.Prim(0), span));
  return Value::None();
}

// T.bind(value, var=x): binds x (declared by x = T.int32()) for the rest of the block.
Value CallBind(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 2);
  const Value* var_v = Kwarg(a, "var");
  PrimExpr value = c.Prim(0);
  Var var;
  if (a.args.size() == 2) {  // T.bind(value, T.handle("float32")): a new variable of that type
    if (var_v) p.Fail(span, "T.bind takes a type annotation or var=, not both");
    const Value& t = a.args[1];
    const auto* tv = t.kind == K::kPrim && t.fresh_var ? t.obj.as<VarNode>() : nullptr;
    if (!tv) p.Fail(SpanOr(t, span), "T.bind's second argument is a type annotation such as T.handle(\"float32\")");
    var = tv->ty.defined() ? Var(c.FreshName(), tv->ty, span) : Var(c.FreshName(), tv->dtype, span);
  } else if (var_v) {
    PrimExpr given = p.ToPrim(*var_v, SpanOr(*var_v, span));
    if (!given.as<VarNode>()) p.Fail(SpanOr(*var_v, span), "T.bind(value, var=x) binds a variable");
    var = Downcast<Var>(given);
  } else {
    var = Var(c.FreshName(), value.dtype(), span);
  }
  if (var->dtype != value.dtype()) {
    p.Fail(span, absl::StrCat("mismatched types: T.bind of a ", value.dtype().ToString(), " value to ", var->name,
                            " of type ", var->dtype.ToString()));
  }
  c.NeedBody();
  p.tir_.BeginImplicit([var, value, span](Stmt body) { return LetStmt(var, value, body, span); });
  if (var_v) return Value::None();
  // The new variable is already bound: `x = T.bind(...)` names it rather than binding it again.
  Value bound = Value::Obj(K::kPrim, var);
  bound.fresh_var = true;
  return bound;
}

// T.break_loop() / T.continue_loop(): the function spellings of break / continue.
Value CallBreakContinue(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  c.Need(0, 0);
  if (p.loop_depth_ == 0) p.Fail(span, absl::StrCat("T.", name, "() outside loop"));
  p.tir_.Emit(name == "break_loop" ? Stmt(Break::Make(span)) : Stmt(Continue::Make(span)));
  return Value::None();
}

// T.launch_thread("threadIdx.x", extent) or (a var from T.env_thread, extent): a thread_extent
// scope.
Value CallLaunchThread(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  PrimExpr extent = c.Prim(1);
  IterVar iv;
  const Value& t = a.args[0];
  if (t.kind == K::kStr) {
    Var var(c.FreshName(), extent.dtype(), span);
    iv = IterVar(Range(IntImm(extent.dtype(), 0), extent), var, IterVarType::kThreadIndex, t.s, span);
  } else {
    const IterVarNode* known = t.kind == K::kIterVar ? t.obj.as<IterVarNode>() : nullptr;
    if (!known && t.kind == K::kPrim) {
      auto it = p.thread_ivs_.find(t.obj.get());
      if (it != p.thread_ivs_.end()) known = it->second.get();
    }
    if (!known) p.Fail(span, "T.launch_thread takes a thread tag (\"threadIdx.x\") or a variable from T.env_thread");
    // An env thread launched again keeps its first extent (TVM's builder stores it on the thread).
    if (auto it = p.thread_ivs_.find(known->var.get()); it != p.thread_ivs_.end()) known = it->second.get();
    if (known->dom.defined() && !kiln::arith::Analyzer().CanProveEqual(known->dom->extent, extent)) {
      p.Fail(span, absl::StrCat("inconsistent extents of environment thread ", known->var->name, ": launched with ",
                                kiln::arith::ExprToString(known->dom->extent), " before, now ",
                                kiln::arith::ExprToString(extent)));
    }
    iv = IterVar(Range(IntImm(extent.dtype(), 0), extent), known->var, IterVarType::kThreadIndex, known->thread_tag, span);
  }
  p.thread_ivs_[iv->var.get()] = iv;
  std::string key = absl::StartsWith(iv->thread_tag, "vthread") ? "virtual_thread" : "thread_extent";
  c.NeedBody();
  p.tir_.BeginImplicit([iv, key, extent, span](Stmt body) { return AttrStmt(iv, key, extent, body, span); });
  Value v = Value::Obj(K::kPrim, iv->var);
  v.fresh_var = true;
  return t.kind == K::kStr ? v : Value::None();
}

// T.env_thread("threadIdx.x"): a thread variable for T.launch_thread.
Value CallEnvThread(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  Var var(c.FreshName(), DataType::Int(32), span);
  IterVar iv(Range(), var, IterVarType::kThreadIndex, p.ToStr(a.args[0], span), span);
  p.thread_ivs_[var.get()] = iv;
  return Value::Obj(K::kIterVar, iv);
}

// T.iter_var(var, dom, "ThreadIndex", "threadIdx.x"): an IterVar node.
Value CallIterVar(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(4, 4);
  PrimExpr v = c.Prim(0);
  if (!v.as<VarNode>()) p.Fail(SpanOr(a.args[0], span), "T.iter_var binds a variable");
  Range dom;
  const Value& d = a.args[1];
  if (d.kind == K::kSlice || (d.is_seq() && d.items.size() == 2)) {
    // Range(begin, end) has extent end - begin, folded as TVM's operator folds it.
    PrimExpr lo = p.ToPrim(d.items[0], SpanOr(d.items[0], span));
    PrimExpr hi = p.ToPrim(d.items[1], SpanOr(d.items[1], span));
    dom = Range(lo, c.OkPrim(tir::BinaryOp(tir::BinaryOpKind::kSub, hi, lo, span)));
  } else if (d.kind != K::kNone) {
    p.Fail(SpanOr(d, span), "T.iter_var takes a domain T.Range(begin, end), [begin, end] or None");
  }
  static constexpr std::pair<const char*, IterVarType> kTypes[] = {
      {"DataPar", IterVarType::kDataPar},         {"ThreadIndex", IterVarType::kThreadIndex},
      {"CommReduce", IterVarType::kCommReduce},   {"Ordered", IterVarType::kOrdered},
      {"Opaque", IterVarType::kOpaque},           {"Unrolled", IterVarType::kUnrolled},
      {"Vectorized", IterVarType::kVectorized},   {"Parallelized", IterVarType::kParallelized},
      {"Tensorized", IterVarType::kTensorized}};
  std::string type = p.ToStr(a.args[2], SpanOr(a.args[2], span));
  const auto* found = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& t) { return type == t.first; });
  if (found == std::end(kTypes)) p.Fail(SpanOr(a.args[2], span), absl::StrCat("unknown iter_var type \"", type, "\""));
  IterVar iv(dom, Downcast<Var>(v), found->second, p.ToStr(a.args[3], SpanOr(a.args[3], span)), span);
  if (found->second == IterVarType::kThreadIndex) p.thread_ivs_[iv->var.get()] = iv;
  return Value::Obj(K::kIterVar, iv);
}

}  // namespace

// T.attr(node, key, value): an AttrStmt over the rest of the block.
Value CallTirAttr(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(3, 3);
  // The integer 0 is the node of TVM's dict form (T.attr({key: value})), which kiln leaves
  // undefined: `T.attr(0, key, value)` is that same scope, and so is `T.attr(T.int32(0), ...)`
  // (TVM converts the 0 to that IntImm, and prints either as 0).
  const Value& n0 = a.args[0];
  const auto* imm = n0.kind == K::kPrim ? n0.obj.as<IntImmNode>() : nullptr;
  const bool dict_node = (n0.kind == K::kInt && n0.i == 0) || (imm && imm->value == 0 && imm->dtype == DataType::Int(32));
  ObjectRef node = dict_node ? ObjectRef() : p.ToAttrValue(a.args[0], span);
  std::string key = p.ToStr(a.args[1], span);
  PrimExpr value = c.Prim(2);
  c.NeedBody();
  p.tir_.BeginImplicit([node, key, value, span](Stmt body) { return AttrStmt(node, key, value, body, span); });
  return Value::None();
}

void AddTirStmtCalls(TirCallTable* t) {
  t->by_name.emplace("func_attr", &CallFuncAttr);
  t->by_name.emplace("evaluate", &CallEvaluate);
  t->by_name.emplace("bind", &CallBind);
  for (const char* n : {"break_loop", "continue_loop"}) t->by_name.emplace(n, &CallBreakContinue);
  t->by_name.emplace("launch_thread", &CallLaunchThread);
  t->by_name.emplace("env_thread", &CallEnvThread);
  t->by_name.emplace("iter_var", &CallIterVar);
}

}  // namespace kiln::script::parser
