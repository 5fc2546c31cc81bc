// TVMScript parser, Relax half: `@R.function` functions, bindings, dataflow blocks, if/else, and
// the `R.*` namespace (types, constants, call_tir and friends, and every operator of the Relax op
// registry, whose schema converts keyword arguments to attributes and infers the result type).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;
using K = Value::Kind;

namespace {

Span SpanOr(const Value& v, const Span& fallback) { return v.span.defined() ? v.span : fallback; }

// Names listed in `R.output(...)` calls directly inside a dataflow block's body.
std::vector<std::string> DataflowOutputs(const std::vector<doc::StmtPtr>& body) {
  std::vector<std::string> names;
  for (const doc::StmtPtr& s : body) {
    if (s->kind != doc::StmtKind::kExpr || s->value->kind != doc::ExprKind::kCall) continue;
    const doc::Expr& call = *s->value;
    if (call.func->kind != doc::ExprKind::kAttribute || call.func->name != "output") continue;
    for (const auto& a : call.args) if (a->kind == doc::ExprKind::kName) names.push_back(a->name);
  }
  return names;
}

void CollectNames(const doc::ExprPtr& e, std::vector<std::string>* out) {
  if (!e) return;
  if (e->kind == doc::ExprKind::kName) out->push_back(e->name);
  for (const doc::ExprPtr& c : {e->value, e->left, e->right, e->func, e->slice}) CollectNames(c, out);
  for (const auto& v : {e->args, e->elts, e->values}) for (const auto& c : v) CollectNames(c, out);
}

template <typename T>
void AppendBytes(std::string* out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

}  // namespace

// ------------------------------------------------------------------ types and values

PrimExpr Parser::SymbolicDim(const Value& v, const Span& span, DataType dtype) {
  if (v.kind == K::kInt) return IntImm(dtype, v.i);
  if (v.kind == K::kStr) {
    // A dim written as a string, "n" or "n * 2": names not yet known become symbolic variables.
    absl::StatusOr<doc::Module> m = doc::Read(v.s, *filename_);
    if (!m.ok() || m->body.size() != 1 || m->body[0]->kind != doc::StmtKind::kExpr) {
      Fail(span, absl::StrCat("cannot read the shape expression \"", v.s, "\""));
    }
    std::vector<std::string> names;
    CollectNames(m->body[0]->value, &names);
    for (const std::string& n : names) {
      if (Lookup(n) || aliases_.count(n)) continue;
      Var var(n, dtype, span);
      if (!symbolic_.empty()) symbolic_.back()[n] = var;
      Define(n, Value::Obj(K::kPrim, var));
    }
    Value inner = Eval(m->body[0]->value);
    return SymbolicDim(inner, span, dtype);
  }
  if (v.kind == K::kPrim && v.obj.as<IntImmNode>() && v.obj.as<IntImmNode>()->dtype != dtype) {
    return IntImm(dtype, v.obj.as<IntImmNode>()->value);
  }
  return ToPrim(v, span);
}

Type Parser::ToRelaxType(const Value& v, const Span& span) {
  if (v.kind == K::kType) return Downcast<Type>(v.obj);
  if (v.kind == K::kName) {
    if (v.s == "R.Tensor") return TensorType(DataType::Void(), -1);
    if (v.s == "R.Shape") return ShapeType(-1);
    if (v.s == "R.Object" || v.s == "R.Any") return AnyType::Make();
    if (v.s == "R.Tuple") return TupleType(Array<Type>());
    if (v.s == "R.PackedFunc") return PackedFuncType::Make();
    if (v.s == "R.Callable") {
      FuncType ft(Array<Type>(), AnyType::Make(), true);
      ft.CopyOnWrite()->params_known = false;
      return ft;
    }
    if (absl::StartsWith(v.s, "T.")) return PrimType(ToDType(v, span));  // `-> T.int64`
  }
  if (v.kind == K::kTuple) {  // a tuple of annotations is a tuple type
    Array<Type> fields;
    for (const Value& x : v.items) fields.push_back(ToRelaxType(x, SpanOr(x, span)));
    return TupleType(fields);
  }
  if (v.kind == K::kPoison) throw ParseError{span, "", true};
  Fail(span, absl::StrCat("expected a Relax type annotation (R.Tensor, R.Shape, R.Tuple, R.Prim, ...), got a ",
                          KindName(v.kind)));
}

Expr Parser::ToRelax(const Value& v, const Span& span) {
  switch (v.kind) {
    case K::kRelax: return Downcast<Expr>(v.obj);
    case K::kTuple:
    case K::kList: {
      Array<Expr> fields;
      for (const Value& x : v.items) fields.push_back(ToRelax(x, SpanOr(x, span)));
      rx::Tuple t(fields, span);
      t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
      return t;
    }
    case K::kPrim: return rx::PrimValue(Downcast<PrimExpr>(v.obj), span);
    case K::kInt: return rx::PrimValue(IntImm(DataType::Int(64), v.i), span);
    case K::kFloat: return rx::PrimValue(FloatImm(DataType::Float(64), v.f), span);
    case K::kBool: return rx::PrimValue(IntImm(DataType::Bool(), v.b), span);
    case K::kStr: return rx::StringImm(v.s, span);
    case K::kPoison: throw ParseError{span, "", true};
    default: break;
  }
  Fail(span, absl::StrCat("expected a Relax expression, got a ", KindName(v.kind)));
}

Var Parser::NewRelaxVar(const std::string& name, Type ty, const Span& span) {
  (void)span;
  bool dataflow = relax_.in_dataflow() &&
                  std::find(dataflow_outputs_.begin(), dataflow_outputs_.end(), name) == dataflow_outputs_.end();
  if (dataflow) return rx::DataflowVar(name, std::move(ty), span);
  Var v(name, std::move(ty), span);
  v.CopyOnWrite()->dtype = DataType::Void();
  return v;
}

// ------------------------------------------------------------------ functions

Type Parser::ParseRelaxSignature(const doc::Stmt& def) {
  PushScope();
  symbolic_.emplace_back();
  Array<Type> params;
  Type ret;
  bool pure = true;
  try {
    for (const doc::ExprPtr& deco : def.decorators) {
      if (deco->kind != doc::ExprKind::kCall) continue;
      for (const auto& kw : deco->keywords) {
        if (kw.arg == "pure") pure = ToBool(Eval(kw.value), SpanOf(kw.pos));
      }
    }
    for (const doc::Arg& arg : def.args) {
      if (!arg.annotation) Fail(arg.pos, absl::StrCat("parameter '", arg.name, "' needs a type annotation"));
      params.push_back(ToRelaxType(Eval(arg.annotation), SpanOf(arg.annotation->pos)));
    }
    if (def.returns) ret = RelaxReturnType(def.returns);
  } catch (...) {
    symbolic_.pop_back();
    PopScope();
    throw;
  }
  symbolic_.pop_back();
  PopScope();
  return FuncType(params, ret.defined() ? ret : Type(AnyType::Make()), pure);
}

Type Parser::RelaxReturnType(const doc::ExprPtr& returns) {
  // `-> None` declares the empty tuple, as TVM reads it.
  if (returns->kind == doc::ExprKind::kConstant && returns->const_kind == doc::Expr::ConstKind::kNone) {
    return TupleType(Array<Type>{});
  }
  return ToRelaxType(Eval(returns), SpanOf(returns->pos));
}

rx::Function Parser::ParseRelaxFunc(const doc::Stmt& def, const std::string& name, const CallArgs* deco, bool top_level) {
  if (top_level) {
    relax_.Reset();
    dataflow_outputs_.clear();
  }
  relax_.BeginFunction(name);
  builder::FunctionData* fd = relax_.func();
  bool check_well_formed = check_well_formed_;
  if (deco) {
    for (const auto& [k, v] : deco->kwargs) {
      if (k == "pure") fd->is_pure = ToBool(v, SpanOr(v, deco->span));
      else if (k == "private") fd->is_private = ToBool(v, SpanOr(v, deco->span));
      else if (k == "check_well_formed") check_well_formed = ToBool(v, SpanOr(v, deco->span));
      else Fail(deco->span, absl::StrCat("R.function has no argument '", k, "'"));
    }
  }
  PushScope();
  symbolic_.emplace_back();
  ++relax_depth_;
  struct Restore {
    Parser* p;
    bool check_well_formed;
    ~Restore() {
      --p->relax_depth_;
      p->symbolic_.pop_back();
      p->PopScope();
      p->check_well_formed_ = check_well_formed;
    }
  } restore{this, check_well_formed_};
  check_well_formed_ = check_well_formed;
  well_formed_check_off_ |= !check_well_formed;
  for (const doc::Arg& arg : def.args) {
    Span span = SpanOf(arg.pos);
    if (arg.kind != doc::Arg::Kind::kPositional) Fail(span, "*args and **kwargs are not supported in an R.function");
    if (!arg.annotation) Fail(span, absl::StrCat("parameter '", arg.name, "' needs a type annotation"));
    Type ty = ToRelaxType(Eval(arg.annotation), SpanOf(arg.annotation->pos));
    Var p(arg.name, ty, span);
    p.CopyOnWrite()->dtype = DataType::Void();
    fd->params.push_back(p);
    Define(arg.name, Value::Obj(K::kRelax, p));
  }
  if (def.returns) fd->ret_ty = RelaxReturnType(def.returns);
  Expr result;
  const doc::Stmt* ret_stmt = nullptr;
  ParseRelaxBody(def.body, &result, &ret_stmt);
  if (!result.defined()) {
    if (error_count_ > 0) throw ParseError{SpanOf(def.pos), "", true};
    Fail(def.pos, "an R.function must end with a return statement");
  }
  // The return annotation is not checked against the returned value: TVM's parser and its
  // well-formed check keep the declared return type as written (legalization tests declare
  // return types their bodies do not prove).
  absl::StatusOr<rx::Function> f = relax_.EndFunction(result, top_level, SpanOf(def.pos));
  if (!f.ok()) Fail(def.pos, std::string(f.status().message()));
  return *f;
}

void Parser::ParseRelaxBody(const std::vector<doc::StmtPtr>& body, Expr* result, const doc::Stmt** ret_stmt) {
  for (const doc::StmtPtr& s : body) {
    if (result->defined()) {
      Report({SpanOf(s->pos), "unreachable statement after return"});
      break;
    }
    try {
      ParseRelaxStmt(*s, result);
      if (result->defined()) *ret_stmt = s.get();
    } catch (const ParseError& e) {
      Report(e);
      if (s->kind == doc::StmtKind::kAssign) for (const auto& t : s->targets) Poison(t);
      if (s->kind == doc::StmtKind::kAnnAssign) Poison(s->target);
    }
  }
}

void Parser::ParseRelaxStmt(const doc::Stmt& s, Expr* result) {
  Span span = SpanOf(s.pos);
  switch (s.kind) {
    case doc::StmtKind::kAssign:
      if (s.targets.size() != 1) Fail(span, "chained assignment is not supported");
      return RelaxAssign(s.targets[0], nullptr, s.value, s);
    case doc::StmtKind::kAnnAssign:
      if (!s.value) Fail(span, "a Relax variable needs a value");
      return RelaxAssign(s.target, s.annotation, s.value, s);
    case doc::StmtKind::kReturn: {
      if (!s.value) Fail(span, "an R.function returns a value");
      Value v = Eval(s.value);
      *result = ToRelax(v, SpanOf(s.value->pos));
      return;
    }
    case doc::StmtKind::kIf: return RelaxIf(s);
    case doc::StmtKind::kPass: return;
    case doc::StmtKind::kExpr: {
      if (s.value->kind == doc::ExprKind::kConstant) return;  // docstring
      Value v = Eval(s.value);
      if (v.kind == K::kNone) return;
      if (v.kind == K::kRelax) {
        Expr e = Downcast<Expr>(v.obj);
        relax_.Emit(rx::VarBinding(NewRelaxVar("_", kiln::relax::ExprType(e), span), e, span));
        return;
      }
      Fail(span, absl::StrCat("a ", KindName(v.kind), " is not a statement"));
    }
    case doc::StmtKind::kWith: {
      if (s.items.size() != 1 || s.items[0].context_expr->kind != doc::ExprKind::kCall) Fail(span, "unsupported with statement");
      Value fn = Eval(s.items[0].context_expr->func);
      if (fn.kind != K::kName || fn.s != "R.dataflow") Fail(s.items[0].context_expr->pos, "only `with R.dataflow():` is supported in an R.function");
      if (relax_.in_dataflow()) Fail(span, "dataflow blocks do not nest");
      // Without R.output(...) every binding of the block is a DataflowVar, visible in it only.
      std::vector<std::string> outputs = DataflowOutputs(s.body);
      // A return ending the block (TVM accepts it) makes the names it uses outputs and returns
      // after the block, as `R.output(...)` and a return after the block would.
      std::vector<doc::StmtPtr> body = s.body;
      doc::StmtPtr ret;
      if (!body.empty() && body.back()->kind == doc::StmtKind::kReturn) {
        ret = body.back();
        body.pop_back();
        CollectNames(ret->value, &outputs);
      }
      // A local function defined in an enclosing block has blocks of its own: the enclosing
      // block's outputs come back when this one ends.
      std::vector<std::string> enclosing_outputs = std::move(dataflow_outputs_);
      dataflow_outputs_ = outputs;
      relax_.BeginDataflow();
      PushScope();
      Expr unused;
      const doc::Stmt* unused_ret = nullptr;
      ParseRelaxBody(body, &unused, &unused_ret);
      // Only the outputs outlive the block.
      std::vector<std::pair<std::string, Value>> keep;
      for (const std::string& n : outputs) if (const Value* v = Lookup(n)) keep.emplace_back(n, *v);
      PopScope();
      for (auto& [n, v] : keep) Define(n, v);
      relax_.EndDataflow(span);
      dataflow_outputs_ = std::move(enclosing_outputs);
      if (unused.defined()) Fail(span, "return inside a dataflow block");
      if (ret) ParseRelaxStmt(*ret, result);
      return;
    }
    case doc::StmtKind::kFunctionDef: {
      // A local function (closure): bound to a variable of its name.
      CallArgs deco;
      bool is_relax = false;
      for (const doc::ExprPtr& d : s.decorators) {
        const doc::ExprPtr& fn = d->kind == doc::ExprKind::kCall ? d->func : d;
        Value v = Eval(fn);
        is_relax |= v.kind == K::kName && v.s == "R.function";
        deco.span = deco.func_span = SpanOf(d->pos);  // where errors about its arguments point
        if (d->kind == doc::ExprKind::kCall) for (const auto& kw : d->keywords) deco.kwargs.emplace_back(kw.arg, Eval(kw.value));
      }
      if (!is_relax) Fail(span, "a function inside an R.function must be decorated with @R.function");
      rx::Function f = ParseRelaxFunc(s, s.name, &deco, false);
      Type ty = kiln::relax::ExprType(f);
      Var var = NewRelaxVar(s.name, ty, span);
      relax_.Emit(rx::VarBinding(var, f, span));
      Define(s.name, Value::Obj(K::kRelax, var));
      return;
    }
    default:
      Fail(span, "this statement is not supported in an R.function");
  }
}

void Parser::DefineRelaxName(const std::string& name, const Value& v) {
  if (v.kind == K::kPrim && v.fresh_var) {
    // `n = T.int64()`: a symbolic variable, the same one a signature "n" introduced.
    auto& table = symbolic_.back();
    auto it = table.find(name);
    if (it == table.end()) {
      // A fresh variable takes the name it is bound to (`m, n = T.int64(), T.int64()` made both
      // before their names were known).
      const auto* fresh = v.obj.as<VarNode>();
      it = table.emplace(name, Var(name, fresh->dtype, fresh->span)).first;
    }
    Define(name, Value::Obj(K::kPrim, it->second));
    return;
  }
  Define(name, v);
}

void Parser::RelaxAssign(const doc::ExprPtr& target, const doc::ExprPtr& ann_expr, const doc::ExprPtr& value_expr,
                         const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (target->kind == doc::ExprKind::kTuple || target->kind == doc::ExprKind::kList) {
    if (ann_expr) Fail(span, "a tuple assignment cannot be annotated");
    Value v = Eval(value_expr);
    if (v.kind != K::kRelax) {  // Python-level unpacking (e.g. of a shape)
      std::vector<Value> items = ToSeq(v, span);
      if (items.size() != target->elts.size()) Fail(span, "wrong number of values to unpack");
      for (size_t i = 0; i < items.size(); ++i) {
        if (target->elts[i]->kind != doc::ExprKind::kName) Fail(target->elts[i]->pos, "expected a name");
        DefineRelaxName(target->elts[i]->name, items[i]);
      }
      return;
    }
    Expr tuple = Downcast<Expr>(v.obj);
    Var tmp = NewRelaxVar("lv", kiln::relax::ExprType(tuple), span);
    relax_.Emit(rx::VarBinding(tmp, tuple, span));
    for (size_t i = 0; i < target->elts.size(); ++i) {
      if (target->elts[i]->kind != doc::ExprKind::kName) Fail(target->elts[i]->pos, "expected a name");
      rx::TupleGetItem item(tmp, static_cast<int>(i), span);
      Type t = kiln::relax::ExprType(item);
      item.CopyOnWrite()->ty = t;
      Var var = NewRelaxVar(target->elts[i]->name, t, SpanOf(target->elts[i]->pos));
      relax_.Emit(rx::VarBinding(var, item, span));
      Define(target->elts[i]->name, Value::Obj(K::kRelax, var));
    }
    return;
  }
  if (target->kind != doc::ExprKind::kName) Fail(target->pos, "cannot assign to this expression");
  const std::string& name = target->name;
  name_hint_ = name;
  annotated_value_ = ann_expr && !check_well_formed_ ? value_expr.get() : nullptr;
  Value v;
  try {
    v = Eval(value_expr);
  } catch (...) {
    name_hint_.clear();
    annotated_value_ = nullptr;
    throw;
  }
  name_hint_.clear();
  annotated_value_ = nullptr;
  if (v.kind == K::kPrim && v.fresh_var) {
    DefineRelaxName(name, v);
    return;
  }
  // A Python tuple holding Relax values (`gv = (lv, lv1)`) is a Relax tuple binding; one of plain
  // numbers stays a Python value unless annotated.
  // Nested tuples count too: `gv = (a, b), (c,)` is a tuple of Relax tuples.
  std::function<bool(const Value&)> holds_relax = [&](const Value& x) {
    return x.kind == K::kRelax || (x.kind == K::kTuple && std::any_of(x.items.begin(), x.items.end(), holds_relax));
  };
  bool relax_tuple = v.kind == K::kTuple && holds_relax(v);
  if (v.kind != K::kRelax && !(v.kind == K::kTuple && (ann_expr || relax_tuple))) {
    Define(name, v);  // a Python-level value (a module alias `cls = Module`, a number, a shape...)
    return;
  }
  Expr value = ToRelax(v, SpanOf(value_expr->pos));
  Type inferred = kiln::relax::ExprType(value);
  Type ty = inferred;
  if (ann_expr) {
    ty = ToRelaxType(Eval(ann_expr), SpanOf(ann_expr->pos));
    std::string why;
    // A call written as the value takes the annotation as its type, as TVM's parser gives it
    // (R.emit with an annotation). Its well-formed check compares the inferred type with it;
    // with check_well_formed=False nothing is compared.
    bool fresh_call = value_expr->kind == doc::ExprKind::kCall && v.s != "match_cast" && value.as<rx::CallNode>();
    if ((check_well_formed_ || !fresh_call) && inferred.defined() &&
        !kiln::relax::TypesCompatible(ty, inferred, &why)) {
      Fail(SpanOf(ann_expr->pos), absl::StrCat("the annotation of '", name, "' does not match its value: ", why));
    }
    if (fresh_call) {
      rx::Call call = Downcast<rx::Call>(value);
      call.CopyOnWrite()->ty = ty;
      value = call;
    }
  }
  Var var = NewRelaxVar(name, ty, SpanOf(target->pos));
  if (v.s == "match_cast") {
    relax_.Emit(rx::MatchCast(var, value, Downcast<Type>(v.items[0].obj), span));
  } else {
    relax_.Emit(rx::VarBinding(var, value, span));
  }
  Define(name, Value::Obj(K::kRelax, var));
}

void Parser::RelaxIf(const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  Expr cond = ToRelax(Eval(s.test), SpanOf(s.test->pos));
  if (s.orelse.empty()) Fail(span, "an if in an R.function needs an else branch");
  std::string var_name;
  Type var_ty;
  auto branch = [&](const std::vector<doc::StmtPtr>& body) -> Expr {
    const doc::Stmt& last = *body.back();
    const doc::ExprPtr& t = last.kind == doc::StmtKind::kAssign && last.targets.size() == 1 ? last.targets[0]
                          : last.kind == doc::StmtKind::kAnnAssign ? last.target : nullptr;
    if (!t || t->kind != doc::ExprKind::kName || !last.value) {
      Fail(last.pos, "each branch of an if in an R.function must end by assigning the result variable");
    }
    if (!var_name.empty() && t->name != var_name) {
      Fail(t->pos, absl::StrCat("both branches must assign the same variable: '", var_name, "' and '", t->name, "'"));
    }
    var_name = t->name;
    relax_.BeginSeq();
    PushScope();
    Expr unused;
    const doc::Stmt* unused_ret = nullptr;
    std::vector<doc::StmtPtr> head(body.begin(), body.end() - 1);
    ParseRelaxBody(head, &unused, &unused_ret);
    Expr value = ToRelax(Eval(last.value), SpanOf(last.value->pos));
    if (last.kind == doc::StmtKind::kAnnAssign && !var_ty.defined()) {
      var_ty = ToRelaxType(Eval(last.annotation), SpanOf(last.annotation->pos));
    }
    PopScope();
    return relax_.EndSeq(value, SpanOf(last.pos));
  };
  Expr then_branch = branch(s.body);
  Expr else_branch = branch(s.orelse);
  rx::If node(cond, then_branch, else_branch, span);
  absl::StatusOr<Type> t = kiln::relax::InferExprType(node, module_);
  if (t.ok()) node.CopyOnWrite()->ty = *t;
  Var var = NewRelaxVar(var_name, var_ty.defined() ? var_ty : (t.ok() ? *t : Type()), span);
  relax_.Emit(rx::VarBinding(var, node, span));
  Define(var_name, Value::Obj(K::kRelax, var));
}

// ------------------------------------------------------------------ R.* calls

Value Parser::CallRelaxFunction(const Expr& callee, CallArgs& a) {
  if (relax_depth_ == 0) {
    // A PrimFunc calling another PrimFunc of the module: a TIR call typed by the callee's return.
    const auto* gv = callee.as<GlobalVarNode>();
    auto ret = gv ? tir_ret_.find(gv->name) : tir_ret_.end();
    if (!tir_.func() || ret == tir_ret_.end()) Fail(a.func_span, "only PrimFuncs of the module can be called from a T.prim_func");
    Array<PrimExpr> args;
    for (const Value& v : a.args) args.push_back(ToPrim(v, SpanOr(v, a.span)));
    return Value::Obj(K::kPrim, Call(ret->second, callee, args, a.span));
  }
  Array<Expr> args;
  for (const Value& v : a.args) args.push_back(ToRelax(v, SpanOr(v, a.span)));
  if (!a.kwargs.empty()) Fail(a.span, "keyword arguments are not supported when calling a function");
  bool defer = defer_inference_;
  defer_inference_ = false;
  rx::Call call(callee, args, {}, {}, a.span);
  absl::StatusOr<Type> t = kiln::relax::InferCallType(call, module_);
  if (defer && !t.ok()) return Value::Obj(K::kRelax, call);  // typed by its annotation
  if (!t.ok()) Fail(a.span, std::string(t.status().message()));
  call.CopyOnWrite()->ty = *t;
  return Value::Obj(K::kRelax, call);
}

Value Parser::CallR(const std::string& name_in, CallArgs& a) {
  bool defer = defer_inference_;
  defer_inference_ = false;
  std::string name = name_in;
  const Span& span = a.span;
  auto kw = [&](const char* k) -> const Value* {
    for (const auto& [key, v] : a.kwargs) if (key == k) return &v;
    return nullptr;
  };
  auto arg_or_kw = [&](size_t i, const char* k) -> const Value* { return i < a.args.size() ? &a.args[i] : kw(k); };
  // ndim=: a rank, or -1 for unknown (TVM rejects anything else).
  auto ndim_of = [&](const Value* nd) -> int {
    if (!nd) return -1;
    int64_t n = ToInt(*nd, SpanOr(*nd, span));
    if (n < -1 || n > INT32_MAX) Fail(SpanOr(*nd, span), "ndim must be a non-negative int, or -1 for unknown");
    return static_cast<int>(n);
  };

  // ---- types
  if (name == "Tensor") {
    const Value* shape = arg_or_kw(0, "shape");
    const Value* dtype = arg_or_kw(1, "dtype");
    // R.Tensor("float32", ndim=2): a lone string is the dtype (TVM accepts the shape-less form).
    if (shape && shape->kind == K::kStr && !kw("shape") && (!dtype || a.args.size() == 1)) {
      dtype = shape;
      shape = nullptr;
    }
    const Value* ndim = kw("ndim");
    const Value* vdevice = kw("vdevice");
    DataType dt = dtype && dtype->kind != K::kNone ? ToDType(*dtype, SpanOr(*dtype, span)) : DataType::Void();
    TensorType t;
    if (shape && shape->kind != K::kNone) {
      if (shape->kind == K::kRelax) {
        t = TensorType(dt, ndim_of(ndim));
        t.CopyOnWrite()->shape = Downcast<Expr>(shape->obj);
      } else {
        Array<PrimExpr> dims;
        for (const Value& d : ToSeq(*shape, SpanOr(*shape, span))) dims.push_back(SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
        t = TensorType(dims, dt);
      }
    } else {
      t = TensorType(dt, ndim_of(ndim));
    }
    if (vdevice && vdevice->kind != K::kNone) t.CopyOnWrite()->vdevice = ToStr(*vdevice, span);
    return Value::Obj(K::kType, t);
  }
  if (name == "Shape") {
    const Value* values = arg_or_kw(0, "values");
    if (values && values->kind != K::kNone) {
      Array<PrimExpr> dims;
      for (const Value& d : ToSeq(*values, SpanOr(*values, span))) dims.push_back(SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
      return Value::Obj(K::kType, ShapeType(dims));
    }
    const Value* ndim = kw("ndim");
    return Value::Obj(K::kType, ShapeType(ndim_of(ndim)));
  }
  if (name == "Tuple") {
    Array<Type> fields;
    std::vector<Value> items = a.args;
    if (items.size() == 1 && items[0].kind == K::kList) items = items[0].items;
    for (const Value& x : items) fields.push_back(ToRelaxType(x, SpanOr(x, span)));
    return Value::Obj(K::kType, TupleType(fields));
  }
  if (name == "Prim") {
    const Value* dtype = arg_or_kw(0, "dtype");
    const Value* value = kw("value");
    if (value && value->kind != K::kNone) {
      // A typed value (T.int32(0)) keeps its dtype; an int or a "n" string is int64.
      PrimExpr pv = value->kind == K::kPrim ? ToPrim(*value, SpanOr(*value, span))
                                            : SymbolicDim(*value, SpanOr(*value, span), DataType::Int(64));
      return Value::Obj(K::kType, PrimType(pv.dtype(), pv));
    }
    if (!dtype) Fail(span, "R.Prim needs a dtype or value=");
    return Value::Obj(K::kType, PrimType(ToDType(*dtype, SpanOr(*dtype, span))));
  }
  if (name == "Object" || name == "Any") return Value::Obj(K::kType, AnyType::Make());
  if (name == "Callable") {
    const Value* params = arg_or_kw(0, "params");
    const Value* ret = arg_or_kw(1, "ret");
    const Value* purity = arg_or_kw(2, "purity");
    Array<Type> ps;
    bool known = params && params->kind != K::kNone;
    if (known) for (const Value& p : ToSeq(*params, span)) ps.push_back(ToRelaxType(p, SpanOr(p, span)));
    FuncType ft(ps, ret && ret->kind != K::kNone ? ToRelaxType(*ret, span) : Type(AnyType::Make()),
                purity ? ToBool(*purity, span) : true);
    if (!known) ft.CopyOnWrite()->params_known = false;
    return Value::Obj(K::kType, ft);
  }

  // ---- distributed Relax (R.dist.*; R.DTensor and R.device_mesh are also spelled R.dist.*)
  if (absl::StartsWith(name, "dist.") && (name == "dist.DTensor" || name == "dist.device_mesh")) name = name.substr(5);
  // A device mesh: R.device_mesh(...) itself, or "name[i]" naming an entry of the module's global infos.
  auto mesh_of = [&](const Value& v) -> GlobalInfo {
    Span s = SpanOr(v, span);
    if (v.kind == K::kType && v.obj.as<GlobalInfoNode>() && v.obj.as<GlobalInfoNode>()->kind == "device_mesh") {
      return Downcast<GlobalInfo>(v.obj);
    }
    if (v.kind != K::kStr) Fail(s, "expected a device mesh: R.device_mesh(...) or \"mesh[0]\"");
    size_t open = v.s.find('[');
    if (open == std::string::npos || v.s.back() != ']') Fail(s, "a device mesh is named \"<global info>[<index>]\", got \"" + v.s + "\"");
    std::string key = v.s.substr(0, open), idx = v.s.substr(open + 1, v.s.size() - open - 2);
    if (idx.empty() || idx.size() > 6 || !std::all_of(idx.begin(), idx.end(), ::isdigit)) Fail(s, "bad device mesh index in \"" + v.s + "\"");
    if (!module_.defined()) Fail(s, "a device mesh named \"" + v.s + "\" needs an @I.ir_module with I.module_global_infos");
    const Array<GlobalInfo> infos = module_->global_infos.Get(String(key));
    size_t i = std::stoul(idx);
    if (i >= infos.size()) Fail(s, "the module has no global info \"" + v.s + "\"");
    if (infos[i]->kind != "device_mesh") Fail(s, "\"" + v.s + "\" is not a device mesh");
    return infos[i];
  };
  auto placement_of = [&](const Value& v) -> std::string {
    absl::StatusOr<std::vector<int>> p = ParsePlacement(ToStr(v, SpanOr(v, span)));
    if (!p.ok()) Fail(SpanOr(v, span), std::string(p.status().message()));
    return PlacementToString(*p);
  };
  if (name == "Range") return CallI("Range", a);  // R.Range, as TVM prints it outside a module
  if (name == "device_mesh") {
    // R.device_mesh(shape, device_ids or I.Range(begin, end)).
    const Value* shape = arg_or_kw(0, "shape");
    const Value* ids = arg_or_kw(1, "device_ids");
    if (!ids) ids = kw("device_range");
    if (!shape || !ids || a.args.size() > 2) Fail(span, "R.device_mesh(shape, device_ids or I.Range(begin, end)) takes two arguments");
    std::vector<int64_t> dims;
    for (const Value& d : ToSeq(*shape, SpanOr(*shape, span))) dims.push_back(ToInt(d, SpanOr(d, span)));
    absl::StatusOr<GlobalInfo> mesh;
    if (ids->kind == K::kType && ids->obj.as<RangeNode>()) {
      mesh = MakeDeviceMesh(dims, Downcast<Range>(ids->obj));
    } else {
      std::vector<int64_t> list;
      for (const Value& d : ToSeq(*ids, SpanOr(*ids, span))) list.push_back(ToInt(d, SpanOr(d, span)));
      mesh = MakeDeviceMesh(dims, list);
    }
    if (!mesh.ok()) Fail(span, std::string(mesh.status().message()));
    return Value::Obj(K::kType, *mesh);
  }
  if (name == "DTensor") {
    // R.DTensor(shape, dtype, device_mesh, placement, ndim=): a lone string first is the dtype.
    CallArgs t;
    t.span = a.span;
    t.func_span = a.func_span;
    std::vector<Value> pos = a.args;
    if (!pos.empty() && pos[0].kind == K::kStr && !kw("dtype") && (pos.size() == 1 || pos[1].kind != K::kStr || pos.size() == 3)) {
      pos.insert(pos.begin(), Value::None());
    }
    static const char* kNames[] = {"shape", "dtype", "device_mesh", "placement"};
    std::vector<const Value*> got(4, nullptr);
    for (size_t i = 0; i < 4; ++i) got[i] = i < pos.size() ? &pos[i] : kw(kNames[i]);
    if (pos.size() > 4) Fail(span, "R.DTensor takes at most 4 positional arguments");
    for (const auto& [k, v] : a.kwargs) {
      if (k != "ndim" && std::find(std::begin(kNames), std::end(kNames), k) == std::end(kNames)) {
        Fail(SpanOr(v, span), "R.DTensor got an unexpected keyword '" + k + "'");
      }
    }
    if (!got[2] || !got[3]) Fail(span, "R.DTensor needs a device_mesh and a placement");
    if (got[0]) t.args.push_back(*got[0]);
    if (got[1]) t.kwargs.emplace_back("dtype", *got[1]);
    if (!got[0]) t.args.clear();
    if (const Value* nd = kw("ndim")) t.kwargs.emplace_back("ndim", *nd);
    Value tensor = CallR("Tensor", t);
    TensorType tt = Downcast<TensorType>(tensor.obj);
    GlobalInfo mesh = mesh_of(*got[2]);
    std::string placement = placement_of(*got[3]);
    absl::Status st = CheckDTensorType(tt, mesh, *ParsePlacement(placement));
    if (!st.ok()) Fail(span, std::string(st.message()));
    return Value::Obj(K::kType, DTensorType(tt, mesh, placement));
  }
  if (name == "dist.const") {
    // R.dist.const(value, R.DTensor(...)): a constant of the DTensor's dtype, typed by it.
    const Value* value = arg_or_kw(0, "value");
    const Value* ty = arg_or_kw(1, "ty");
    if (!value || !ty || a.args.size() > 2) Fail(span, "R.dist.const(value, ty) takes a value and a DTensor type");
    Type t = ToRelaxType(*ty, SpanOr(*ty, span));
    const auto* dt = t.as<DTensorTypeNode>();
    if (!dt) Fail(SpanOr(*ty, span), "R.dist.const's type must be an R.DTensor");
    CallArgs c;
    c.span = a.span;
    c.func_span = a.func_span;
    c.args = {*value, Value::Str(dt->tensor_ty->dtype.ToString())};
    Value cv = CallR("const", c);
    rx::Constant constant = Downcast<rx::Constant>(cv.obj);
    std::string why;
    if (!kiln::relax::TypesCompatible(dt->tensor_ty, constant->ty, &why)) Fail(span, "R.dist.const: the value does not match the type: " + why);
    constant.CopyOnWrite()->ty = t;
    return Value::Obj(K::kRelax, constant);
  }
  if (name == "dist.call_tir") name = "call_tir";  // the same operator, with DTensor outputs
  if (name == "dist.annotate_sharding" || name == "dist.redistribute") {
    const Value* input = arg_or_kw(0, "value");
    if (!input) input = kw("input");
    const Value* mesh = arg_or_kw(1, "device_mesh");
    const Value* placement = arg_or_kw(2, "placement");
    if (!input || !mesh || !placement || a.args.size() > 3) {
      Fail(span, "R." + name + "(value, device_mesh, placement) takes a value, a device mesh and a placement");
    }
    CallArgs b;
    b.span = a.span;
    b.func_span = a.func_span;
    b.args.push_back(*input);
    b.kwargs.emplace_back("device_mesh", Value::Obj(K::kType, mesh_of(*mesh)));
    b.kwargs.emplace_back("placement", Value::Str(placement_of(*placement)));
    a = std::move(b);
  }

  // ---- function-level statements
  if (name == "func_attr") {
    builder::FunctionData* fd = relax_.func();
    if (!fd || a.args.size() != 1) Fail(span, "R.func_attr({...}) belongs in an R.function");
    for (const auto& [k, v] : ToAttrMap(a.args[0], span).items()) fd->attrs.Set(k, v);
    return Value::None();
  }
  if (name == "output") {
    if (!relax_.in_dataflow()) Fail(span, "R.output must be used inside `with R.dataflow():`");
    for (const Value& v : a.args) {
      if (v.kind != K::kRelax || !v.obj.as<VarNode>()) Fail(SpanOr(v, span), "R.output takes variables of the block");
    }
    return Value::None();
  }
  if (name == "dataflow") Fail(span, "R.dataflow() is used as `with R.dataflow():`");

  // ---- leaves
  if (name == "const") {
    if (a.args.empty()) Fail(span, "R.const(value, dtype) needs a value");
    const Value* dtype_v = arg_or_kw(1, "dtype");
    std::vector<int64_t> shape;
    std::vector<const Value*> flat;
    bool any_float = false;
    std::function<void(const Value&, size_t)> walk = [&](const Value& v, size_t depth) {
      if (v.is_seq()) {
        if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(v.items.size()));
        else if (shape[depth] != static_cast<int64_t>(v.items.size())) Fail(span, "R.const: ragged nested lists");
        for (const Value& x : v.items) walk(x, depth + 1);
        return;
      }
      if (!v.is_number()) Fail(SpanOr(v, span), "R.const takes numbers or nested lists of numbers");
      any_float |= v.kind == K::kFloat;
      flat.push_back(&v);
    };
    walk(a.args[0], 0);
    DataType dt = dtype_v && dtype_v->kind != K::kNone ? ToDType(*dtype_v, span)
                : any_float ? DataType::Float(32)
                : a.args[0].kind == K::kBool ? DataType::Bool() : DataType::Int(32);
    std::string data;
    for (const Value* v : flat) {
      double f = v->kind == K::kFloat ? v->f : static_cast<double>(v->kind == K::kBool ? v->b : v->i);
      int64_t i = v->kind == K::kFloat ? static_cast<int64_t>(v->f) : (v->kind == K::kBool ? v->b : v->i);
      if (dt.is_bool()) AppendBytes<uint8_t>(&data, i != 0);
      else if (dt.is_int() || dt.is_uint()) {
        switch (dt.bits()) {
          case 8: AppendBytes<int8_t>(&data, static_cast<int8_t>(i)); break;
          case 16: AppendBytes<int16_t>(&data, static_cast<int16_t>(i)); break;
          case 32: AppendBytes<int32_t>(&data, static_cast<int32_t>(i)); break;
          default: AppendBytes<int64_t>(&data, i);
        }
      } else if (dt.is_float() && dt.bits() == 16) {
        AppendBytes<uint16_t>(&data, FloatToHalf(static_cast<float>(f)));
      } else if (dt.is_float() && dt.bits() == 32) {
        AppendBytes<float>(&data, static_cast<float>(f));
      } else if (dt.is_float() && dt.bits() == 64) {
        AppendBytes<double>(&data, f);
      } else {
        Fail(span, absl::StrCat("R.const: unsupported dtype ", dt.ToString()));
      }
    }
    Array<PrimExpr> dims;
    for (int64_t d : shape) dims.push_back(IntImm(DataType::Int(64), d));
    rx::Constant c(dt, shape, data, span);
    c.CopyOnWrite()->ty = TensorType(dims, dt);
    return Value::Obj(K::kRelax, c);
  }
  if (name == "prim_value") {
    if (a.args.size() != 1) Fail(span, "R.prim_value takes one value");
    // A typed value (R.prim_value(T.bool(True)), T.int32(3)) keeps its dtype; plain ints are int64.
    PrimExpr p = a.args[0].kind == K::kInt ? PrimExpr(IntImm(DataType::Int(64), a.args[0].i))
               : a.args[0].kind == K::kFloat ? PrimExpr(FloatImm(DataType::Float(64), a.args[0].f))
               : a.args[0].kind == K::kBool ? PrimExpr(IntImm(DataType::Bool(), a.args[0].b ? 1 : 0))
               : a.args[0].kind == K::kPrim ? ToPrim(a.args[0], SpanOr(a.args[0], span))
               : SymbolicDim(a.args[0], SpanOr(a.args[0], span), DataType::Int(64));
    rx::PrimValue pv(p, span);
    pv.CopyOnWrite()->ty = PrimType(p.dtype(), p);
    return Value::Obj(K::kRelax, pv);
  }
  if (name == "shape" || name == "ShapeExpr") {  // R.ShapeExpr is relax.ShapeExpr, the same node
    if (a.args.size() != 1) Fail(span, "R.shape takes a list of dims");
    Array<PrimExpr> dims;
    for (const Value& d : ToSeq(a.args[0], span)) dims.push_back(SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
    rx::ShapeExpr s(dims, span);
    s.CopyOnWrite()->ty = ShapeType(dims);
    return Value::Obj(K::kRelax, s);
  }
  if (name == "TupleGetItem") {  // R.TupleGetItem(t, i), the spelled-out form of t[i]
    if (a.args.size() != 2) Fail(span, "R.TupleGetItem takes a tuple and an index");
    Expr t = ToRelax(a.args[0], SpanOr(a.args[0], span));
    const auto* tt = t->ty.as<TupleTypeNode>();
    int64_t i = ToInt(a.args[1], SpanOr(a.args[1], span));
    if (tt && (i < 0 || i >= static_cast<int64_t>(tt->fields.size()))) {
      Fail(SpanOr(a.args[1], span), absl::StrCat("tuple index ", i, " is out of range for ", tt->fields.size(), " fields"));
    }
    rx::TupleGetItem item(t, static_cast<int>(i), span);
    item.CopyOnWrite()->ty = kiln::relax::ExprType(item);
    return Value::Obj(K::kRelax, item);
  }
  if (name == "str") {
    if (a.args.size() != 1) Fail(span, "R.str takes one string");
    return Value::Obj(K::kRelax, rx::StringImm(ToStr(a.args[0], span), span));
  }
  if (name == "dtype") {
    if (a.args.size() != 1) Fail(span, "R.dtype takes one dtype string");
    return Value::Obj(K::kRelax, rx::DataTypeImm(ToDType(a.args[0], span), span));
  }
  if (name == "ExternFunc" || name == "extern") {
    if (a.args.empty() || a.args.size() > 2) Fail(span, "R.ExternFunc(symbol[, type]) takes the function's symbol");
    rx::ExternFunc f(ToStr(a.args[0], span), span);
    f.CopyOnWrite()->ty = a.args.size() == 2 ? ToRelaxType(a.args[1], SpanOr(a.args[1], span)) : Type(PackedFuncType::Make());
    return Value::Obj(K::kRelax, f);
  }
  if (name == "match_cast") {
    if (a.args.size() != 2) Fail(span, "R.match_cast(value, type) takes two arguments");
    Expr value = ToRelax(a.args[0], SpanOr(a.args[0], span));
    if (a.args[1].kind != K::kType && a.args[1].kind != K::kName) Fail(span, "R.match_cast's second argument must be a type such as R.Tensor((n,), \"float32\")");
    Type ty = ToRelaxType(a.args[1], SpanOr(a.args[1], span));
    Type vt = kiln::relax::ExprType(value);
    std::string why;
    if (vt.defined() && !kiln::relax::TypesCompatible(ty, vt, &why)) {
      Fail(span, absl::StrCat("R.match_cast can never succeed: ", why));
    }
    Value v = Value::Obj(K::kRelax, value);
    v.s = "match_cast";
    v.items.push_back(Value::Obj(K::kType, ty));
    return v;
  }

  if (name == "tuple") {
    // R.tuple(*fields) builds a Tuple; TVM prints the empty tuple this way.
    if (!a.kwargs.empty()) Fail(span, "R.tuple takes only positional fields");
    Array<Expr> fields;
    for (const Value& v : a.args) fields.push_back(ToRelax(v, SpanOr(v, span)));
    rx::Tuple t(fields, span);
    t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
    return Value::Obj(K::kRelax, t);
  }
  if (name == "device") {
    // R.device(device_type, index=0): a runtime device, only meaningful as R.hint_on_device's
    // argument; kept as a dict of the two ints that op stores as attributes.
    const Value* type = arg_or_kw(0, "device_type");
    if (!type) type = kw("dev_type");
    const Value* index = arg_or_kw(1, "index");
    if (!type) Fail(span, "R.device(device_type, index=0) needs a device type");
    int64_t code = 0;
    if (type->kind == K::kStr) {
      static const std::pair<const char*, int64_t> kCodes[] = {
          {"cpu", 1}, {"llvm", 1}, {"cuda", 2}, {"gpu", 2}, {"nvptx", 2}, {"opencl", 4}, {"vulkan", 7},
          {"metal", 8}, {"rocm", 10}, {"ext_dev", 12}, {"webgpu", 15}, {"hexagon", 16}};
      for (const auto& [n, c] : kCodes) if (type->s == n) code = c;
      if (code == 0) Fail(SpanOr(*type, span), "unknown device type '" + type->s + "'");
    } else {
      code = ToInt(*type, SpanOr(*type, span));
    }
    Value dict = Value::Of(K::kDict);
    dict.keys = {Value::Str("device_type"), Value::Str("index")};
    dict.items = {Value::Int(code), Value::Int(index ? ToInt(*index, SpanOr(*index, span)) : 0)};
    dict.span = span;
    return dict;
  }
  if (name == "hint_on_device") {
    // R.hint_on_device(data, R.device(...), memory_scope="global"): spread the device into the
    // op's device_type/index attributes.
    CallArgs b;
    b.span = a.span;
    b.func_span = a.func_span;
    const Value* dev = arg_or_kw(1, "dst_vdevice");
    const Value* scope = arg_or_kw(2, "memory_scope");
    if (a.args.empty() || !dev || dev->kind != K::kDict || a.args.size() > 3) {
      Fail(span, "R.hint_on_device(data, R.device(device_type, index), memory_scope) takes a tensor and a device");
    }
    b.args.push_back(a.args[0]);
    for (size_t i = 0; i < dev->keys.size(); ++i) b.kwargs.emplace_back(dev->keys[i].s, dev->items[i]);
    if (scope) b.kwargs.emplace_back("memory_scope", *scope);
    for (const auto& [k, v] : a.kwargs) {
      if (k != "dst_vdevice" && k != "memory_scope") Fail(SpanOr(v, span), "R.hint_on_device got an unexpected keyword '" + k + "'");
    }
    a = std::move(b);
  }

  if (name == "print" || name == "assert_op") {
    // TVM's wrappers R.print(*values, format="") and R.assert_op(condition, format_args=None,
    // format="") store the format string before the values: [format, *values] and
    // [condition, format, *format_args]. A str format is a relax StringImm; assert_op's
    // format_args is one value or a list of them.
    bool is_assert = name == "assert_op";
    CallArgs b;
    b.span = a.span;
    b.func_span = a.func_span;
    const Value* format = nullptr;
    std::vector<Value> values;
    if (is_assert) {
      const Value* cond = arg_or_kw(0, "condition");
      if (!cond) Fail(span, "R.assert_op(condition, format_args=None, format=\"\") needs a condition");
      b.args.push_back(*cond);
      const Value* fa = arg_or_kw(1, "format_args");
      format = arg_or_kw(2, "format");
      if (a.args.size() > 2 && kw("format")) Fail(span, "R.assert_op: format is given twice");
      if (a.args.size() > 3) Fail(span, "R.assert_op takes at most 3 positional arguments");
      if (fa && fa->kind == K::kList) values = fa->items;
      else if (fa && fa->kind != K::kNone) values.push_back(*fa);
    } else {
      values = a.args;
      format = kw("format");
    }
    for (const auto& [k, v] : a.kwargs) {
      bool known = k == "format" || (is_assert && (k == "condition" || k == "format_args"));
      if (!known) Fail(SpanOr(v, span), absl::StrCat("R.", name, " got an unexpected keyword '", k, "'"));
    }
    b.args.push_back(format && format->kind != K::kNone ? *format : Value::Str(""));
    if (b.args.back().kind == K::kStr) {
      b.args.back() = Value::Obj(K::kRelax, rx::StringImm(b.args.back().s, SpanOr(b.args.back(), span)));
    }
    for (Value& v : values) b.args.push_back(std::move(v));
    a = std::move(b);
  }

  if (name == "nn.attention_var_len") {
    // TVM's wrapper takes (queries, keys, values, seqstart_q, max_seqlen_q, seqstart_k=None,
    // max_seqlen_k=None, ...), the k ones defaulting to the q ones; the operator's arguments are
    // ordered (..., seqstart_q, seqstart_k, max_seqlen_q, max_seqlen_k).
    static const char* kScript[] = {"queries", "keys", "values", "seqstart_q", "max_seqlen_q", "seqstart_k",
                                    "max_seqlen_k"};
    std::vector<const Value*> got(7, nullptr);
    for (size_t i = 0; i < 7; ++i) got[i] = arg_or_kw(i, kScript[i]);
    if (a.args.size() > 7) Fail(span, "R.nn.attention_var_len takes at most 7 positional arguments");
    for (size_t i = 0; i < 5; ++i) {
      if (!got[i]) Fail(span, absl::StrCat("R.nn.attention_var_len: missing argument '", kScript[i], "'"));
    }
    if (!got[5] || got[5]->kind == K::kNone) got[5] = got[3];
    if (!got[6] || got[6]->kind == K::kNone) got[6] = got[4];
    CallArgs b;
    b.span = a.span;
    b.func_span = a.func_span;
    for (size_t i : {0, 1, 2, 3, 5, 4, 6}) b.args.push_back(*got[i]);
    for (auto& [k, v] : a.kwargs) {
      if (std::find(std::begin(kScript), std::end(kScript), k) == std::end(kScript)) b.kwargs.emplace_back(k, v);
    }
    a = std::move(b);
  }

  // ---- operators from the registry
  const kiln::relax::OpSchema* schema = kiln::relax::OpRegistry::Global().FindByScriptName(name);
  if (!schema) Fail(a.func_span, absl::StrCat("R.", name, " is not a Relax operator"));
  bool tir_like = name == "call_tir" || name == "call_tir_inplace" || name == "call_tir_with_grad" || name == "call_dps_packed" ||
                  name == "dist.call_tir_local_view";
  bool packed = name == "call_packed" || name == "call_pure_packed" || name == "call_dps_packed" || name == "call_builtin_with_ctx";
  Array<Expr> args;
  std::vector<std::pair<std::string, ObjectRef>> attrs;
  Array<Type> ty_args;
  // Keyword arguments naming the operator's arguments, in any order, join the positional ones.
  if (!schema->variadic) {
    for (size_t i = a.args.size(); i < schema->args.size(); ++i) {
      auto it = std::find_if(a.kwargs.begin(), a.kwargs.end(), [&](const auto& kv) { return kv.first == schema->args[i]; });
      if (it == a.kwargs.end()) {
        const std::pair<std::string, Value>* later = nullptr;
        for (const auto& kv : a.kwargs) {
          if (std::find(schema->args.begin() + i, schema->args.end(), kv.first) != schema->args.end()) later = &kv;
        }
        if (!later) break;
        // A later argument is given: an omitted optional one in between takes its default.
        size_t d = schema->min_args >= 0 && i >= static_cast<size_t>(schema->min_args) ? i - schema->min_args : SIZE_MAX;
        if (d < schema->arg_defaults.size() && schema->arg_defaults[d].defined()) {
          a.args.push_back(Value::Obj(K::kRelax, schema->arg_defaults[d]));
          continue;
        }
        Fail(SpanOr(later->second, span),
             absl::StrCat("R.", name, ": argument '", later->first, "' is given but '", schema->args[i], "' is missing"));
      }
      a.args.push_back(it->second);
      a.kwargs.erase(it);
    }
  }
  size_t n_pos = schema->variadic ? a.args.size() : std::min(a.args.size(), schema->args.size());
  for (size_t i = 0; i < n_pos; ++i) {
    const Value& v = a.args[i];
    if (i == 0 && packed && v.kind == K::kStr) {
      rx::ExternFunc f(v.s, SpanOr(v, span));
      f.CopyOnWrite()->ty = PackedFuncType::Make();
      args.push_back(f);
      continue;
    }
    if (tir_like && i == 1 && v.is_seq()) {
      Array<Expr> fields;
      for (const Value& x : v.items) {
        if (x.kind == K::kPrim || x.kind == K::kStr) {
          // A typed value (T.bool(True), T.int32(4)) keeps its dtype; "n" names a symbolic dim.
          PrimExpr p = x.kind == K::kPrim ? ToPrim(x, SpanOr(x, span)) : SymbolicDim(x, SpanOr(x, span), DataType::Int(64));
          rx::PrimValue pv(p, SpanOr(x, span));
          pv.CopyOnWrite()->ty = PrimType(p.dtype(), p);
          fields.push_back(pv);
        } else {
          fields.push_back(ToRelax(x, SpanOr(x, span)));
        }
      }
      rx::Tuple t(fields, SpanOr(v, span));
      t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
      args.push_back(t);
      continue;
    }
    // R.image.*'s size: an int or a PrimExpr means that size in every spatial dim, a Python
    // tuple is a shape (a 1-tuple repeated, for resize), as TVM's wrappers convert it.
    if (absl::StartsWith(name, "image.") && i < schema->args.size() && schema->args[i] == "size" &&
        (v.is_seq() || v.kind == K::kInt || v.kind == K::kPrim)) {
      size_t spatial = name == "image.resize3d" ? 3 : 2;
      std::vector<Value> items = v.is_seq() ? v.items : std::vector<Value>(spatial, v);
      if (items.size() == 1 && absl::StartsWith(name, "image.resize")) items.assign(spatial, items[0]);
      Array<PrimExpr> dims;
      for (const Value& d : items) dims.push_back(SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
      rx::ShapeExpr shape(dims, SpanOr(v, span));
      shape.CopyOnWrite()->ty = ShapeType(dims);
      args.push_back(shape);
      continue;
    }
    // A Python tuple where the operator takes a shape: R.zeros((m, n), "float32").
    if (v.is_seq() && i < schema->args.size() && schema->args[i] == "shape") {
      Array<PrimExpr> dims;
      for (const Value& d : v.items) dims.push_back(SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
      rx::ShapeExpr shape(dims, SpanOr(v, span));
      shape.CopyOnWrite()->ty = ShapeType(dims);
      args.push_back(shape);
      continue;
    }
    // R.call_tir(f, x, ...) with one tensor: TVM wraps it into a one-element tuple.
    if (tir_like && i == 1 && v.kind == K::kRelax) {
      Expr x = ToRelax(v, SpanOr(v, span));
      if (x->ty.defined() && !x->ty.as<TupleTypeNode>()) {
        rx::Tuple t(Array<Expr>{x}, SpanOr(v, span));
        t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
        args.push_back(t);
        continue;
      }
    }
    if (v.kind == K::kStr && i < schema->args.size() && schema->args[i] == "dtype") {
      args.push_back(rx::DataTypeImm(ToDType(v, SpanOr(v, span)), SpanOr(v, span)));
      continue;
    }
    args.push_back(ToRelax(v, SpanOr(v, span)));
  }
  auto add_ty = [&](const Value& v, bool tuple_list) {
    if (!tuple_list && v.kind == K::kTuple) {  // ty_args=(R.Tuple(...),): one type per element
      for (const Value& x : v.items) ty_args.push_back(ToRelaxType(x, SpanOr(x, span)));
    } else if (tuple_list && v.kind == K::kList && v.items.size() == 1) {
      // out_ty=[T]: TVM's call_tir wrappers make a one-element list the single output type.
      ty_args.push_back(ToRelaxType(v.items[0], SpanOr(v.items[0], span)));
    } else if (tuple_list && v.kind == K::kList) {
      Array<Type> fields;
      for (const Value& x : v.items) fields.push_back(ToRelaxType(x, SpanOr(x, span)));
      ty_args.push_back(TupleType(fields));
    } else if (v.kind == K::kList) {
      for (const Value& x : v.items) ty_args.push_back(ToRelaxType(x, SpanOr(x, span)));
    } else {
      ty_args.push_back(ToRelaxType(v, SpanOr(v, span)));
    }
  };
  // R.call_tir(f, args, out_ty) and R.call_dps_packed(f, args, out_ty): the output type may be
  // the third positional argument, as in TVM's Python signature.
  size_t first_attr = n_pos;
  if (name == "call_tir_inplace" && a.args.size() > n_pos) {
    // R.call_tir_inplace(f, args, inplace_indices, out_ty): the indices come before the type.
    attrs.emplace_back("inplace_indices", ToAttrValue(a.args[n_pos], SpanOr(a.args[n_pos], span)));
    if (a.args.size() > n_pos + 1) add_ty(a.args[n_pos + 1], true);
    if (a.args.size() > n_pos + 2) Fail(span, "R.call_tir_inplace takes at most 4 positional arguments");
    first_attr = a.args.size();
  } else if (tir_like && !schema->variadic && a.args.size() > n_pos) {
    add_ty(a.args[n_pos], true);
    ++first_attr;
  }
  for (size_t i = first_attr; i < a.args.size(); ++i) {
    size_t ai = i - first_attr;
    if (ai >= schema->attrs.size()) Fail(span, absl::StrCat("R.", name, " takes at most ", first_attr + schema->attrs.size(), " positional arguments"));
    attrs.emplace_back(schema->attrs[ai].name, ToAttrValue(a.args[i], span));
  }
  for (const auto& [k, v] : a.kwargs) {
    bool is_arg = false;
    for (size_t i = 0; i < schema->args.size(); ++i) {
      if (schema->args[i] != k) continue;
      is_arg = true;
      if (!schema->variadic) Fail(SpanOr(v, span), absl::StrCat("R.", name, ": argument '", k, "' is given twice"));
      args.push_back(ToRelax(v, SpanOr(v, span)));
    }
    if (is_arg) continue;
    if (k == "out_ty" || k == "ty_args") {
      add_ty(v, k == "out_ty");
    } else if (k == "out_sinfo" || k == "sinfo_args") {
      Warn(span, absl::StrCat(k, "= is spelled ", k == "out_sinfo" ? "out_ty" : "ty_args", "= in TVM v0.26"));
      add_ty(v, k == "out_sinfo");
    } else if (k == "tir_vars") {
      Fail(span, "tir_vars= was removed in TVM v0.26: pass symbolic values inside the argument tuple, e.g. R.call_tir(cls.f, (x, n), out_ty=...)");
    } else if (v.kind == K::kLambda) {  // index_map=lambda i: (i // 4, i % 4), as TVM's wrapper allows
      attrs.emplace_back(k, LambdaToIndexMap(v, DataType::Int(64), SpanOr(v, span)));
    } else {
      attrs.emplace_back(k, ToAttrValue(v, SpanOr(v, span)));
    }
  }
  // A VDevice object (I.vdevice(...), tvm.ir.VDevice(...)) given for a string attribute, as
  // to_vdevice's dst_vdevice: the attribute holds its "target:id:scope" spelling.
  for (auto& [k, v] : attrs) {
    const auto* info = v.as<GlobalInfoNode>();
    if (!info || info->kind != "vdevice") continue;
    for (const kiln::relax::AttrSpec& spec : schema->attrs) {
      if (spec.name != k || spec.kind != kiln::relax::AttrSpec::Kind::kString) continue;
      const auto* target = info->attrs.Get(String("target")).as<StringNode>();
      const auto* id = info->attrs.Get(String("vdevice_id")).as<IntImmNode>();
      const auto* scope = info->attrs.Get(String("memory_scope")).as<StringNode>();
      if (!target) Fail(span, "a VDevice needs a target");
      v = String(absl::StrCat(target->value, ":", id ? id->value : 0, ":", scope ? scope->value : "global"));
    }
  }
  absl::StatusOr<rx::Call> call = kiln::relax::MakeOpCall(schema->script_name, args, attrs, ty_args, module_, span,
                                                          /*infer=*/!defer);
  if (!call.ok()) Fail(span, std::string(call.status().message()));
  return Value::Obj(K::kRelax, *call);
}

}  // namespace kiln::script::parser
