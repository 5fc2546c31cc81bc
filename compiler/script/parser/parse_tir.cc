// TVMScript parser, TIR half: `@T.prim_func` functions (parameters, decorator arguments, return
// type) and the dispatch of `T.*` calls to their handlers, one family per file (handlers.h). The
// statements of a body are read by parse_tir_stmt.cc. Every construct maps onto one TIRBuilder
// frame or one IR node; see ../shared/spec/000 (syntax tables) for the forms.
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

bool IsDTypeName(const std::string& name) {
  if (name == "handle" || name == "void" || name == "let" || name.empty()) return false;
  DataType unused;
  return DataType::TryParse(name, &unused);
}

// Every T.* handler by name, built on first use and never changed afterwards.
const TirCallTable& TirCalls() {
  static const TirCallTable* const kTable = [] {
    auto* t = new TirCallTable;
    AddTirDTypeCalls(t);
    AddTirBufferCalls(t);
    AddTirLoopCalls(t);
    AddTirSBlockCalls(t);
    AddTirStmtCalls(t);
    AddTirExprCalls(t);
    AddTirIntrinsicCalls(t);
    AddTirTileCalls(t);
    AddTirTilePrimitiveCalls(t);
    AddTirComputeCalls(t);
    AddTirDeviceIntrinsicCalls(t);
    return t;
  }();
  return *kTable;
}

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
  prim_func_span_ = SpanOf(def.pos);
  tir_.BeginPrimFunc(name);
  builder::PrimFuncData* fd = tir_.func();
  bool check_well_formed = check_well_formed_;  // the enclosing module's setting or the default
  if (deco) {
    for (const auto& [k, v] : deco->kwargs) {
      if (k == "private") fd->is_private = ToBool(v, SpanOr(v, deco->span));
      else if (k == "s_tir") fd->s_tir = ToBool(v, SpanOr(v, deco->span));
      else if (k == "check_well_formed") check_well_formed = ToBool(v, SpanOr(v, deco->span));
      // A persistent kernel (TVM's tirx.persistent_kernel attribute, set only when True).
      else if (k == "persistent") {
        if (ToBool(v, SpanOr(v, deco->span))) fd->attrs.Set(String("tirx.persistent_kernel"), IntImm(DataType::Bool(), 1));
      }
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
    // T.Optional[...] marks a parameter a @T.jit specialization may leave out; kiln has no @T.jit.
    if (const doc::Expr& a = *arg.annotation; a.kind == doc::ExprKind::kSubscript && a.value &&
                                              a.value->kind == doc::ExprKind::kAttribute && a.value->name == "Optional") {
      const doc::Expr& base = *a.value->value;
      if (base.kind == doc::ExprKind::kName && aliases_.count(base.name) && aliases_.at(base.name) == "T") {
        Fail(arg.annotation->pos, "T.Optional parameter annotations are only supported by @T.jit");
      }
    }
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
  enclosing_stmt_ = SpanOf(def.pos);
  ParseTIRBody(def.body);
  PopScope();
  absl::StatusOr<PrimFunc> f = tir_.EndPrimFunc(SpanOf(def.pos));
  if (!f.ok()) Fail(def.pos, std::string(f.status().message()));
  return *f;
}


// ------------------------------------------------------------------ T.* calls

Value Parser::CallT(const std::string& name_in, CallArgs& a) {
  std::string name = CanonicalDTypeName(name_in);
  TirCall c{*this, name, name_in, a, a.span};
  const TirCallTable& table = TirCalls();
  if (auto it = table.by_name.find(name); it != table.by_name.end()) return it->second(*this, a, c);
  for (const auto& [prefix, handler] : table.by_prefix) {
    if (absl::StartsWith(name, prefix)) return handler(*this, a, c);
  }
  if (IsDTypeName(name)) return CallTirDType(*this, a, c);
  return CallTirIntrinsic(*this, a, c);
}

void TirCall::Need(size_t lo, size_t hi) const {
  if (a.args.size() < lo || a.args.size() > hi) {
    p.Fail(span, absl::StrCat("T.", name, " expects ", lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi),
                              " positional argument", hi == 1 ? "" : "s", ", got ", a.args.size()));
  }
}

PrimExpr TirCall::Prim(size_t i) const { return p.ToPrim(a.args[i], SpanOr(a.args[i], span)); }

tir::Operand TirCall::Operand(size_t i) const { return ToOperand(p, a.args[i], span); }

PrimExpr TirCall::OkPrim(absl::StatusOr<PrimExpr> r) const {
  if (!r.ok()) p.Fail(span, std::string(r.status().message()));
  return *r;
}

Value TirCall::Ok(absl::StatusOr<PrimExpr> r) const { return Value::Obj(K::kPrim, OkPrim(std::move(r))); }

DataType TirCall::CallDType(const Value& v) const {
  return v.kind == K::kStr && v.s.empty() ? DataType::Void() : p.ToDType(v, SpanOr(v, span));
}

std::string TirCall::FreshName() const { return p.name_hint_.empty() ? std::string("v") : p.name_hint_; }

void TirCall::NeedBody() const {
  if (!p.tir_.func()) p.Fail(span, absl::StrCat("T.", name, " is a statement: it can only be used in a T.prim_func"));
}

builder::BlockData* TirCall::Block() const {
  builder::BlockData* blk = p.tir_.block();
  if (!blk) p.Fail(span, absl::StrCat("T.", name, " must be used inside a T.sblock"));
  // TVM's builder takes the block from the innermost frame only.
  if (!p.tir_.top_block()) {
    p.Fail(span, absl::StrCat("T.", name, " must be called at the top of a T.sblock(): a loop, if or with scope was opened ",
                              "inside T.sblock(\"", blk->name, "\") before it"));
  }
  return blk;
}

void TirCall::AddAttrs(Map<String, ObjectRef>* into) const {
  Need(1, 1);
  for (const auto& [k, v] : p.ToAttrMap(a.args[0], span).items()) into->Set(k, v);
}

tir::Operand ToOperand(const Parser& p, const Value& v, const Span& span) {
  switch (v.kind) {
    case K::kInt: return tir::Operand::IntLiteral(v.i, v.span);
    case K::kFloat: return tir::Operand::FloatLiteral(v.f, v.span);
    case K::kBool: return tir::Operand::BoolLiteral(v.b, v.span);
    default: return tir::Operand(p.ToPrim(v, SpanOr(v, span)));
  }
}

}  // namespace kiln::script::parser
