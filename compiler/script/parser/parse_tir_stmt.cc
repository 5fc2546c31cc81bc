// TVMScript parser, TIR statements: the visitor over the statements of a `@T.prim_func` body
// (assignments, annotated and augmented assignments, for, with, if, while, assert, return, break /
// continue, expression statements). Each statement becomes one TIRBuilder frame or one IR node;
// calls met along the way are evaluated by CallT (handlers.h).
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

void Parser::RejectUnvisitedStmt(const doc::Stmt& s) const {
  const char* what = nullptr;
  switch (s.kind) {
    case doc::StmtKind::kDelete: what = "`del` statement (Delete)"; break;
    case doc::StmtKind::kImport:
    case doc::StmtKind::kImportFrom: what = "`import` statement (Import)"; break;
    case doc::StmtKind::kGlobal: what = "`global` statement (Global)"; break;
    default: return;
  }
  Fail(enclosing_stmt_, absl::StrCat("a ", what, " is not supported in TVMScript; reported at the enclosing statement, as TVM does"));
}

void Parser::ParseTIRBody(const std::vector<doc::StmtPtr>& body) {
  const Span enclosing = enclosing_stmt_;
  for (const doc::StmtPtr& s : body) {
    enclosing_stmt_ = enclosing;
    // Each open builder frame is one level of the IR (a let binding or buffer declaration nests the
    // rest of its block, so even flat text can nest deeply), and the verifiers, the printer and the
    // passes walk that nesting recursively. One error, then the rest of this block is skipped.
    if (tir_.depth() > static_cast<size_t>(max_scope_depth_)) {
      Report(ParseError{SpanOf(s->pos), absl::StrCat("too deeply nested: more than ", max_scope_depth_,
                                                     " nested scopes in one function (each let binding or "
                                                     "buffer declaration scopes the rest of its block)")});
      break;
    }
    try {
      RejectUnvisitedStmt(*s);
      enclosing_stmt_ = SpanOf(s->pos);
      ParseTIRStmt(*s);
    } catch (const ParseError& e) {
      Report(e);
      if (s->kind == doc::StmtKind::kAssign) for (const auto& t : s->targets) Poison(t);
      if (s->kind == doc::StmtKind::kAnnAssign) Poison(s->target);
    }
  }
  enclosing_stmt_ = enclosing;
}

void Parser::ParseTIRStmt(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  switch (s.kind) {
    case doc::StmtKind::kAssign: return TIRAssign(s);
    case doc::StmtKind::kAnnAssign: return TIRAnnAssign(s);
    case doc::StmtKind::kAugAssign: return TIRAugAssign(s);
    case doc::StmtKind::kFor: return TIRFor(s);
    case doc::StmtKind::kWith: return TIRWith(s);
    case doc::StmtKind::kExpr: return TIRExprStmt(s);
    case doc::StmtKind::kPass: return;
    case doc::StmtKind::kReturn: {
      if (!s.value) Fail(span, "a T.prim_func returns a value with `return value`");
      CallArgs ca;
      ca.span = ca.func_span = span;
      ca.args = {Eval(s.value)};
      if (ca.args[0].kind == K::kNone) Fail(span, "the expression to be returned must be a PrimExpr, not None");
      Value r = CallT("ret", ca);
      tir_.Emit(Evaluate(ToPrim(r, span), span));
      return;
    }
    case doc::StmtKind::kAssert: {
      PrimExpr cond = ToPrim(Eval(s.test), SpanOf(s.test->pos));
      std::string kind = "RuntimeError";
      Array<String> parts;
      if (s.msg) {
        Value m = Eval(s.msg);
        if (m.kind == K::kStr) {
          parts.push_back(String(m.s));
        } else if (m.kind == K::kTuple) {
          // TVM checks the (kind, [parts...]) shape at the assert statement.
          if (m.items.size() != 2) {
            Fail(span, absl::StrCat("an assert message tuple must have exactly 2 elements (kind, [parts...]), got ",
                                    m.items.size()));
          }
          const Value& k = m.items[0];
          if (k.kind != K::kStr && !(k.kind == K::kPrim && k.obj.as<StringImmNode>())) {
            Fail(span, "the first element of an assert message tuple must be a string (an error kind like \"ValueError\")");
          }
          kind = ToStr(k, SpanOr(k, span));
          if (m.items[1].is_seq()) {
            for (const Value& p : m.items[1].items) parts.push_back(String(ToStr(p, SpanOr(p, span))));
          } else {
            parts.push_back(String(ToStr(m.items[1], SpanOr(m.items[1], span))));
          }
        } else {
          Fail(SpanOf(s.msg->pos), "an assert message is a string or (\"ErrorKind\", [\"message\", ...])");
        }
      }
      tir_.Emit(AssertStmt(cond, kind, parts, Stmt(), span));
      return;
    }
    case doc::StmtKind::kIf: {
      Value test = Eval(s.test);
      if (test.is_number()) {  // decided while parsing, as Python would
        PushScope();
        ParseTIRBody(ToBool(test, span) ? s.body : s.orelse);
        PopScope();
        return;
      }
      PrimExpr cond = ToPrim(test, SpanOf(s.test->pos));
      if (test.kind == K::kStr || cond.dtype().is_handle()) {
        Fail(SpanOf(s.test->pos), "the if condition must be a boolean expression");
      }
      tir_.BeginScope();
      PushScope();
      ParseTIRBody(s.body);
      PopScope();
      Stmt then_case = tir_.EndScope();
      Stmt else_case;
      if (!s.orelse.empty()) {
        tir_.BeginScope();
        PushScope();
        ParseTIRBody(s.orelse);
        PopScope();
        else_case = tir_.EndScope();
      }
      tir_.Emit(IfThenElse(cond, then_case, else_case, span));
      return;
    }
    case doc::StmtKind::kWhile: {
      Value test = Eval(s.test);
      if (test.is_number() || (test.kind == K::kPrim && test.obj.as<IntImmNode>())) {
        Fail(SpanOf(s.test->pos), "the condition of a while loop must be a boolean expression, not a constant");
      }
      PrimExpr cond = ToPrim(test, SpanOf(s.test->pos));
      tir_.BeginScope();
      PushScope();
      ++loop_depth_;
      ParseTIRBody(s.body);
      --loop_depth_;
      PopScope();
      tir_.Emit(While(cond, tir_.EndScope(), span));
      return;
    }
    case doc::StmtKind::kBreak:
    case doc::StmtKind::kContinue:
      if (loop_depth_ == 0) Fail(span, absl::StrCat("'", s.kind == doc::StmtKind::kBreak ? "break" : "continue", "' outside loop"));
      tir_.Emit(s.kind == doc::StmtKind::kBreak ? Stmt(Break::Make(span)) : Stmt(Continue::Make(span)));
      return;
    case doc::StmtKind::kFunctionDef: {
      // `@T.inline def f(...)` inside the body: TVM's inline function, expanded at each call with
      // Python's late binding (its body sees the scopes enclosing its definition, with the values
      // they hold at the call), which is what a hygienic macro defined here does.
      if (s.decorators.size() != 1) Fail(span, "a function inside a T.prim_func must be decorated with @T.inline");
      const doc::ExprPtr& deco = s.decorators[0];
      bool called = deco->kind == doc::ExprKind::kCall;
      Value v = Eval(called ? deco->func : deco);
      if (v.kind != K::kName || v.s != "T.inline") {
        Fail(SpanOf(deco->pos), "a function inside a T.prim_func must be decorated with @T.inline");
      }
      if (called && (!deco->args.empty() || !deco->keywords.empty())) {
        Fail(SpanOf(deco->pos), "T.inline takes no arguments: @T.inline or @T.inline()");
      }
      CallArgs none;
      none.span = SpanOf(deco->pos);
      Define(s.name, DefineMacro(s, none));
      return;
    }
    default:
      Fail(span, "this statement is not supported in a T.prim_func");
  }
}

void Parser::TIRExprStmt(const doc::Stmt& s) {
  // A docstring or other bare constant does nothing.
  if (s.value->kind == doc::ExprKind::kConstant) return;
  Value v = Eval(s.value);
  if (v.kind == K::kNone) return;  // statement-like calls (T.reads, T.func_attr, ...) act themselves
  // A bare `T.warp_id([4])` (or `T.int32()`) has declared its variable already; as in TVM, the
  // returned variables are dropped rather than evaluated.
  auto fresh = [](const Value& x) { return x.kind == K::kPrim && x.fresh_var; };
  if (fresh(v) || (v.kind == K::kTuple && !v.items.empty() && std::all_of(v.items.begin(), v.items.end(), fresh))) return;
  if (v.kind == K::kPrim) {
    tir_.Emit(Evaluate(Downcast<PrimExpr>(v.obj), SpanOf(s.pos)));
    return;
  }
  // A bare `T.match_buffer(A_ptr, ...)` (or any buffer): as in TVM, the buffer is dropped; the
  // call has matched or declared it already.
  if (v.kind == K::kBuffer) return;
  Fail(s.pos, absl::StrCat("a ", KindName(v.kind), " is not a statement"));
}

namespace {

// Finds a buffer's data pointer used as a plain value (e.g. `A.data` passed to an extern call)
// in a block body, outside nested blocks (whose own declared regions stand for them).
class OpaqueAccessFinder : public StmtExprVisitor {
 public:
  explicit OpaqueAccessFinder(std::unordered_set<const Object*> data_vars) : data_vars_(std::move(data_vars)) {}
  const VarNode* found = nullptr;

 protected:
  void VisitExpr_(const VarNode* op) override {
    if (!found && data_vars_.count(op)) found = op;
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {}
  void VisitBufferDef(const Buffer& b) override { data_vars_.insert(b->data.get()); }
  void VisitStmt_(const AllocBufferNode* op) override {
    VisitBufferDef(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    VisitBufferDef(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }

 private:
  std::unordered_set<const Object*> data_vars_;
};

}  // namespace

void Parser::CheckNoOpaqueAccess(const Stmt& realize, const std::unordered_set<const Object*>& own,
                                 const std::string& block_name) {
  std::unordered_set<const Object*> data_vars;
  for (const auto& [param, buf] : tir_.func()->buffer_map.items()) data_vars.insert(buf->data.get());
  for (const auto& scope : scopes_) {
    for (const auto& [n, v] : scope) {
      if (v.kind == K::kBuffer) data_vars.insert(v.obj.as<BufferNode>()->data.get());
    }
  }
  for (const Object* o : own) data_vars.erase(o);
  OpaqueAccessFinder finder(std::move(data_vars));
  finder.VisitStmt(realize.as<SBlockRealizeNode>()->block->body);
  if (finder.found) {
    // TVM finds this when the function is complete, and reports it at the function.
    Fail(prim_func_span_, absl::StrCat("sblock \"", block_name, "\" uses ", finder.found->name,
                                       " directly, so its read/write regions cannot be inferred: declare T.reads and T.writes"));
  }
}

void Parser::BindTIRTarget(const doc::ExprPtr& target, const Value& v, const Span& span) {
  if (target->kind == doc::ExprKind::kTuple || target->kind == doc::ExprKind::kList) {
    std::vector<Value> items = ToSeq(v, span);
    if (items.size() != target->elts.size()) {
      Fail(span, absl::StrCat("cannot unpack ", items.size(), " values into ", target->elts.size(), " names"));
    }
    for (size_t i = 0; i < items.size(); ++i) BindTIRTarget(target->elts[i], items[i], span);
    return;
  }
  if (target->kind != doc::ExprKind::kName) Fail(target->pos, "cannot assign to this expression");
  const std::string& name = target->name;
  // A block axis or a buffer is defined once per scope (TVM's variable table refuses the second
  // definition unless it is the same object).
  auto prev = scopes_.back().find(name);
  if (prev != scopes_.back().end() && !(prev->second.obj.defined() && prev->second.obj.same_as(v.obj))) {
    const Value& old = prev->second;
    bool is_buffer = old.kind == K::kBuffer && !old.b;
    bool is_axis = false;
    if (builder::BlockData* blk = tir_.block(); blk && old.kind == K::kPrim) {
      for (const IterVar& iv : blk->iter_vars) is_axis |= iv->var.same_as(old.obj);
    }
    if (is_buffer || is_axis) {
      Fail(span, absl::StrCat(is_axis ? "block axis " : "buffer ", name, " is already defined in this scope"));
    }
  }
  if (v.kind == K::kPrim && !v.fresh_var && !v.meta && tir_.func()) {
    // `x = expr` binds a new variable for the rest of the block, as `x: T.let[dtype] = expr`.
    PrimExpr value = Downcast<PrimExpr>(v.obj);
    // TVM types the stack-allocation intrinsics and the addresses of buffer elements (A.ptr_to,
    // T.address_of, T.ptr_byte_offset) as pointers and binds such a value once per scope.
    if (const auto* call = value.as<CallNode>(); call && prev != scopes_.back().end()) {
      const auto* op = call->op.as<OpNode>();
      if (op && (absl::EndsWith(op->name, "tvm_stack_alloca") || absl::EndsWith(op->name, "tvm_stack_make_shape") ||
                 op->name == "tirx.address_of" || op->name == "tirx.ptr_byte_offset")) {
        Fail(target->pos, absl::StrCat("pointer variable '", name, "' cannot be reassigned"));
      }
    }
    Var var(name, value.dtype(), SpanOf(target->pos));
    Define(name, Value::Obj(K::kPrim, var));
    tir_.BeginImplicit([var, value, span](Stmt body) { return LetStmt(var, value, body, span); });
    return;
  }
  Value stored = v;
  stored.fresh_var = false;
  stored.meta = false;
  Define(name, stored);
}

void Parser::TIRAssign(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (s.targets.size() != 1) Fail(span, "chained assignment is not supported in TIR");
  const doc::ExprPtr& target = s.targets[0];
  if (target->kind == doc::ExprKind::kSubscript) {
    Value value = Eval(s.value);
    StoreTo(*target, value, span);
    return;
  }
  if (target->kind == doc::ExprKind::kName) {
    const Value* existing = Lookup(target->name);
    if (existing && existing->kind == K::kBuffer && existing->b) {  // a local scalar
      Value value = Eval(s.value);
      StoreTo(*target, value, span);
      return;
    }
    name_hint_ = target->name;
  } else if (target->kind == doc::ExprKind::kTuple || target->kind == doc::ExprKind::kList) {
    CheckDistinctTargets(*target);
    name_hints_.clear();
    for (const auto& e : target->elts) name_hints_.push_back(e->kind == doc::ExprKind::kName ? e->name : "v");
  }
  Value value;
  try {
    value = Eval(s.value);
  } catch (...) {
    name_hint_.clear();
    name_hints_.clear();
    throw;
  }
  name_hint_.clear();
  name_hints_.clear();
  BindTIRTarget(target, value, span);
}

void Parser::TIRAnnAssign(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (s.target->kind != doc::ExprKind::kName) Fail(s.target->pos, "an annotated assignment needs a plain name");
  const std::string& name = s.target->name;
  Value ann = Eval(s.annotation);
  Span ann_span = SpanOf(s.annotation->pos);
  if (ann.kind == K::kName && ann.s == "T.let") {
    if (ann.items.size() > 1) Fail(ann_span, "T.let takes one dtype: T.let[T.int32]");
    if (!s.value) Fail(span, "a T.let binding needs a value");
    Value v = Eval(s.value);
    // `x: T.let = value` takes the value's dtype.
    // T.let[T.handle("float32")]: a handle variable annotated with its pointer type.
    Type ty;
    const Value* item = ann.items.empty() ? nullptr : &ann.items[0];
    if (item && item->kind == K::kPrim && item->fresh_var) ty = item->obj.as<VarNode>()->ty;
    DataType dtype = !item ? ToPrim(v, SpanOf(s.value->pos)).dtype()
                   : ty.defined() ? item->obj.as<VarNode>()->dtype : ToDType(*item, SpanOr(*item, ann_span));
    PrimExpr value;
    if (v.is_number()) {
      absl::StatusOr<PrimExpr> c = tir::MakeConst(dtype, v.kind == K::kFloat ? tir::Operand::FloatLiteral(v.f)
                                                         : v.kind == K::kBool ? tir::Operand::BoolLiteral(v.b)
                                                                              : tir::Operand::IntLiteral(v.i));
      if (!c.ok()) Fail(SpanOf(s.value->pos), std::string(c.status().message()));
      value = *c;
    } else {
      value = ToPrim(v, SpanOf(s.value->pos));
    }
    if (value.dtype() != dtype) {
      Fail(SpanOf(s.value->pos), absl::StrCat("mismatched types: T.let[", dtype.ToString(), "] bound to a ",
                                              value.dtype().ToString(), " value"));
    }
    Var var(name, dtype, SpanOf(s.target->pos));
    if (ty.defined() && ty.as<PointerTypeNode>()) var.CopyOnWrite()->ty = ty;
    Define(name, Value::Obj(K::kPrim, var));
    tir_.BeginImplicit([var, value, span](Stmt body) { return LetStmt(var, value, body, span); });
    return;
  }
  if (ann.kind == K::kBuffer) {  // A: T.Buffer(...) = T.match_buffer / decl: just a typed binding
    if (!s.value) Fail(span, "a buffer annotation needs a value");
    name_hint_ = name;
    Value v = Eval(s.value);
    name_hint_.clear();
    BindTIRTarget(s.target, v, span);
    return;
  }
  if (ann.kind == K::kName && !ann.items.empty()) {
    if (s.value) Fail(span, "a local array annotation (x: T.float32[8]) takes no initial value");
    TIRLocalArray(name, ann, span);
    return;
  }
  // `x: T.int32` declares a local scalar: a rank-0 buffer in local scope.
  DataType dtype = ToDType(ann, ann_span);
  if (dtype.is_handle() || dtype.is_void()) {
    Fail(ann_span, absl::StrCat("a ", dtype.is_handle() ? "handle" : "void",
                                " cannot be a local scalar: bind it with `", name, ": T.let[T.handle] = ...`"));
  }
  Buffer buf = Buffer::Make(name, {}, dtype, "local", SpanOf(s.target->pos));
  Map<String, ObjectRef> annotations;
  annotations.Set(String("tirx.local_scalar"), IntImm(DataType::Bool(), 1));
  Value bv = Value::Obj(K::kBuffer, buf);
  bv.b = true;
  Define(name, bv);
  tir_.BeginImplicit([buf, annotations, span](Stmt body) { return AllocBuffer(buf, body, annotations, span); });
  if (s.value) StoreTo(*s.target, Eval(s.value), span);
}

void Parser::TIRAugAssign(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  // a[i] op= v  is  a[i] = a[i] op v
  auto bin = std::make_shared<doc::Expr>(doc::ExprKind::kBinOp);
  bin->name = s.op;
  bin->left = s.target;
  bin->right = s.value;
  bin->pos = s.pos;
  Value v = Eval(bin);
  if (s.target->kind == doc::ExprKind::kSubscript || s.target->kind == doc::ExprKind::kName) {
    const Value* existing = s.target->kind == doc::ExprKind::kName ? Lookup(s.target->name) : nullptr;
    if (s.target->kind == doc::ExprKind::kName && !(existing && existing->kind == K::kBuffer && existing->b)) {
      Fail(s.target->pos, "augmented assignment needs a buffer element or a local scalar");
    }
    StoreTo(*s.target, v, span);
    return;
  }
  Fail(s.target->pos, "augmented assignment needs a buffer element or a local scalar");
}

void Parser::StoreTo(const doc::Expr& target, const Value& value, const Span& span) {
  Buffer buf;
  Array<PrimExpr> indices;
  Span tspan = SpanOf(target.pos);
  if (target.kind == doc::ExprKind::kName) {
    const Value* v = Lookup(target.name);
    buf = Downcast<Buffer>(v->obj);
  } else {
    Value base = Eval(target.value);
    if (base.kind == K::kPoison) throw ParseError{tspan, "", true};
    if (base.kind != K::kBuffer) Fail(tspan, absl::StrCat("cannot store into a ", KindName(base.kind)));
    buf = Downcast<Buffer>(base.obj);
    std::vector<Value> idx;
    bool tuple_index = target.slice->kind == doc::ExprKind::kTuple && !target.slice->parenthesized;
    if (tuple_index) {
      for (const auto& x : target.slice->elts) EvalItem(x, &idx);
    } else {
      EvalItem(target.slice, &idx);
    }
    bool has_slice = false;
    indices = BufferIndices(buf, idx, tspan, &has_slice, nullptr);
  }
  PrimExpr v;
  int lanes = indices.empty() ? 1 : indices.back().dtype().lanes();
  if (value.is_number()) {
    DataType t = buf->dtype.with_lanes(buf->dtype.lanes() * lanes);
    absl::StatusOr<PrimExpr> c = tir::MakeConst(t, value.kind == K::kFloat ? tir::Operand::FloatLiteral(value.f)
                                                  : value.kind == K::kBool ? tir::Operand::BoolLiteral(value.b)
                                                                           : tir::Operand::IntLiteral(value.i));
    if (!c.ok()) Fail(SpanOr(value, span), std::string(c.status().message()));
    v = *c;
  } else {
    v = ToPrim(value, SpanOr(value, span));
    // As TVM's builder does, a value of another element type is cast to the buffer's (with the
    // same lanes; a lane mismatch is left for the verifier to report).
    DataType t = buf->dtype.with_lanes(buf->dtype.lanes() * lanes);
    if (v.dtype() != t && v.dtype().lanes() == t.lanes()) {
      absl::StatusOr<PrimExpr> c = tir::CastTo(t, v, v->span);
      if (c.ok()) v = *c;
    }
  }
  tir_.Emit(BufferStore(buf, v, indices, span));
}

void Parser::TIRFor(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (!s.orelse.empty()) Fail(span, "for ... else is not supported");
  Value it = Eval(s.iter);
  // Over a captured tuple or list (a name or expression, not a display: `for i in [1, 2]` stays
  // TVM's error), the loop is Python's, unrolled here.
  bool display = s.iter->kind == doc::ExprKind::kList || s.iter->kind == doc::ExprKind::kTuple;
  if (it.is_seq() && !display) return TIRUnrolledFor(s, it);
  if (it.kind != K::kLoops) {
    Fail(SpanOf(s.iter->pos), "a for loop iterates over range(), T.serial/parallel/vectorized/unroll/thread_binding or T.grid");
  }
  std::vector<doc::ExprPtr> targets;
  if (s.target->kind == doc::ExprKind::kTuple || s.target->kind == doc::ExprKind::kList) {
    targets = s.target->elts;
  } else {
    targets.push_back(s.target);
  }
  // `for ijk in T.grid(a, b, c)`: one name for several loops is the tuple of their variables
  // (ijk[0], ...); the loop variables are named after it.
  bool packed = targets.size() == 1 && it.loops.size() > 1 && targets[0]->kind == doc::ExprKind::kName;
  if (targets.size() != it.loops.size() && !packed) {
    Fail(s.target->pos, absl::StrCat("the loop has ", it.loops.size(), " iterators but ", targets.size(), " names"));
  }
  PushScope();
  std::vector<Var> vars;
  std::vector<Value> packed_vars;
  for (size_t i = 0; i < it.loops.size(); ++i) {
    const doc::ExprPtr& target = targets[packed ? 0 : i];
    if (target->kind != doc::ExprKind::kName) Fail(target->pos, "a loop variable must be a name");
    std::string name = packed ? absl::StrCat(target->name, "_", i) : target->name;
    Var v(name, it.loops[i].extent.dtype(), SpanOf(target->pos));
    vars.push_back(v);
    if (packed) {
      packed_vars.push_back(Value::Obj(K::kPrim, v));
    } else {
      Define(name, Value::Obj(K::kPrim, v));
    }
    loop_ranges_[v.get()] = Range(it.loops[i].min, it.loops[i].extent);
  }
  if (packed) Define(targets[0]->name, Value::Seq(K::kTuple, std::move(packed_vars)));
  tir_.BeginScope();
  ++loop_depth_;
  ParseTIRBody(s.body);
  --loop_depth_;
  Stmt body = tir_.EndScope();
  PopScope();
  for (size_t k = vars.size(); k-- > 0;) {
    const LoopSpec& l = it.loops[k];
    IterVar binding;
    if (l.kind == ForKind::kThreadBinding) {
      binding = IterVar(Range(l.min, l.extent), vars[k], IterVarType::kThreadIndex, l.thread);
    }
    For loop(vars[k], l.min, l.extent, l.kind, body, binding, l.annotations, span);
    // A constant step of 1 is the trivial step, which the printer (as TVM's) leaves out: keep it
    // unset so that `range(0, n, 1)` and `range(0, n)` are the same loop.
    const auto* one = l.step.as<IntImmNode>();
    if (l.step.defined() && !(one && one->value == 1)) {
      // TVM's thread-binding loop frame requires a unit step when it closes (at the for).
      if (l.kind == ForKind::kThreadBinding) Fail(span, "a T.thread_binding loop has step 1; a thread index cannot step by another value");
      loop.CopyOnWrite()->step = l.step;
    }
    body = loop;
  }
  tir_.Emit(body);
}

void Parser::TIRUnrolledFor(const doc::Stmt& s, const Value& items) {
  // A Python `for` over a captured tuple or list: no IR loop, the body is parsed once per item with
  // the target names bound to it (tuple targets unpack the item).
  for (const Value& item : items.items) {
    std::vector<std::pair<std::string, Value>> names;
    if (s.target->kind == doc::ExprKind::kName) {
      names.emplace_back(s.target->name, item);
    } else if (s.target->kind == doc::ExprKind::kTuple || s.target->kind == doc::ExprKind::kList) {
      std::vector<Value> parts = ToSeq(item, SpanOf(s.iter->pos));
      if (parts.size() != s.target->elts.size()) {
        Fail(s.target->pos, absl::StrCat("cannot unpack ", parts.size(), " values into ", s.target->elts.size(), " names"));
      }
      for (size_t k = 0; k < parts.size(); ++k) {
        if (s.target->elts[k]->kind != doc::ExprKind::kName) Fail(s.target->elts[k]->pos, "a loop target must be a name");
        names.emplace_back(s.target->elts[k]->name, parts[k]);
      }
    } else {
      Fail(s.target->pos, "a loop target must be a name or a tuple of names");
    }
    PushScope();
    for (auto& [name, v] : names) Define(name, std::move(v));
    ParseTIRBody(s.body);
    PopScope();
  }
}

void Parser::TIRWith(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (s.items.size() > 1) {
    // `with a, b:` is `with a:` around `with b:`, as TVM enters the items in order.
    auto inner = std::make_shared<doc::Stmt>(s);
    inner->items.erase(inner->items.begin());
    doc::Stmt outer = s;
    outer.items.resize(1);
    outer.body = {inner};
    return TIRWith(outer);
  }
  if (s.items.size() != 1) Fail(span, "a with statement takes one context");
  const doc::WithItem& item = s.items[0];
  if (item.context_expr->kind != doc::ExprKind::kCall) Fail(item.context_expr->pos, "unsupported with context");
  Value fn = Eval(item.context_expr->func);
  Span cspan = SpanOf(item.context_expr->pos);
  std::string name = fn.kind == K::kName ? fn.s : "";
  if (name == "T.block") {
    Warn(cspan, "T.block is spelled T.sblock in TVM v0.26");
    name = "T.sblock";
  }
  if ((name == "T.sblock" || name == "T.init") && item.optional_vars) {
    Fail(item.optional_vars->pos, absl::StrCat(name, "(...) binds no value: drop the `as ",
                                               item.optional_vars->kind == doc::ExprKind::kName ? item.optional_vars->name : "...",
                                               "`"));
  }
  if (name == "T.sblock") {
    CallArgs a;
    for (const auto& x : item.context_expr->args) a.args.push_back(Eval(x));
    std::string block_name = a.args.empty() ? "" : ToStr(a.args[0], SpanOr(a.args[0], cspan));
    bool no_realize = false;
    for (const doc::Keyword& kw : item.context_expr->keywords) {
      if (kw.arg == "no_realize") no_realize = ToBool(Eval(kw.value), SpanOf(kw.value->pos));
    }
    tir_.BeginBlock(block_name);
    PushScope();
    ParseTIRBody(s.body);
    PopScope();
    const builder::BlockData& blk = *tir_.block();
    // A block without a realize has no bindings to carry (TVM checks this when the block closes).
    if (no_realize && !blk.iter_values.empty()) Fail(span, "block bindings are not allowed when `no_realize=True`");
    if (no_realize && blk.predicate.defined()) Fail(span, "`T.where` is not allowed when `no_realize=True`");
    PrimExpr predicate = blk.predicate;
    bool infer_access = !blk.reads_set || !blk.writes_set;
    std::unordered_set<const Object*> own;  // the block's own buffers: not accesses of the block
    for (const Buffer& b : blk.alloc_buffers) own.insert(b->data.get());
    for (const MatchBufferRegion& m : blk.match_buffers) own.insert(m->buffer->data.get());
    Stmt realize = tir_.EndBlock(span);
    if (infer_access && tir_.func() && tir_.func()->s_tir) CheckNoOpaqueAccess(realize, own, block_name);
    // Checked when the block is built, as TVM's SBlockRealize does (at the with statement).
    if (predicate.defined() && !predicate.dtype().is_bool()) {
      Fail(span, absl::StrCat("the predicate of sblock \"", block_name, "\" (T.where) is ", predicate.dtype().ToString(),
                              ", not bool"));
    }
    return;
  }
  if (name == "T.init") {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(cspan, "T.init() must be used inside a T.sblock");
    if (blk->init.defined()) Fail(span, "a block has one T.init()");
    tir_.BeginScope();
    PushScope();
    ParseTIRBody(s.body);
    PopScope();
    tir_.block()->init = tir_.EndScope();
    return;
  }
  if (name == "T.decl_buffer" || name == "T.alloc_buffer" || name == "T.launch_thread" || name == "T.hint" ||
      (name == "T.attr" && item.context_expr->args.size() == 3)) {
    // `with T.decl_buffer(...) as B:`: the call's implicit frame scopes exactly the with body.
    tir_.BeginScope();
    PushScope();
    if (item.optional_vars && item.optional_vars->kind == doc::ExprKind::kName) name_hint_ = item.optional_vars->name;
    Value v;
    try {
      v = Eval(item.context_expr);
    } catch (...) {
      name_hint_.clear();
      PopScope();
      tir_.EndScope();
      throw;
    }
    name_hint_.clear();
    if (item.optional_vars) BindTIRTarget(item.optional_vars, v, span);
    ParseTIRBody(s.body);
    PopScope();
    tir_.Emit(tir_.EndScope());
    return;
  }
  if (name == "T.attr") {
    Value d = Eval(item.context_expr->args.empty() ? nullptr : item.context_expr->args[0]);
    if (d.kind != K::kDict || d.keys.empty()) Fail(cspan, "with T.attr({key: value, ...}) takes a dict of annotations");
    tir_.BeginScope();
    PushScope();
    ParseTIRBody(s.body);
    PopScope();
    // Several keys nest, the first outermost.
    Stmt body = tir_.EndScope();
    for (size_t i = d.keys.size(); i-- > 0;) {
      body = AttrStmt(ObjectRef(), ToStr(d.keys[i], cspan), ToPrim(d.items[i], SpanOr(d.items[i], cspan)), body, span);
    }
    tir_.Emit(body);
    return;
  }
  if (name == "lang.WarpRole" || name == "lang.WarpgroupRole") return TIRWarpRole(s, name);
  if (name == "T.tile.compose_op" || name == "T.compose_op") return TIRComposeOp(s);
  Fail(cspan, "unsupported with context in TIR: expected T.sblock, T.init or T.attr");
}

}  // namespace kiln::script::parser
