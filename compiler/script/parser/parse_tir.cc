// TVMScript parser, TIR half: `@T.prim_func` functions, their statements, and the `T.*` namespace
// (dtype constructors, buffers, loops, blocks, axes, intrinsics). Every construct maps onto one
// TIRBuilder frame or one IR node; see /work/shared/spec/000 (syntax tables) for the forms.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
using K = Value::Kind;

namespace {

const Value* Kwarg(const CallArgs& a, const std::string& name) {
  for (const auto& [k, v] : a.kwargs) if (k == name) return &v;
  return nullptr;
}

// Argument `i` (positional) or keyword `name`, or nullptr.
const Value* Arg(const CallArgs& a, size_t i, const std::string& name) {
  if (i < a.args.size()) return &a.args[i];
  return Kwarg(a, name);
}

bool IsDTypeName(const std::string& name) {
  if (name == "handle" || name == "void" || name == "let" || name.empty()) return false;
  DataType unused;
  return DataType::TryParse(name, &unused);
}

Span SpanOr(const Value& v, const Span& fallback) { return v.span.defined() ? v.span : fallback; }

}  // namespace

// ------------------------------------------------------------------ functions

Type Parser::ParamAnnotationTIR(const Value& ann, const Span& span, Buffer* buffer, const std::string& name) {
  if (ann.kind == K::kBuffer) {
    *buffer = Downcast<Buffer>(ann.obj);
    return Type();
  }
  if (ann.kind == K::kName && ann.s == "T.Buffer" && !ann.items.empty()) {
    CallArgs ca;
    ca.span = ca.func_span = span;
    ca.args = ann.items;
    *buffer = MakeBuffer(name, ca, 0, "global");
    return Type();
  }
  // A plain handle has no type annotation beyond its dtype, like the handle behind a T.Buffer
  // parameter: the printer may turn one into the other (match_buffer sugar).
  if (ann.kind == K::kName && ann.s == "T.handle") return Type();
  if (ann.kind == K::kPrim && ann.fresh_var) return ann.obj.as<VarNode>()->ty.defined() ? ann.obj.as<VarNode>()->ty : Type(PrimType(ann.obj.as<VarNode>()->dtype));
  return PrimType(ToDType(ann, span));
}

PrimFunc Parser::ParsePrimFunc(const doc::Stmt& def, const std::string& name, const CallArgs* deco) {
  tir_.Reset();
  tir_.BeginPrimFunc(name);
  builder::PrimFuncData* fd = tir_.func();
  bool check_well_formed = check_well_formed_;  // the enclosing module's setting or the default
  if (deco) {
    for (const auto& [k, v] : deco->kwargs) {
      if (k == "private") fd->is_private = ToBool(v, SpanOr(v, deco->span));
      else if (k == "s_tir") fd->s_tir = ToBool(v, SpanOr(v, deco->span));
      else if (k == "check_well_formed") check_well_formed = ToBool(v, SpanOr(v, deco->span));
      else Fail(deco->span, absl::StrCat("T.prim_func has no argument '", k, "'"));
    }
    if (!deco->args.empty()) Fail(deco->span, "T.prim_func takes keyword arguments only");
  }
  well_formed_check_off_ |= !check_well_formed;
  PushScope();
  loop_ranges_.clear();
  for (const doc::Arg& arg : def.args) {
    Span span = SpanOf(arg.pos);
    if (arg.kind != doc::Arg::Kind::kPositional) Fail(span, "*args and **kwargs are not supported in a T.prim_func");
    if (!arg.annotation) Fail(span, absl::StrCat("parameter '", arg.name, "' needs a type annotation (T.Buffer, T.handle, T.int32, ...)"));
    name_hint_ = arg.name;
    Value ann = Eval(arg.annotation);
    name_hint_.clear();
    Buffer buf;
    Type ty = ParamAnnotationTIR(ann, SpanOf(arg.annotation->pos), &buf, arg.name);
    if (buf.defined()) {
      Var handle(arg.name, DataType::Handle(), span);
      fd->params.push_back(handle);
      fd->buffer_map.Set(handle, buf);
      Define(arg.name, Value::Obj(K::kBuffer, buf));
      continue;
    }
    Var v = ty.defined() ? Var(arg.name, ty, span) : Var(arg.name, DataType::Handle(), span);
    fd->params.push_back(v);
    Define(arg.name, Value::Obj(K::kPrim, v));
  }
  if (def.returns) {
    Value r = Eval(def.returns);
    // `-> None` (common in hand-written kernels) means no return value, the default.
    if (r.kind != K::kNone) fd->ret_type = PrimType(ToDType(r, SpanOf(def.returns->pos)));
  }
  ParseTIRBody(def.body);
  PopScope();
  absl::StatusOr<PrimFunc> f = tir_.EndPrimFunc(SpanOf(def.pos));
  if (!f.ok()) Fail(def.pos, std::string(f.status().message()));
  return *f;
}

void Parser::ParseTIRBody(const std::vector<doc::StmtPtr>& body) {
  for (const doc::StmtPtr& s : body) {
    // Each open builder frame is one level of the IR (a let binding or buffer declaration nests the
    // rest of its block, so even flat text can nest deeply), and the verifiers, the printer and the
    // passes walk that nesting recursively. One error, then the rest of this block is skipped.
    if (tir_.depth() > static_cast<size_t>(max_scope_depth_)) {
      Report(ParseError{SpanOf(s->pos), absl::StrCat("too deeply nested: more than ", max_scope_depth_,
                                                     " nested scopes in one function (each let binding or "
                                                     "buffer declaration scopes the rest of its block)")});
      return;
    }
    try {
      ParseTIRStmt(*s);
    } catch (const ParseError& e) {
      Report(e);
      if (s->kind == doc::StmtKind::kAssign) for (const auto& t : s->targets) Poison(t);
      if (s->kind == doc::StmtKind::kAnnAssign) Poison(s->target);
    }
  }
}

// ------------------------------------------------------------------ statements

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
        } else if (m.kind == K::kTuple && m.items.size() == 2) {
          kind = ToStr(m.items[0], SpanOr(m.items[0], span));
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
  Fail(s.pos, absl::StrCat("a ", KindName(v.kind), " is not a statement"));
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
  if (v.kind == K::kPrim && !v.fresh_var && tir_.func()) {
    // `x = expr` binds a new variable for the rest of the block, as `x: T.let[dtype] = expr`.
    PrimExpr value = Downcast<PrimExpr>(v.obj);
    Var var(name, value.dtype(), SpanOf(target->pos));
    Define(name, Value::Obj(K::kPrim, var));
    tir_.BeginImplicit([var, value, span](Stmt body) { return LetStmt(var, value, body, span); });
    return;
  }
  Value stored = v;
  stored.fresh_var = false;
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
      for (const auto& x : target.slice->elts) idx.push_back(Eval(x));
    } else {
      idx.push_back(Eval(target.slice));
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

Array<PrimExpr> Parser::BufferIndices(const Buffer& b, const std::vector<Value>& given, const Span& span,
                                      bool* has_slice, Array<Range>* region) {
  std::vector<Value> idx = given;
  // As in Python, A[(i, j)] (or A[t] with t a tuple) is A[i, j], and A[()] has no indices.
  if (idx.size() == 1 && idx[0].kind == K::kTuple) idx = std::vector<Value>(given[0].items.begin(), given[0].items.end());
  if (idx.size() != b->shape.size()) {
    Fail(span, absl::StrCat("buffer ", b->name, " is ", b->shape.size(), "-dimensional but is indexed with ",
                            idx.size(), " ", idx.size() == 1 ? "index" : "indices"));
  }
  Array<PrimExpr> out;
  for (size_t d = 0; d < idx.size(); ++d) {
    const Value& v = idx[d];
    if (v.kind == K::kSlice) {
      *has_slice = true;
      PrimExpr lo = v.items[0].kind == K::kNone ? PrimExpr(IntImm(DataType::Int(32), 0)) : ToPrim(v.items[0], SpanOr(v.items[0], span));
      PrimExpr hi = v.items[1].kind == K::kNone ? b->shape[d] : ToPrim(v.items[1], SpanOr(v.items[1], span));
      PrimExpr extent;
      const auto* l = lo.as<IntImmNode>();
      const auto* h = hi.as<IntImmNode>();
      const auto* add = hi.as<AddNode>();
      if (l && h) {
        extent = IntImm(h->dtype, h->value - l->value);
      } else if (add && StructuralEqual(add->a, lo)) {
        extent = add->b;  // A[i : i + n]: the printer's own spelling of extent n
      } else if (l && l->value == 0 && hi.dtype() == lo.dtype()) {
        extent = hi;  // A[0 : n]: the extent is n itself, so printing gives back the same slice
      } else {
        absl::StatusOr<PrimExpr> e = tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(hi), tir::Operand(lo), span);
        if (!e.ok()) Fail(span, std::string(e.status().message()));
        extent = *e;
      }
      if (region) region->push_back(Range(lo, extent));
      int64_t step = v.items[2].kind == K::kNone ? 1 : ToInt(v.items[2], SpanOr(v.items[2], span));
      if (const auto* n = extent.as<IntImmNode>()) {
        int64_t lanes = (n->value + step - 1) / step;
        if (lanes > 1) {
          out.push_back(Ramp(lo, IntImm(lo.dtype(), step), static_cast<int>(lanes)));
        } else {
          out.push_back(lo);
        }
      } else {
        out.push_back(lo);
      }
      continue;
    }
    PrimExpr e = ToPrim(v, SpanOr(v, span));
    if (region) region->push_back(Range(e, IntImm(e.dtype().with_lanes(1), 1)));
    out.push_back(e);
  }
  return out;
}

Value Parser::LoadFromBuffer(const Buffer& b, const std::vector<Value>& idx, const Span& span) {
  bool has_slice = false;
  Array<Range> region;
  Array<PrimExpr> indices = BufferIndices(b, idx, span, &has_slice, &region);
  if (has_slice) {
    Value v = Value::Obj(K::kRegion, BufferRegion(b, region));
    v.items.push_back(Value::Obj(K::kPrim, BufferLoad(b, indices, span)));  // its vector-load reading
    return v;
  }
  return Value::Obj(K::kPrim, BufferLoad(b, indices, span));
}

void Parser::TIRFor(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (!s.orelse.empty()) Fail(span, "for ... else is not supported");
  Value it = Eval(s.iter);
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
    if (l.step.defined() && !(one && one->value == 1)) loop.CopyOnWrite()->step = l.step;
    body = loop;
  }
  tir_.Emit(body);
}

void Parser::TIRWith(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
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
  if (name == "T.sblock") {
    CallArgs a;
    for (const auto& x : item.context_expr->args) a.args.push_back(Eval(x));
    std::string block_name = a.args.empty() ? "" : ToStr(a.args[0], SpanOr(a.args[0], cspan));
    tir_.BeginBlock(block_name);
    PushScope();
    ParseTIRBody(s.body);
    PopScope();
    tir_.EndBlock(span);
    return;
  }
  if (name == "T.init") {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(cspan, "T.init() must be used inside a T.sblock");
    if (blk->init.defined()) Fail(cspan, "a block has one T.init()");
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
  Fail(cspan, "unsupported with context in TIR: expected T.sblock, T.init or T.attr");
}

// ------------------------------------------------------------------ T.* calls

Buffer Parser::MakeBuffer(const std::string& name, CallArgs& a, size_t first, const std::string& default_scope,
                          PrimExpr* data_value) {
  auto pos = [&](size_t i, const char* kw) { return Arg(a, first + i, kw); };
  const Value* shape_v = pos(0, "shape");
  if (!shape_v) Fail(a.span, "a buffer needs a shape");
  Array<PrimExpr> shape = ToPrimArray(*shape_v, SpanOr(*shape_v, a.span));
  DataType dtype = DataType::Float(32);
  if (const Value* d = pos(1, "dtype")) dtype = ToDType(*d, SpanOr(*d, a.span));
  std::string scope = default_scope;
  if (const Value* sc = pos(5, "scope")) scope = ToStr(*sc, SpanOr(*sc, a.span));
  if (scope.empty()) scope = "global";  // scope="" is the global scope, printed as the default
  Buffer b = Buffer::Make(name.empty() ? "buffer" : name, shape, dtype, scope, a.span);
  BufferNode* n = b.CopyOnWrite();
  if (const Value* data = pos(2, "data")) {
    if (data->kind != K::kNone) {
      PrimExpr dv = ToPrim(*data, SpanOr(*data, a.span));
      if (dv.as<VarNode>()) {
        n->data = Downcast<Var>(dv);
      } else if (data_value && dv.dtype().is_handle()) {
        // data=T.address_of(A[4]): TVM keeps the expression on the DeclBuffer; kiln binds it to
        // the buffer's data variable with a let just outside the declaration.
        n->data = Var(n->name + "_data", PointerType(PrimType(dtype), scope), SpanOr(*data, a.span));
        *data_value = dv;
      } else {
        Fail(SpanOr(*data, a.span), data_value ? "data= must be a pointer (a handle variable such as A.data, or T.address_of(...))"
                                               : "data= must be a handle variable (e.g. A.data)");
      }
    }
  }
  if (const Value* st = pos(3, "strides")) {
    if (st->kind != K::kNone) {
      for (const Value& s : ToSeq(*st, SpanOr(*st, a.span))) {
        if (s.kind == K::kStr) {  // strides=("s0", "s1"): new symbolic variables
          const Value* known = Lookup(s.s);
          Var v = known && known->kind == K::kPrim && known->obj.as<VarNode>() ? Downcast<Var>(known->obj) : Var(s.s, DataType::Int(32), a.span);
          if (!known) Define(s.s, Value::Obj(K::kPrim, v));
          n->strides.push_back(v);
        } else {
          n->strides.push_back(ToPrim(s, SpanOr(s, a.span)));
        }
      }
    }
  }
  if (const Value* eo = pos(4, "elem_offset")) {
    // An explicit elem_offset=0 is the default (an undefined offset means 0): one canonical form,
    // T.int64(0) too: the printer omits a zero offset of any integer type.
    if (eo->kind != K::kNone && !(eo->kind == K::kInt && eo->i == 0)) {
      PrimExpr off = ToPrim(*eo, SpanOr(*eo, a.span));
      const auto* imm = off.as<IntImmNode>();
      if (!imm || imm->value != 0) n->elem_offset = off;
    }
  }
  if (const Value* al = pos(6, "align")) n->data_alignment = static_cast<int32_t>(ToInt(*al, a.span) < 0 ? 0 : ToInt(*al, a.span));
  if (const Value* of = pos(7, "offset_factor")) n->offset_factor = static_cast<int32_t>(ToInt(*of, a.span));
  if (const Value* bt = pos(8, "buffer_type")) {
    std::string t = ToStr(*bt, a.span);
    if (t == "auto") n->buffer_type = BufferKind::kAutoBroadcast;
    else if (t != "" && t != "default") Fail(SpanOr(*bt, a.span), "buffer_type is \"default\" or \"auto\"");
  }
  if (const Value* ax = pos(9, "axis_separators")) {
    if (ax->kind != K::kNone) {
      for (const Value& x : ToSeq(*ax, a.span)) n->axis_separators.push_back(IntImm(DataType::Int(32), ToInt(x, a.span)));
    }
  }
  if (const Value* l = Kwarg(a, "layout")) SetBufferLayout(*l, n, SpanOr(*l, a.span));
  if (const Value* ad = Kwarg(a, "allocated_addr")) {
    // One address or one per dimension of the scope's address space; None = not assigned.
    if (ad->kind != K::kNone) n->allocated_addr = ad->is_seq() ? ToPrimArray(*ad, SpanOr(*ad, a.span)) : Array<PrimExpr>{ToPrim(*ad, SpanOr(*ad, a.span))};
  }
  static const char* kKnown[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope", "align",
                                 "offset_factor", "buffer_type", "axis_separators", "annotations",
                                 "layout", "allocated_addr"};
  for (const auto& [k, v] : a.kwargs) {
    bool ok = false;
    for (const char* known : kKnown) ok |= k == known;
    if (!ok) Fail(SpanOr(v, a.span), absl::StrCat("unexpected keyword argument '", k, "' for a buffer"));
  }
  return b;
}

Value Parser::CallT(const std::string& name_in, CallArgs& a) {
  std::string name = CanonicalDTypeName(name_in);
  const Span& span = a.span;
  auto need = [&](size_t lo, size_t hi) {
    if (a.args.size() < lo || a.args.size() > hi) {
      Fail(span, absl::StrCat("T.", name, " expects ", lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi),
                              " positional argument", hi == 1 ? "" : "s", ", got ", a.args.size()));
    }
  };
  auto prim = [&](size_t i) { return ToPrim(a.args[i], SpanOr(a.args[i], span)); };
  auto operand = [&](size_t i) -> tir::Operand {
    const Value& v = a.args[i];
    switch (v.kind) {
      case K::kInt: return tir::Operand::IntLiteral(v.i, v.span);
      case K::kFloat: return tir::Operand::FloatLiteral(v.f, v.span);
      case K::kBool: return tir::Operand::BoolLiteral(v.b, v.span);
      default: return tir::Operand(prim(i));
    }
  };
  auto ok_or_fail_prim = [&](absl::StatusOr<PrimExpr> r) -> PrimExpr {
    if (!r.ok()) Fail(span, std::string(r.status().message()));
    return *r;
  };
  auto ok_or_fail = [&](absl::StatusOr<PrimExpr> r) -> Value { return Value::Obj(K::kPrim, ok_or_fail_prim(std::move(r))); };
  // A call's result dtype; "" is void, as TVM's DataType("") is (T.call_extern(..., dtype="")).
  auto call_dtype = [&](const Value& v) {
    return v.kind == K::kStr && v.s.empty() ? DataType::Void() : ToDType(v, SpanOr(v, span));
  };
  auto fresh_name = [&]() { return name_hint_.empty() ? std::string("v") : name_hint_; };
  // Statement-like calls add to the body under construction, which exists only inside a
  // T.prim_func (not at module or class level, nor in a Relax function).
  auto need_body = [&]() {
    if (!tir_.func()) Fail(span, absl::StrCat("T.", name, " is a statement: it can only be used in a T.prim_func"));
  };

  if (Value tile; CallTileDSL(name, a, &tile)) return tile;
  if (name == "block_attr") {
    Warn(a.func_span, "T.block_attr is spelled T.sblock_attr in TVM v0.26");
    name = "sblock_attr";
  }

  // ---- dtype constructors: T.int32(), T.int32(5), T.float16(x), T.bool(True)
  if (IsDTypeName(name)) {
    DataType dtype = *DataType::Parse(name);
    if (a.args.empty()) {
      bool size_var = false;
      if (const Value* sv = Kwarg(a, "is_size_var")) size_var = ToBool(*sv, span);
      Value v = Value::Obj(K::kPrim, size_var ? PrimExpr(SizeVar(fresh_name(), dtype, span)) : PrimExpr(Var(fresh_name(), dtype, span)));
      v.fresh_var = true;
      return v;
    }
    need(1, 1);
    const Value& x = a.args[0];
    if (x.kind == K::kStr && dtype.is_floating()) {
      double f = x.s == "inf" ? std::numeric_limits<double>::infinity()
               : x.s == "-inf" ? -std::numeric_limits<double>::infinity()
               : x.s == "nan" ? std::numeric_limits<double>::quiet_NaN() : 0;
      if (x.s != "inf" && x.s != "-inf" && x.s != "nan") Fail(SpanOr(x, span), "expected \"inf\", \"-inf\" or \"nan\"");
      return Value::Obj(K::kPrim, FloatImm(dtype, f, span));
    }
    if (x.is_number()) return ok_or_fail(tir::MakeConst(dtype, operand(0), span));
    return ok_or_fail(tir::CastTo(dtype, prim(0), span));
  }
  if (name == "handle") {
    // T.handle() / T.handle("float32", "shared"): a fresh handle variable.
    Type ty = PrimType(DataType::Handle());
    static const char* kTensorMapNames[] = {"TensorMap", "tensormap", "CUtensorMap", "cuTensorMap"};
    bool tensor_map = false;
    for (const char* n : kTensorMapNames) tensor_map |= !a.args.empty() && a.args[0].kind == K::kStr && a.args[0].s == n;
    if (tensor_map) {  // T.handle("tensormap") is T.TensorMap(), as in TVM's builder
      CallArgs none;
      none.span = none.func_span = span;
      return CallT("TensorMap", none);
    }
    if (!a.args.empty()) {
      DataType elem = ToDType(a.args[0], SpanOr(a.args[0], span));
      std::string scope = a.args.size() > 1 ? ToStr(a.args[1], span) : "global";
      ty = PointerType(PrimType(elem), scope);
    }
    Value v = Value::Obj(K::kPrim, Var(fresh_name(), ty, span));
    v.fresh_var = true;
    return v;
  }
  if (name == "TensorMap") {
    // T.TensorMap(): a fresh handle variable pointing to a CUDA tensor-map descriptor.
    need(0, 0);
    Value v = Value::Obj(K::kPrim, Var(fresh_name(), PointerType(TensorMapType::Make()), span));
    v.fresh_var = true;
    return v;
  }
  if (name == "target") {  // a target is kept as its string (the printer spells it T.target(...)) or dict
    need(1, 2);
    const Value* host = Arg(a, 1, "host");
    for (const auto& [k, v] : a.kwargs) {
      if (k != "host") Fail(SpanOr(v, span), absl::StrCat("T.target has no argument '", k, "'"));
    }
    if (a.args[0].kind == K::kDict && !host) return a.args[0];
    if (!host) return Value::Str(ToStr(a.args[0], SpanOr(a.args[0], span)));
    // T.target("cuda", host="llvm"): the dict form TVM prints for a target with a host.
    Value d = a.args[0].kind == K::kDict ? a.args[0] : Value::Of(K::kDict);
    if (a.args[0].kind != K::kDict) {
      d.keys.push_back(Value::Str("kind"));
      d.items.push_back(a.args[0]);
    }
    d.keys.push_back(Value::Str("host"));
    d.items.push_back(*host);
    return d;
  }
  if (name == "call_intrin") {  // T.call_intrin(dtype, "op.name", args...): an operator by its IR name
    if (a.args.size() < 2) Fail(span, "T.call_intrin(dtype, op_name, *args) needs a dtype and an operator name");
    DataType dtype = call_dtype(a.args[0]);
    std::string op = ToStr(a.args[1], SpanOr(a.args[1], span));
    Array<PrimExpr> args;
    for (size_t i = 2; i < a.args.size(); ++i) args.push_back(prim(i));
    return Value::Obj(K::kPrim, Call(dtype, Op(op), args, span));
  }
  if (name == "meta_var") {
    need(1, 1);
    return a.args[0];
  }

  // ---- buffers
  // T.buffer(...) is the builder function behind the T.Buffer proxy: the same arguments.
  if (name == "Buffer" || name == "buffer") return Value::Obj(K::kBuffer, MakeBuffer(fresh_name(), a, 0, "global"));
  if (name == "match_buffer") {
    if (a.args.empty()) Fail(span, "T.match_buffer(param, shape, dtype, ...) needs the matched parameter");
    if (a.args.size() == 1 && !Kwarg(a, "shape") && a.args[0].kind == K::kRegion) {
      // Matching a region without a shape: as in TVM, the region's extents and the source
      // buffer's dtype (which overrides a dtype= given).
      const auto* region = a.args[0].obj.as<BufferRegionNode>();
      std::vector<Value> extents;
      for (const Range& r : region->region) extents.push_back(Value::Obj(K::kPrim, r->extent));
      a.args.push_back(Value::Seq(K::kTuple, std::move(extents)));
      a.args.push_back(Value::Str(region->buffer->dtype.ToString()));
      a.kwargs.erase(std::remove_if(a.kwargs.begin(), a.kwargs.end(), [](const auto& kv) { return kv.first == "dtype"; }),
                     a.kwargs.end());
    }
    Buffer b = MakeBuffer(fresh_name(), a, 1, "global");
    const Value& src = a.args[0];
    if (builder::BlockData* blk = tir_.block()) {
      BufferRegion region;
      if (src.kind == K::kRegion) {
        region = Downcast<BufferRegion>(src.obj);
      } else if (src.kind == K::kBuffer) {
        Buffer sb = Downcast<Buffer>(src.obj);
        Array<Range> full;
        for (const PrimExpr& d : sb->shape) full.push_back(Range(IntImm(d.dtype(), 0), d));
        region = BufferRegion(sb, full);
      } else if (src.kind == K::kPrim && src.obj.as<BufferLoadNode>()) {
        const auto* load = src.obj.as<BufferLoadNode>();
        Array<Range> r;
        for (const PrimExpr& i : load->indices) r.push_back(Range(i, IntImm(i.dtype(), 1)));
        region = BufferRegion(load->buffer, r);
      } else {
        Fail(SpanOr(src, span), "T.match_buffer in a block matches a buffer region, e.g. A[vi, 0:16]");
      }
      blk->match_buffers.push_back(MatchBufferRegion(b, region));
      return Value::Obj(K::kBuffer, b);
    }
    builder::PrimFuncData* fd = tir_.func();
    const VarNode* param = src.kind == K::kPrim ? src.obj.as<VarNode>() : nullptr;
    int64_t index = -1;
    if (fd && param) {
      for (size_t i = 0; i < fd->params.size(); ++i) if (fd->params[i].get() == param) index = static_cast<int64_t>(i);
    }
    if (index < 0) Fail(SpanOr(src, span), "T.match_buffer outside a block matches a T.handle parameter of the function");
    if (fd->buffer_map.count(fd->params[index])) Fail(SpanOr(src, span), absl::StrCat("parameter ", param->name, " is already matched to a buffer"));
    fd->buffer_map.Set(fd->params[index], b);
    return Value::Obj(K::kBuffer, b);
  }
  if (name == "alloc_buffer" || name == "alloc_local" || name == "alloc_shared") {
    std::string scope = name == "alloc_local" ? "local" : name == "alloc_shared" ? "shared" : "global";
    Buffer b = MakeBuffer(fresh_name(), a, 0, scope);
    Map<String, ObjectRef> ann;
    if (const Value* an = Kwarg(a, "annotations")) ann = ToAttrMap(*an, span);
    need_body();
    tir_.BeginImplicit([b, ann, span](Stmt body) { return AllocBuffer(b, body, ann, span); });
    return Value::Obj(K::kBuffer, b);
  }
  if (name == "decl_buffer") {
    PrimExpr data_value;
    Buffer b = MakeBuffer(fresh_name(), a, 0, "global", &data_value);
    need_body();
    const Value* data = Arg(a, 2, "data");
    if (!data || data->kind == K::kNone) {
      // Without data= the buffer is a new allocation, as in TVM (an AllocBuffer).
      tir_.BeginImplicit([b, span](Stmt body) { return AllocBuffer(b, body, {}, span); });
      return Value::Obj(K::kBuffer, b);
    }
    tir_.BeginImplicit([b, data_value, span](Stmt body) {
      Stmt decl = DeclBuffer(b, body, span);
      return data_value.defined() ? Stmt(LetStmt(b->data, data_value, decl, span)) : decl;
    });
    return Value::Obj(K::kBuffer, b);
  }
  if (name == "sblock_alloc_buffer") {
    Buffer b = MakeBuffer(fresh_name(), a, 0, "global");
    if (builder::BlockData* blk = tir_.block()) {
      blk->alloc_buffers.push_back(b);
    } else if (tir_.func() && tir_.func()->s_tir) {
      tir_.func()->root_alloc_buffers.push_back(b);
    } else {
      Fail(a.func_span, "T.sblock_alloc_buffer must be used inside a T.sblock (or at the top of an s_tir function)");
    }
    return Value::Obj(K::kBuffer, b);
  }

  // ---- loops
  if (name == "serial" || name == "parallel" || name == "vectorized" || name == "unroll" || name == "thread_binding") {
    LoopSpec l;
    l.kind = name == "parallel" ? ForKind::kParallel : name == "vectorized" ? ForKind::kVectorized
           : name == "unroll" ? ForKind::kUnrolled : name == "thread_binding" ? ForKind::kThreadBinding : ForKind::kSerial;
    std::vector<Value> pos = a.args;
    // T.thread_binding(extent, "threadIdx.x") or (start, stop, "threadIdx.x"): the tag may be the
    // last positional argument.
    if (name == "thread_binding" && pos.size() >= 2 && pos.back().kind == K::kStr) {
      l.thread = pos.back().s;
      pos.pop_back();
    }
    if (pos.size() == 3) {  // range(start, stop, step)
      l.step = ToPrim(pos[2], SpanOr(pos[2], span));
      pos.pop_back();
    }
    if (pos.empty() || pos.size() > 2) Fail(span, absl::StrCat(name_in == "serial" ? "range" : "T." + name, " expects (stop), (start, stop) or (start, stop, step)"));
    if (pos.size() == 1) {
      l.extent = ToPrim(pos[0], SpanOr(pos[0], span));
      l.min = IntImm(l.extent.dtype(), 0);
    } else {
      PrimExpr stop = pos[1].is_number() ? PrimExpr() : ToPrim(pos[1], SpanOr(pos[1], span));
      PrimExpr start = pos[0].is_number() ? PrimExpr() : ToPrim(pos[0], SpanOr(pos[0], span));
      DataType t = stop.defined() ? stop.dtype() : start.defined() ? start.dtype() : DataType::Int(32);
      if (!t.is_int() && !t.is_uint()) Fail(span, absl::StrCat("loop bounds must be integers, got ", t.ToString()));
      if (!start.defined()) start = ToPrimAs(t, pos[0], span);
      if (!stop.defined()) stop = ToPrimAs(t, pos[1], span);
      l.min = start;
      const auto* s0 = start.as<IntImmNode>();
      const auto* s1 = stop.as<IntImmNode>();
      const auto* add = stop.as<AddNode>();
      if (s0 && s1) {
        l.extent = IntImm(stop.dtype(), s1->value - s0->value);
      } else if (add && StructuralEqual(add->a, start)) {
        l.extent = add->b;  // range(m, m + n): the printer's spelling of extent n
      } else {
        absl::StatusOr<PrimExpr> e = tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(stop), tir::Operand(start), span);
        if (!e.ok()) Fail(span, std::string(e.status().message()));
        l.extent = *e;
      }
      if (l.min.dtype() != l.extent.dtype()) {
        absl::StatusOr<PrimExpr> m = tir::CastTo(l.extent.dtype(), l.min, span);
        if (m.ok()) l.min = *m;
      }
    }
    for (const auto& [k, v] : a.kwargs) {
      if (k == "annotations") l.annotations = ToAttrMap(v, span);
      else if (k == "step") l.step = ToPrim(v, SpanOr(v, span));
      else if (k == "thread" && name == "thread_binding") l.thread = ToStr(v, span);
      else if (k == "unroll" && name != "thread_binding") AddUnrollAnnotation(v, &l.annotations, SpanOr(v, span));
      else if (k == "dtype" && name != "thread_binding") RetypeLoop(ToDType(v, SpanOr(v, span)), &l, SpanOr(v, span));
      else Fail(SpanOr(v, span), absl::StrCat("unexpected keyword argument '", k, "'"));
    }
    if (name == "thread_binding") {
      bool valid = absl::StartsWith(l.thread, "vthread") || l.thread == "warp" ||
                   ((absl::StartsWith(l.thread, "blockIdx.") || absl::StartsWith(l.thread, "threadIdx.")) &&
                    l.thread.size() == 10 + (l.thread[0] == 't') && std::string("xyz").find(l.thread.back()) != std::string::npos);
      if (!valid) {
        Fail(span, absl::StrCat("invalid thread tag \"", l.thread, "\"; expected blockIdx.{x,y,z}, threadIdx.{x,y,z}, vthread* or warp"));
      }
    }
    Value out = Value::Of(K::kLoops);
    out.loops.push_back(l);
    return out;
  }
  if (name == "grid") {
    Value out = Value::Of(K::kLoops);
    for (size_t i = 0; i < a.args.size(); ++i) {
      LoopSpec l;
      l.extent = prim(i);
      l.min = IntImm(l.extent.dtype(), 0);
      out.loops.push_back(l);
    }
    if (out.loops.empty()) Fail(span, "T.grid needs at least one extent");
    return out;
  }

  // ---- blocks
  if (absl::StartsWith(name, "axis.")) {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(span, absl::StrCat("T.", name, " must be used inside a T.sblock"));
    std::string kind = name.substr(5);
    if (kind == "remap") {
      need(2, 2);
      std::string kinds = ToStr(a.args[0], SpanOr(a.args[0], span));
      std::vector<Value> bindings = ToSeq(a.args[1], SpanOr(a.args[1], span));
      if (kinds.size() != bindings.size()) {
        Fail(span, absl::StrCat("T.axis.remap: the kinds string \"", kinds, "\" has size ", kinds.size(), " but ",
                                bindings.size(), " bindings are given"));
      }
      std::vector<Value> out;
      for (size_t i = 0; i < kinds.size(); ++i) {
        PrimExpr bind = ToPrim(bindings[i], SpanOr(bindings[i], span));
        const auto* lv = bind.as<VarNode>();
        auto range = lv ? loop_ranges_.find(lv) : loop_ranges_.end();
        if (range == loop_ranges_.end()) Fail(SpanOr(bindings[i], span), "T.axis.remap binds loop variables only");
        IterVarType t = kinds[i] == 'S' ? IterVarType::kDataPar : kinds[i] == 'R' ? IterVarType::kCommReduce
                      : IterVarType::kOpaque;
        if (kinds[i] != 'S' && kinds[i] != 'R') Fail(span, "T.axis.remap kinds are 'S' (spatial) or 'R' (reduce)");
        std::string vname = i < name_hints_.size() ? name_hints_[i] : (kinds.size() == 1 ? fresh_name() : "v");
        Var var(vname, bind.dtype(), span);
        blk->iter_vars.push_back(IterVar(range->second, var, t, "", span));
        blk->iter_values.push_back(bind);
        Value v = Value::Obj(K::kPrim, var);
        v.fresh_var = true;
        out.push_back(v);
      }
      if (out.size() == 1 && name_hints_.empty()) return out[0];
      return Value::Seq(K::kTuple, std::move(out));
    }
    IterVarType t;
    if (kind == "spatial" || kind == "S") t = IterVarType::kDataPar;
    else if (kind == "reduce" || kind == "R") t = IterVarType::kCommReduce;
    else if (kind == "scan") t = IterVarType::kOrdered;
    else if (kind == "opaque") t = IterVarType::kOpaque;
    else Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function"));
    need(1, 2);
    const Value& dom = a.args[0];
    Range r;
    if (dom.kind == K::kTuple || dom.kind == K::kList) {
      if (dom.items.size() != 2) Fail(SpanOr(dom, span), "an axis domain is an extent or a (min, max) pair");
      PrimExpr lo = ToPrim(dom.items[0], span), hi = ToPrim(dom.items[1], span);
      const auto* l = lo.as<IntImmNode>();
      const auto* h = hi.as<IntImmNode>();
      const auto* add = hi.as<AddNode>();
      PrimExpr ext = l && h ? PrimExpr(IntImm(hi.dtype(), h->value - l->value))
                   : add && StructuralEqual(add->a, lo) ? add->b
                   : *tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(hi), tir::Operand(lo), span);
      r = Range(lo, ext);
    } else if (dom.kind != K::kNone) {
      PrimExpr ext = ToPrim(dom, SpanOr(dom, span));
      r = Range(IntImm(ext.dtype(), 0), ext);
    }
    PrimExpr bind = a.args.size() > 1 ? prim(1) : PrimExpr();
    DataType vt = bind.defined() ? bind.dtype() : r.defined() ? r->extent.dtype() : DataType::Int(32);
    if (const Value* d = Kwarg(a, "dtype")) vt = ToDType(*d, span);
    if (r.defined() && r->extent.dtype() != vt && r->min.as<IntImmNode>() && r->extent.as<IntImmNode>()) {
      r = Range(IntImm(vt, r->min.as<IntImmNode>()->value), IntImm(vt, r->extent.as<IntImmNode>()->value));
    }
    Var var(fresh_name(), vt, span);
    blk->iter_vars.push_back(IterVar(r, var, t, "", span));
    if (bind.defined()) blk->iter_values.push_back(bind);
    Value v = Value::Obj(K::kPrim, var);
    v.fresh_var = true;
    return v;
  }
  if (name == "reads" || name == "writes") {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(span, absl::StrCat("T.", name, " must be used inside a T.sblock"));
    Array<BufferRegion> regions;
    std::vector<Value> flat;
    for (const Value& v : a.args) {
      if (v.is_seq()) flat.insert(flat.end(), v.items.begin(), v.items.end()); else flat.push_back(v);
    }
    for (const Value& v : flat) {
      if (v.kind == K::kRegion) {
        regions.push_back(Downcast<BufferRegion>(v.obj));
      } else if (v.kind == K::kPrim && v.obj.as<BufferLoadNode>()) {
        const auto* load = v.obj.as<BufferLoadNode>();
        Array<Range> r;
        for (const PrimExpr& i : load->indices) r.push_back(Range(i, IntImm(i.dtype(), 1)));
        regions.push_back(BufferRegion(load->buffer, r));
      } else if (v.kind == K::kBuffer) {
        Buffer b = Downcast<Buffer>(v.obj);
        Array<Range> r;
        for (const PrimExpr& d : b->shape) r.push_back(Range(IntImm(d.dtype(), 0), d));
        regions.push_back(BufferRegion(b, r));
      } else {
        Fail(SpanOr(v, span), absl::StrCat("T.", name, " takes buffer regions, e.g. A[vi, 0:16]"));
      }
    }
    (name == "reads" ? blk->reads : blk->writes) = regions;
    return Value::None();
  }
  if (name == "sblock_attr") {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(span, "T.sblock_attr must be used inside a T.sblock");
    need(1, 1);
    for (const auto& [k, v] : ToAttrMap(a.args[0], span).items()) blk->annotations.Set(k, v);
    return Value::None();
  }
  if (name == "where") {
    builder::BlockData* blk = tir_.block();
    if (!blk) Fail(span, "T.where must be used inside a T.sblock");
    need(1, 1);
    blk->predicate = prim(0);
    return Value::None();
  }
  if (name == "func_attr") {
    builder::PrimFuncData* fd = tir_.func();
    if (!fd) Fail(span, "T.func_attr must be used inside a T.prim_func");
    need(1, 1);
    for (const auto& [k, v] : ToAttrMap(a.args[0], span).items()) fd->attrs.Set(k, v);
    return Value::None();
  }
  if (name == "sblock" || name == "block" || name == "init") {
    Fail(span, absl::StrCat("T.", name, "() is used as `with T.", name, "(...):`"));
  }

  // ---- statements as calls
  if (name == "evaluate") {
    need(1, 1);
    need_body();
    tir_.Emit(Evaluate(prim(0), span));
    return Value::None();
  }
  if (name == "bind") {  // T.bind(value, var=x): binds x (declared by x = T.int32()) for the rest of the block
    need(1, 2);
    const Value* var_v = Kwarg(a, "var");
    PrimExpr value = prim(0);
    Var var;
    if (a.args.size() == 2) {  // T.bind(value, T.handle("float32")): a new variable of that type
      if (var_v) Fail(span, "T.bind takes a type annotation or var=, not both");
      const Value& t = a.args[1];
      const auto* tv = t.kind == K::kPrim && t.fresh_var ? t.obj.as<VarNode>() : nullptr;
      if (!tv) Fail(SpanOr(t, span), "T.bind's second argument is a type annotation such as T.handle(\"float32\")");
      var = tv->ty.defined() ? Var(fresh_name(), tv->ty, span) : Var(fresh_name(), tv->dtype, span);
    } else if (var_v) {
      PrimExpr p = ToPrim(*var_v, SpanOr(*var_v, span));
      if (!p.as<VarNode>()) Fail(SpanOr(*var_v, span), "T.bind(value, var=x) binds a variable");
      var = Downcast<Var>(p);
    } else {
      var = Var(fresh_name(), value.dtype(), span);
    }
    if (var->dtype != value.dtype()) {
      Fail(span, absl::StrCat("mismatched types: T.bind of a ", value.dtype().ToString(), " value to ", var->name,
                              " of type ", var->dtype.ToString()));
    }
    need_body();
    tir_.BeginImplicit([var, value, span](Stmt body) { return LetStmt(var, value, body, span); });
    if (var_v) return Value::None();
    // The new variable is already bound: `x = T.bind(...)` names it rather than binding it again.
    Value bound = Value::Obj(K::kPrim, var);
    bound.fresh_var = true;
    return bound;
  }
  if (name == "break_loop" || name == "continue_loop") {  // function spellings of break / continue
    need(0, 0);
    if (loop_depth_ == 0) Fail(span, absl::StrCat("T.", name, "() outside loop"));
    tir_.Emit(name == "break_loop" ? Stmt(Break::Make(span)) : Stmt(Continue::Make(span)));
    return Value::None();
  }
  if (name == "launch_thread") {
    need(2, 2);
    PrimExpr extent = prim(1);
    IterVar iv;
    const Value& t = a.args[0];
    if (t.kind == K::kStr) {
      Var var(fresh_name(), extent.dtype(), span);
      iv = IterVar(Range(IntImm(extent.dtype(), 0), extent), var, IterVarType::kThreadIndex, t.s, span);
    } else {
      const IterVarNode* known = t.kind == K::kIterVar ? t.obj.as<IterVarNode>() : nullptr;
      if (!known && t.kind == K::kPrim) {
        auto it = thread_ivs_.find(t.obj.get());
        if (it != thread_ivs_.end()) known = it->second.get();
      }
      if (!known) Fail(SpanOr(t, span), "T.launch_thread takes a thread tag (\"threadIdx.x\") or a variable from T.env_thread");
      iv = IterVar(Range(IntImm(extent.dtype(), 0), extent), known->var, IterVarType::kThreadIndex, known->thread_tag, span);
    }
    thread_ivs_[iv->var.get()] = iv;
    std::string key = absl::StartsWith(iv->thread_tag, "vthread") ? "virtual_thread" : "thread_extent";
    need_body();
    tir_.BeginImplicit([iv, key, extent, span](Stmt body) { return AttrStmt(iv, key, extent, body, span); });
    Value v = Value::Obj(K::kPrim, iv->var);
    v.fresh_var = true;
    return t.kind == K::kStr ? v : Value::None();
  }
  if (name == "env_thread") {
    need(1, 1);
    Var var(fresh_name(), DataType::Int(32), span);
    IterVar iv(Range(), var, IterVarType::kThreadIndex, ToStr(a.args[0], span), span);
    thread_ivs_[var.get()] = iv;
    return Value::Obj(K::kIterVar, iv);
  }
  if (name == "all" || name == "any") {  // tvm.tirx.all(*conds) / any: a left-nested and/or chain
    if (a.args.empty() || !a.kwargs.empty()) Fail(span, absl::StrCat("T.", name, " takes one or more conditions"));
    tir::BinaryOpKind op = name == "all" ? tir::BinaryOpKind::kAnd : tir::BinaryOpKind::kOr;
    if (a.args.size() == 1) return a.args[0];
    PrimExpr acc = ok_or_fail_prim(tir::BinaryOp(op, operand(0), operand(1), span));
    for (size_t i = 2; i < a.args.size(); ++i) acc = ok_or_fail_prim(tir::BinaryOp(op, acc, operand(i), span));
    return Value::Obj(K::kPrim, acc);
  }
  if (name == "llvm_lookup_intrinsic_id") {
    // TVM resolves the name to its LLVM version's numeric id; kiln's call_llvm_(pure_)intrin keep
    // the name itself, which is what this evaluates to.
    need(1, 1);
    Value n = Value::Str(ToStr(a.args[0], SpanOr(a.args[0], span)));
    n.span = span;
    return n;
  }
  if (name == "Range") {  // T.Range(begin, end): a domain, as a slice value for T.iter_var
    need(2, 2);
    Value r = Value::Seq(K::kSlice, {a.args[0], a.args[1], Value::None()});
    r.span = span;
    return r;
  }
  if (name == "iter_var") {  // T.iter_var(var, dom, "ThreadIndex", "threadIdx.x"): an IterVar node
    need(4, 4);
    PrimExpr v = prim(0);
    if (!v.as<VarNode>()) Fail(SpanOr(a.args[0], span), "T.iter_var binds a variable");
    Range dom;
    const Value& d = a.args[1];
    if (d.kind == K::kSlice || (d.is_seq() && d.items.size() == 2)) {
      // Range(begin, end) has extent end - begin, folded as TVM's operator folds it.
      PrimExpr lo = ToPrim(d.items[0], SpanOr(d.items[0], span));
      PrimExpr hi = ToPrim(d.items[1], SpanOr(d.items[1], span));
      dom = Range(lo, ok_or_fail_prim(tir::BinaryOp(tir::BinaryOpKind::kSub, hi, lo, span)));
    } else if (d.kind != K::kNone) {
      Fail(SpanOr(d, span), "T.iter_var takes a domain T.Range(begin, end), [begin, end] or None");
    }
    static constexpr std::pair<const char*, IterVarType> kTypes[] = {
        {"DataPar", IterVarType::kDataPar},         {"ThreadIndex", IterVarType::kThreadIndex},
        {"CommReduce", IterVarType::kCommReduce},   {"Ordered", IterVarType::kOrdered},
        {"Opaque", IterVarType::kOpaque},           {"Unrolled", IterVarType::kUnrolled},
        {"Vectorized", IterVarType::kVectorized},   {"Parallelized", IterVarType::kParallelized},
        {"Tensorized", IterVarType::kTensorized}};
    std::string type = ToStr(a.args[2], SpanOr(a.args[2], span));
    const auto* found = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& t) { return type == t.first; });
    if (found == std::end(kTypes)) Fail(SpanOr(a.args[2], span), absl::StrCat("unknown iter_var type \"", type, "\""));
    IterVar iv(dom, Downcast<Var>(v), found->second, ToStr(a.args[3], SpanOr(a.args[3], span)), span);
    if (found->second == IterVarType::kThreadIndex) thread_ivs_[iv->var.get()] = iv;
    return Value::Obj(K::kIterVar, iv);
  }
  if (name == "attr") {
    need(3, 3);
    ObjectRef node = ToAttrValue(a.args[0], span);
    std::string key = ToStr(a.args[1], span);
    PrimExpr value = prim(2);
    need_body();
    tir_.BeginImplicit([node, key, value, span](Stmt body) { return AttrStmt(node, key, value, body, span); });
    return Value::None();
  }

  // ---- expressions
  if (name == "Cast") {
    need(2, 2);
    return Value::Obj(K::kPrim, Cast(ToDType(a.args[0], SpanOr(a.args[0], span)), prim(1), span));
  }
  if (name == "Select") {
    need(3, 3);
    PrimExpr cond = prim(0);
    PrimExpr t, f;
    if (a.args[1].is_number() && a.args[2].is_number()) {
      t = prim(1);
      f = prim(2);
    } else if (a.args[1].is_number()) {
      f = prim(2);
      t = Downcast<PrimExpr>(ok_or_fail(tir::MakeConst(f.dtype(), operand(1), span)).obj);
    } else if (a.args[2].is_number()) {
      t = prim(1);
      f = Downcast<PrimExpr>(ok_or_fail(tir::MakeConst(t.dtype(), operand(2), span)).obj);
    } else {
      t = prim(1);
      f = prim(2);
    }
    if (t.dtype() != f.dtype()) {
      Fail(span, absl::StrCat("mismatched types: ", t.dtype().ToString(), " vs ", f.dtype().ToString(), " in T.Select"));
    }
    return Value::Obj(K::kPrim, Select(cond, t, f, span));
  }
  if (name == "comm_reducer") {  // T.comm_reducer(lambda x, y: x + y, [identity, ...])
    need(2, 2);
    Array<PrimExpr> ids = ToPrimArray(a.args[1], SpanOr(a.args[1], span));
    std::vector<DataType> dtypes;
    for (size_t i = 0; i < 2 * ids.size(); ++i) dtypes.push_back(ids[i % ids.size()].dtype());
    auto node = make_object<CommReducerNode>();
    node->span = span;
    node->identity_element = ids;
    Array<Var> params;
    node->result = EvalLambda(a.args[0], dtypes, "T.comm_reducer", &params, span);
    for (size_t i = 0; i < params.size(); ++i) (i < ids.size() ? node->lhs : node->rhs).push_back(params[i]);
    if (ids.empty() || node->result.size() != ids.size()) {
      Fail(span, "the lambda of T.comm_reducer returns one value per identity value");
    }
    return Value::Obj(K::kReducer, CommReducer(ObjectPtr<Object>(std::move(node))));
  }
  if (name == "index_map") {  // T.index_map(lambda i, j: (j, i), index_dtype="int64")
    need(1, 1);
    DataType index_dtype = DataType::Int(64);
    for (const auto& [k, v] : a.kwargs) {
      if (k == "index_dtype") index_dtype = ToDType(v, SpanOr(v, span));
      else if (k != "inverse_index_map") Fail(SpanOr(v, span), absl::StrCat("T.index_map has no argument '", k, "'"));
    }
    return Value::Obj(K::kReducer, LambdaToIndexMap(a.args[0], index_dtype, span));
  }
  if (name == "cast") {  // T.cast(value, dtype): the function spelling of T.Cast(dtype, value)
    const Value* value = Arg(a, 0, "value");
    const Value* dtype = Arg(a, 1, "dtype");
    if (!value || !dtype || a.args.size() > 2) Fail(span, absl::StrCat("T.cast(value, dtype) expects 2 arguments, got ", a.args.size() + a.kwargs.size()));
    return ok_or_fail(tir::CastTo(ToDType(*dtype, SpanOr(*dtype, span)), ToPrim(*value, SpanOr(*value, span)), span));
  }
  if (name == "const") {  // T.const(value, dtype=None) (tvm.tirx.const): dtype from the literal
    const Value* value = Arg(a, 0, "value");
    const Value* dtype = Arg(a, 1, "dtype");
    if (!value || a.args.size() > 2) Fail(span, "T.const(value, dtype=None) takes a value and an optional dtype");
    tir::Operand lit = value->kind == K::kFloat ? tir::Operand::FloatLiteral(value->f)
                     : value->kind == K::kBool ? tir::Operand::BoolLiteral(value->b)
                     : value->kind == K::kInt ? tir::Operand::IntLiteral(value->i)
                     : tir::Operand(ToPrim(*value, SpanOr(*value, span)));
    if (!dtype || dtype->kind == K::kNone) return Value::Obj(K::kPrim, lit.Materialize());
    return ok_or_fail(tir::MakeConst(ToDType(*dtype, SpanOr(*dtype, span)), lit, span));
  }
  if (name == "IntImm" || name == "FloatImm") {  // node constructors: T.IntImm("int32", 8)
    need(2, 2);
    DataType dtype = ToDType(a.args[0], SpanOr(a.args[0], span));
    const Value& v = a.args[1];
    if (name == "IntImm") {
      if (!dtype.is_int_or_bool() || dtype.lanes() != 1) Fail(span, "T.IntImm takes a scalar integer or bool dtype");
      if (v.kind != K::kInt && v.kind != K::kBool) Fail(SpanOr(v, span), "T.IntImm takes an integer value");
      return ok_or_fail(tir::MakeConst(dtype, tir::Operand::IntLiteral(v.kind == K::kBool ? v.b : v.i), span));
    }
    if (!dtype.is_floating() || dtype.lanes() != 1) Fail(span, "T.FloatImm takes a scalar floating-point dtype");
    if (!v.is_number()) Fail(SpanOr(v, span), "T.FloatImm takes a number");
    return Value::Obj(K::kPrim, FloatImm(dtype, v.kind == K::kFloat ? v.f : static_cast<double>(v.kind == K::kBool ? v.b : v.i), span));
  }
  if (name == "StringImm") {
    need(1, 1);
    return Value::Obj(K::kPrim, StringImm(ToStr(a.args[0], SpanOr(a.args[0], span)), span));
  }
  if (name == "Call") {  // T.Call(op, [args], attrs=None, ret_ty=dtype): the printed form of a Call node
    const Value* op = Arg(a, 0, "op");
    const Value* args = Arg(a, 1, "args");
    const Value* attrs = Arg(a, 2, "attrs");
    const Value* ret = Kwarg(a, "ret_ty");
    for (const auto& [k, v] : a.kwargs) {
      if (k != "op" && k != "args" && k != "attrs" && k != "ret_ty") Fail(SpanOr(v, span), absl::StrCat("T.Call has no argument '", k, "'"));
    }
    if (!op || !args || a.args.size() > 3) Fail(span, "T.Call(op, args, attrs=None, ret_ty=dtype) takes an operator and its arguments");
    if (attrs && attrs->kind != K::kNone && !(attrs->kind == K::kDict && attrs->items.empty())) {
      Fail(SpanOr(*attrs, span), "T.Call: call attributes are not supported");
    }
    if (!ret) Fail(span, "T.Call needs ret_ty= (the call's dtype)");
    std::string op_name;
    if (op->kind == K::kStr) op_name = op->s;
    else if (const auto* o = op->obj.as<OpNode>()) op_name = o->name;
    else Fail(SpanOr(*op, span), "T.Call takes an operator name or I.Op.get(name)");
    return Value::Obj(K::kPrim, Call(call_dtype(*ret), Op(op_name), ToPrimArray(*args, SpanOr(*args, span)), span));
  }
  if (name == "max_value" || name == "min_value" || name == "infinity") {
    need(1, 1);
    return ok_or_fail(tir::LimitValue(name, ToDType(a.args[0], SpanOr(a.args[0], span)), span));
  }
  if (name == "Ramp" || name == "ramp") {
    need(3, 3);
    PrimExpr base, stride;
    if (!tir::MatchTypes(operand(0), operand(1), &base, &stride).ok()) Fail(span, "T.Ramp: base and stride need one integer dtype");
    return Value::Obj(K::kPrim, Ramp(base, stride, static_cast<int>(ToInt(a.args[2], span)), span));
  }
  if (name == "Broadcast" || name == "broadcast") {
    need(2, 2);
    return Value::Obj(K::kPrim, Broadcast(prim(0), static_cast<int>(ToInt(a.args[1], span)), span));
  }
  if (name == "Shuffle") {
    need(2, 2);
    return Value::Obj(K::kPrim, Shuffle(ToPrimArray(a.args[0], span), ToPrimArray(a.args[1], span), span));
  }
  // The function spellings, then the node constructors (T.Add(a, b), T.FloorDiv(a, b), ...) that
  // hand-written tests use.
  static const std::pair<const char*, tir::BinaryOpKind> kBinary[] = {
      {"min", tir::BinaryOpKind::kMin}, {"max", tir::BinaryOpKind::kMax},
      {"truncdiv", tir::BinaryOpKind::kDiv}, {"truncmod", tir::BinaryOpKind::kMod},
      {"floordiv", tir::BinaryOpKind::kFloorDiv}, {"floormod", tir::BinaryOpKind::kFloorMod},
      {"Add", tir::BinaryOpKind::kAdd}, {"Sub", tir::BinaryOpKind::kSub}, {"Mul", tir::BinaryOpKind::kMul},
      {"Div", tir::BinaryOpKind::kDiv}, {"Mod", tir::BinaryOpKind::kMod},
      {"FloorDiv", tir::BinaryOpKind::kFloorDiv}, {"FloorMod", tir::BinaryOpKind::kFloorMod},
      {"Min", tir::BinaryOpKind::kMin}, {"Max", tir::BinaryOpKind::kMax},
      {"EQ", tir::BinaryOpKind::kEQ}, {"NE", tir::BinaryOpKind::kNE}, {"LT", tir::BinaryOpKind::kLT},
      {"LE", tir::BinaryOpKind::kLE}, {"GT", tir::BinaryOpKind::kGT}, {"GE", tir::BinaryOpKind::kGE},
      {"And", tir::BinaryOpKind::kAnd}, {"Or", tir::BinaryOpKind::kOr},
  };
  if (name == "Not") {
    need(1, 1);
    return ok_or_fail(tir::LogicalNot(operand(0), span));
  }
  if (name == "abs") {  // |x|: the identity on unsigned types, max(x, -x) style via Select otherwise
    need(1, 1);
    PrimExpr x = prim(0);
    if (x.dtype().is_uint() || x.dtype().is_bool()) return Value::Obj(K::kPrim, x);
    if (x.dtype().is_float()) return Value::Obj(K::kPrim, Call(x.dtype(), Op("tirx.fabs"), {x}, span));
    PrimExpr zero = *tir::MakeConst(x.dtype(), tir::Operand::IntLiteral(0), span);
    PrimExpr neg = ok_or_fail_prim(tir::Negate(tir::Operand(x), span));
    return Value::Obj(K::kPrim, Select(*tir::BinaryOp(tir::BinaryOpKind::kGE, x, zero, span), x, neg, span));
  }
  if (name == "ceildiv") {  // (a + b - 1) // b on integers, as TVM's helper builds it
    need(2, 2);
    PrimExpr a0 = prim(0), b0 = ToPrimAs(a0.dtype(), a.args[1], span);
    PrimExpr one = *tir::MakeConst(a0.dtype(), tir::Operand::IntLiteral(1), span);
    PrimExpr sum = ok_or_fail_prim(tir::BinaryOp(tir::BinaryOpKind::kSub, ok_or_fail_prim(tir::BinaryOp(tir::BinaryOpKind::kAdd, a0, b0, span)), one, span));
    return ok_or_fail(tir::BinaryOp(tir::BinaryOpKind::kFloorDiv, sum, b0, span));
  }
  for (const auto& [fn, kind] : kBinary) {
    if (name != fn) continue;
    need(2, 2);
    // The lowercase functions fold constants like TVM's operator functions; the node
    // constructors (capitalized) build the node as written.
    bool node_ctor = std::isupper(static_cast<unsigned char>(name[0]));
    if (a.args[0].is_number() && a.args[1].is_number() && (kind == tir::BinaryOpKind::kMin || kind == tir::BinaryOpKind::kMax)) {
      return ok_or_fail(node_ctor ? tir::MakeBinaryNode(kind, tir::Operand(prim(0)), operand(1), span)
                                  : tir::BinaryOp(kind, tir::Operand(prim(0)), operand(1), span));
    }
    return ok_or_fail(node_ctor ? tir::MakeBinaryNode(kind, operand(0), operand(1), span)
                                : tir::BinaryOp(kind, operand(0), operand(1), span));
  }

  // ---- intrinsics from the registry (T.exp, T.if_then_else, T.call_extern, ...)
  NormalizeIntrinsicArgs(name, a);
  const tir::IntrinsicInfo* info = tir::IntrinsicRegistry::Global().FindByScriptName(name);
  if (!info) {
    // Spellings removed before TVM v0.26 get a pointer to their replacement.
    static const std::pair<const char*, const char*> kRemoved[] = {
        {"allocate", "T.alloc_buffer"}, {"allocate_const", "T.alloc_buffer"}, {"realize", "T.sblock"},
        {"store", "buffer element assignment A[i] = v"}, {"load", "buffer element access A[i]"},
    };
    for (const auto& [old_name, v026] : kRemoved) {
      if (name == old_name) Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function in TVM v0.26; use ", v026));
    }
    Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function"));
  }
  using Rule = tir::IntrinsicInfo::DTypeRule;
  std::vector<Value> args = a.args;
  DataType explicit_dtype;
  if (info->dtype_rule == Rule::kExplicit) {
    bool last = info->script_name == "tvm_struct_get";
    if (const Value* d = Kwarg(a, "dtype")) {  // T.reinterpret(x, dtype="int32")
      explicit_dtype = call_dtype(*d);
    } else {
      if (args.empty()) Fail(span, absl::StrCat("T.", name, " needs a dtype argument"));
      const Value& d0 = last ? args.back() : args.front();
      explicit_dtype = call_dtype(d0);
      if (last) args.pop_back(); else args.erase(args.begin());
    }
  }
  int n = static_cast<int>(args.size());
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
    std::string expect = info->max_args < 0 ? absl::StrCat("at least ", info->min_args)
                       : info->min_args == info->max_args ? absl::StrCat(info->min_args)
                       : absl::StrCat(info->min_args, " to ", info->max_args);
    Fail(span, absl::StrCat("T.", name, " expects ", expect, " argument", expect == "1" ? "" : "s", ", got ", n));
  }
  Array<PrimExpr> call_args;
  std::vector<PrimExpr> conv(args.size());
  auto op_of = [&](size_t i) -> tir::Operand {
    const Value& v = args[i];
    switch (v.kind) {
      case K::kInt: return tir::Operand::IntLiteral(v.i, v.span);
      case K::kFloat: return tir::Operand::FloatLiteral(v.f, v.span);
      case K::kBool: return tir::Operand::BoolLiteral(v.b, v.span);
      default: return tir::Operand(ToPrim(v, SpanOr(v, span)));
    }
  };
  size_t pair = info->dtype_rule == Rule::kSecondArg ? 1 : 0;  // if_then_else unifies its branches
  bool unify = info->match_binary_args || info->dtype_rule == Rule::kSecondArg;
  for (size_t i = 0; i < args.size(); ++i) {
    if (unify && (i == pair || i == pair + 1) && args.size() > pair + 1) {
      if (i == pair) {
        absl::Status st = tir::MatchTypes(op_of(pair), op_of(pair + 1), &conv[pair], &conv[pair + 1]);
        if (!st.ok()) Fail(span, absl::StrCat(st.message(), " in T.", name));
      }
      continue;
    }
    conv[i] = op_of(i).Materialize();
  }
  for (PrimExpr& e : conv) call_args.push_back(e);
  DataType dtype;
  switch (info->dtype_rule) {
    case Rule::kSameAsFirstArg: dtype = call_args.empty() ? DataType::Int(32) : call_args[0].dtype(); break;
    case Rule::kBool: dtype = DataType::Bool(); break;
    case Rule::kExplicit: dtype = explicit_dtype; break;
    case Rule::kSecondArg: dtype = call_args[1].dtype(); break;
    case Rule::kInt32: dtype = DataType::Int(32); break;
    case Rule::kHandle: dtype = DataType::Handle(); break;
    case Rule::kVoid: dtype = DataType::Void(); break;
    case Rule::kUInt32: dtype = DataType::UInt(32); break;
    case Rule::kBoolLanesOfFirstArg: dtype = DataType::Bool(call_args[0].dtype().lanes()); break;
  }
  if (info->float_only && !call_args.empty() && !call_args[0].dtype().is_floating()) {
    Fail(span, absl::StrCat("T.", name, " expects a floating-point argument, got ", call_args[0].dtype().ToString()));
  }
  return Value::Obj(K::kPrim, Call(dtype, Op(info->name), call_args, span));
}

void Parser::NormalizeIntrinsicArgs(const std::string& name, CallArgs& a) {
  const Span& span = a.span;
  if (name == "call_packed" || name == "call_cpacked" || name == "call_packed_lowered" || name == "call_cpacked_lowered" ||
      name == "tvm_call_packed" || name == "tvm_call_cpacked" || name == "tvm_call_packed_lowered" ||
      name == "tvm_call_cpacked_lowered") {
    // A buffer argument is passed as the DLTensor TVM packs for it:
    // tvm_stack_make_array(data, make_shape(shape), make_shape(strides) or 0, ndim, 0 as dtype, elem_offset).
    for (Value& v : a.args) {
      if (v.kind != K::kBuffer) continue;
      Buffer b = Downcast<Buffer>(v.obj);
      Op make_shape("tirx.tvm_stack_make_shape");
      PrimExpr strides = b->strides.empty() ? PrimExpr(IntImm(DataType::Int(32), 0))
                                             : PrimExpr(Call(DataType::Handle(), make_shape, b->strides, span));
      absl::StatusOr<PrimExpr> zero = tir::MakeConst(b->dtype, tir::Operand::IntLiteral(0), span);
      if (!zero.ok()) Fail(SpanOr(v, span), std::string(zero.status().message()));
      Array<PrimExpr> pack = {b->data, Call(DataType::Handle(), make_shape, b->shape, span), strides,
                              IntImm(DataType::Int(32), static_cast<int64_t>(b->shape.size())), *zero,
                              b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0))};
      v = Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.tvm_stack_make_array"), pack, span));
    }
    return;
  }
  if (name == "ptx_legacy.ldmatrix") {  // without a dtype the element type defaults to int8
    if (!Kwarg(a, "dtype") && a.args.size() == 7) a.args.insert(a.args.begin(), Value::Str("int8"));
    return;
  }
  if (name == "ptx_legacy.mma") {
    // A dtype (leading, or dtype=) is accepted and dropped: the call returns nothing. The
    // optional operator is the 14th argument or operator=.
    std::vector<Value> args = a.args;
    if (const Value* d = Kwarg(a, "dtype")) args.insert(args.begin(), *d);
    if (args.size() == 14 || args.size() == 15) args.erase(args.begin());
    if (const Value* op = Kwarg(a, "operator")) {
      if (args.size() == 14) Fail(span, "T.ptx_legacy.mma: the operator is given twice");
      if (op->kind != K::kNone) args.push_back(*op);
    }
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& kv : a.kwargs) {
      if (kv.first != "dtype" && kv.first != "operator") kwargs.push_back(kv);
    }
    a.args = std::move(args);
    a.kwargs = std::move(kwargs);
    return;
  }
  if (name == "ptr_byte_offset" && a.args.size() == 3 && a.args[2].kind != K::kPrim) {
    // ptr_byte_offset(data, offset, "float16"): the element type travels as T.type_annotation.
    DataType elem = ToDType(a.args[2], SpanOr(a.args[2], span));
    a.args[2] = Value::Obj(K::kPrim, Call(elem, Op("tirx.type_annotation"), {}, span));
  }
}

PrimExpr Parser::ToPrimAs(DataType dtype, const Value& v, const Span& span) const {
  if (v.kind == K::kInt || v.kind == K::kBool) {
    absl::StatusOr<PrimExpr> c = tir::MakeConst(dtype, tir::Operand::IntLiteral(ToInt(v, span)), span);
    if (!c.ok()) Fail(SpanOr(v, span), std::string(c.status().message()));
    return *c;
  }
  return ToPrim(v, span);
}

void Parser::AddUnrollAnnotation(const Value& v, Map<String, ObjectRef>* annotations, const Span& span) const {
  if (v.kind == K::kBool) {
    annotations->Set(ToBool(v, span) ? "pragma_unroll" : "disable_unroll", IntImm(DataType::Bool(), 1));
    return;
  }
  int64_t n = ToInt(v, span);
  if (n < 1) Fail(span, "unroll must be True, False or a positive integer");
  annotations->Set("pragma_unroll", IntImm(DataType::Int(32), n));
}

void Parser::RetypeLoop(DataType dtype, LoopSpec* loop, const Span& span) const {
  if (dtype != DataType::Int(32) && dtype != DataType::UInt(32) && dtype != DataType::Int(64)) {
    Fail(span, absl::StrCat("a loop variable is int32, uint32 or int64, not ", dtype.ToString()));
  }
  for (PrimExpr* e : {&loop->min, &loop->extent, &loop->step}) {
    if (!e->defined() || e->dtype() == dtype) continue;
    absl::StatusOr<PrimExpr> c = tir::CastTo(dtype, *e, span);
    if (!c.ok()) Fail(span, std::string(c.status().message()));
    *e = *c;
  }
}

Array<PrimExpr> Parser::EvalLambda(const Value& fn, const std::vector<DataType>& param_dtypes, const std::string& what,
                                   Array<Var>* params, const Span& span) {
  if (fn.kind != K::kLambda) Fail(SpanOr(fn, span), what + " takes a lambda");
  const doc::Expr& lam = *fn.lambda;
  if (lam.lambda_args.size() != param_dtypes.size()) {
    Fail(SpanOr(fn, span), absl::StrCat("the lambda of ", what, " takes ", param_dtypes.size(), " parameters, not ",
                                        lam.lambda_args.size()));
  }
  // The parameters are visible in the lambda's body only.
  PushScope();
  struct ScopeGuard {
    Parser* p;
    ~ScopeGuard() { p->PopScope(); }
  } guard{this};
  for (size_t i = 0; i < lam.lambda_args.size(); ++i) {
    Var v(lam.lambda_args[i], param_dtypes[i], span);
    params->push_back(v);
    Define(lam.lambda_args[i], Value::Obj(K::kPrim, v));
  }
  Value body = Eval(lam.value);
  Array<PrimExpr> result;
  if (body.is_seq()) {
    for (const Value& x : body.items) result.push_back(ToPrim(x, SpanOr(x, span)));
  } else {
    result.push_back(ToPrim(body, SpanOr(body, span)));
  }
  return result;
}

IndexMap Parser::LambdaToIndexMap(const Value& fn, DataType index_dtype, const Span& span) {
  if (fn.kind != K::kLambda) Fail(SpanOr(fn, span), "an index map is a lambda, e.g. lambda i, j: (j, i)");
  std::vector<DataType> dtypes(fn.lambda->lambda_args.size(), index_dtype);
  auto node = make_object<IndexMapNode>();
  node->span = span;
  node->final_indices = EvalLambda(fn, dtypes, "an index map", &node->initial_indices, span);
  return IndexMap(ObjectPtr<Object>(std::move(node)));
}

Value Parser::BufferAccessPtr(const Buffer& b, CallArgs& a) {
  // A.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None): the
  // tvm_access_ptr call TVM's Buffer.access_ptr builds.
  const Span& span = a.span;
  static const char* kNames[] = {"access_mask", "ptr_type", "content_lanes", "offset", "extent"};
  for (const auto& [k, v] : a.kwargs) {
    if (std::find(std::begin(kNames), std::end(kNames), k) == std::end(kNames)) {
      Fail(SpanOr(v, span), absl::StrCat("access_ptr: unsupported argument '", k, "'"));
    }
  }
  const Value* mask_v = Arg(a, 0, "access_mask");
  if (!mask_v || a.args.size() > 5) Fail(span, "A.access_ptr(access_mask, ptr_type, content_lanes, offset, extent) needs an access mask");
  int64_t mask = 0;
  if (mask_v->kind == K::kStr) {
    for (char c : mask_v->s) {
      if (c == 'r') mask |= 1;
      else if (c == 'w') mask |= 2;
      else Fail(SpanOr(*mask_v, span), absl::StrCat("unknown access mask \"", mask_v->s, "\""));
    }
  } else {
    mask = ToInt(*mask_v, SpanOr(*mask_v, span));
  }
  if (const Value* pt = Arg(a, 1, "ptr_type")) ToDType(*pt, SpanOr(*pt, span));  // any pointer is a handle
  int64_t lanes = 1;
  if (const Value* cl = Arg(a, 2, "content_lanes")) lanes = ToInt(*cl, SpanOr(*cl, span));
  auto arith = [&](tir::BinaryOpKind k, const tir::Operand& x, const tir::Operand& y) {
    absl::StatusOr<PrimExpr> r = tir::BinaryOp(k, x, y, span);
    if (!r.ok()) Fail(span, std::string(r.status().message()));
    return *r;
  };
  const Value* off_v = Arg(a, 3, "offset");
  tir::Operand offset = off_v && off_v->kind != K::kNone
                            ? (off_v->kind == K::kInt ? tir::Operand::IntLiteral(off_v->i) : tir::Operand(ToPrim(*off_v, SpanOr(*off_v, span))))
                            : tir::Operand::IntLiteral(0);
  PrimExpr extent;
  if (b->shape.empty()) {
    extent = IntImm(DataType::Int(32), 1);
  } else if (b->strides.size() == b->shape.size()) {
    extent = arith(tir::BinaryOpKind::kSub, arith(tir::BinaryOpKind::kMul, b->strides[0], b->shape[0]), offset);
  } else {
    PrimExpr n = IntImm(DataType::Int(32), 1);
    for (const PrimExpr& d : b->shape) n = arith(tir::BinaryOpKind::kMul, n, d);
    extent = arith(tir::BinaryOpKind::kSub, n, offset);
  }
  PrimExpr base = b->elem_offset.defined() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
  PrimExpr elem_offset = arith(tir::BinaryOpKind::kAdd, base, offset);
  DataType elem = b->dtype;
  if (lanes > 1) {
    elem = b->dtype.with_lanes(static_cast<int>(lanes));
    extent = arith(tir::BinaryOpKind::kDiv, extent, tir::Operand::IntLiteral(lanes));
    elem_offset = arith(tir::BinaryOpKind::kDiv, base, tir::Operand::IntLiteral(lanes));
  }
  if (const Value* ex = Arg(a, 4, "extent")) {
    if (ex->kind != K::kNone) extent = ToPrim(*ex, SpanOr(*ex, span));
  }
  Array<PrimExpr> args = {Call(elem, Op("tirx.type_annotation"), {}, span), b->data, elem_offset, extent,
                          IntImm(DataType::Int(32), mask)};
  return Value::Obj(K::kPrim, Call(DataType::Handle(), Op("tirx.tvm_access_ptr"), args, span));
}

Value Parser::CallBufferMethod(const Buffer& b, const std::string& method, CallArgs& a) {
  // A.vload(begin, dtype) / A.vstore(begin, value): a load or store of several lanes starting at
  // `begin`; the last index becomes a Ramp over value_lanes / buffer_lanes elements.
  const Span& span = a.span;
  if (method == "Buffer.access_ptr") return BufferAccessPtr(b, a);
  if (method == "Buffer.ptr_to") return BufferPtrTo(b, a);
  if (method == "Buffer.view") return BufferView(b, a);
  bool load = method == "Buffer.vload";
  const Value* begin = Arg(a, 0, "begin");
  const Value* second = Arg(a, 1, load ? "dtype" : "value");
  const Value* predicate = Kwarg(a, "predicate");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "begin" && k != (load ? "dtype" : "value") && k != "predicate") {
      Fail(SpanOr(v, span), absl::StrCat(method.substr(7), ": unsupported argument '", k, "'"));
    }
  }
  if (!begin || (!load && !second) || a.args.size() > 2) {
    Fail(span, load ? "A.vload(begin, dtype) takes the start indices and an optional dtype"
                    : "A.vstore(begin, value) takes the start indices and a value");
  }
  Array<PrimExpr> indices = ToPrimArray(*begin, SpanOr(*begin, span));
  if (indices.size() != b->shape.size()) {
    Fail(SpanOr(*begin, span), absl::StrCat("buffer ", b->name, " is ", b->shape.size(), "-dimensional but ",
                                            indices.size(), " start indices are given"));
  }
  PrimExpr value = load ? PrimExpr() : ToPrimAs(b->dtype, *second, SpanOr(*second, span));
  DataType vt = load ? (second && second->kind != K::kNone ? ToDType(*second, SpanOr(*second, span)) : b->dtype)
                     : value.dtype();
  if (vt.element_of() != b->dtype.element_of() || vt.lanes() % b->dtype.lanes() != 0) {
    Fail(span, absl::StrCat(method.substr(7), ": ", vt.ToString(), " does not fit buffer ", b->name, " of ",
                            b->dtype.ToString()));
  }
  int factor = vt.lanes() / b->dtype.lanes();
  if (factor > 1 && !indices.empty() && indices.back().dtype().lanes() == 1) {
    PrimExpr last = indices.back();
    indices.Set(indices.size() - 1, Ramp(last, IntImm(last.dtype(), 1), factor, span));
  }
  // predicate=: a bool lane mask; masked-off lanes are neither read nor written.
  PrimExpr mask;
  if (predicate && predicate->kind != K::kNone) mask = ToPrim(*predicate, SpanOr(*predicate, span));
  if (load) {
    BufferLoad l(b, indices, span);
    if (mask.defined()) l.CopyOnWrite()->predicate = mask;
    return Value::Obj(K::kPrim, l);
  }
  BufferStore st(b, value, indices, span);
  if (mask.defined()) st.CopyOnWrite()->predicate = mask;
  tir_.Emit(st);
  return Value::None();
}

}  // namespace kiln::script::parser
