// TVMScript parser, Relax half: `@R.function` functions, bindings, dataflow blocks, if/else, calls
// of Relax functions, and the dispatch of `R.*` calls to their handlers, one family per file
// (handlers.h: types, distributed Relax, function-level statements and leaf values, and every
// operator of the Relax op registry).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <unordered_set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

namespace {

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

// The strings of `e` written as a bare Python identifier ("n", not "n * 2"): in a parameter's
// annotation, the dims that introduce symbolic variables.
void CollectIdentifierStrings(const doc::ExprPtr& e, std::unordered_set<std::string>* out) {
  if (!e) return;
  if (e->kind == doc::ExprKind::kConstant && e->const_kind == doc::Expr::ConstKind::kStr) {
    const std::string& s = e->str_value;
    bool ident = !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
                 std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (ident) out->insert(s);
  }
  for (const doc::ExprPtr& c : {e->value, e->left, e->right, e->func, e->slice}) CollectIdentifierStrings(c, out);
  for (const auto& v : {e->args, e->elts, e->values}) for (const auto& c : v) CollectIdentifierStrings(c, out);
  for (const doc::Keyword& k : e->keywords) CollectIdentifierStrings(k.value, out);
}

// Sets Parser::param_dim_names_ while a signature's parameter annotations are read.
class ParamDimNames {
 public:
  ParamDimNames(const std::unordered_set<std::string>** slot, const std::vector<doc::Arg>& args) : slot_(slot) {
    for (const doc::Arg& a : args) CollectIdentifierStrings(a.annotation, &names_);
    *slot_ = &names_;
  }
  ~ParamDimNames() { *slot_ = nullptr; }

 private:
  const std::unordered_set<std::string>** slot_;
  std::unordered_set<std::string> names_;
};

// Whether a statement of `body` calls `name` directly, as TVM's parser decides that a local
// function is recursive: the value of an assignment, return or expression statement is a call of
// that name, looking inside `if` branches and `with` bodies (not inside other expressions).
bool CallsByName(const std::vector<doc::StmtPtr>& body, const std::string& name) {
  for (const doc::StmtPtr& s : body) {
    switch (s->kind) {
      case doc::StmtKind::kAssign:
      case doc::StmtKind::kAnnAssign:
      case doc::StmtKind::kReturn:
      case doc::StmtKind::kExpr:
        if (s->value && s->value->kind == doc::ExprKind::kCall && s->value->func &&
            s->value->func->kind == doc::ExprKind::kName && s->value->func->name == name) {
          return true;
        }
        break;
      case doc::StmtKind::kWith:
        if (CallsByName(s->body, name)) return true;
        break;
      case doc::StmtKind::kIf:
        if (CallsByName(s->body, name) || CallsByName(s->orelse, name)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

// ------------------------------------------------------------------ types and values

PrimExpr Parser::SymbolicDim(const Value& v, const Span& span, DataType dtype) {
  if (v.kind == K::kInt) return IntImm(dtype, v.i);
  // As in Python, a bool is the int 0 or 1 here (and T.bool(True) below is read the same way).
  if (v.kind == K::kBool) return IntImm(dtype, v.b ? 1 : 0);
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
      if (param_dim_names_ && !param_dim_names_->count(n)) {
        // TVM defines a parameter's symbolic variable only where a dim is the bare name.
        Fail(span, absl::StrCat("name '", n, "' is not defined: a symbolic variable is introduced by a dimension written as ",
                                "its bare name (\"", n, "\"), not inside \"", v.s, "\""));
      }
      Var var(n, dtype, span);
      if (!symbolic_.empty()) symbolic_.back()[n] = var;
      Define(n, Value::Obj(K::kPrim, var));
    }
    Value inner = Eval(m->body[0]->value);
    // A name bound to a string (n = "n") would be read again forever.
    if (inner.kind == K::kStr) Fail(span, absl::StrCat("the shape expression \"", v.s, "\" is a string, not a dimension"));
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
    if (v.s == "R.Callable") {  // opaque, returning R.Any, impure (TVM's default)
      FuncType ft(Array<Type>(), AnyType::Make(), false);
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
    {
      ParamDimNames dims(&param_dim_names_, def.args);
      for (const doc::Arg& arg : def.args) {
        if (!arg.annotation) Fail(arg.pos, absl::StrCat("parameter '", arg.name, "' needs a type annotation"));
        params.push_back(ToRelaxType(Eval(arg.annotation), SpanOf(arg.annotation->pos)));
      }
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
  {
    ParamDimNames dims(&param_dim_names_, def.args);
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
  }
  if (def.returns) fd->ret_ty = RelaxReturnType(def.returns);
  Expr result;
  const doc::Stmt* ret_stmt = nullptr;
  enclosing_stmt_ = SpanOf(def.pos);
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
  const Span enclosing = enclosing_stmt_;
  for (const doc::StmtPtr& s : body) {
    enclosing_stmt_ = enclosing;
    if (result->defined()) {
      Report({SpanOf(s->pos), "unreachable statement after return"});
      break;
    }
    try {
      RejectUnvisitedStmt(*s);
      enclosing_stmt_ = SpanOf(s->pos);
      ParseRelaxStmt(*s, result);
      if (result->defined()) *ret_stmt = s.get();
    } catch (const ParseError& e) {
      Report(e);
      if (s->kind == doc::StmtKind::kAssign) for (const auto& t : s->targets) Poison(t);
      if (s->kind == doc::StmtKind::kAnnAssign) Poison(s->target);
    }
  }
  enclosing_stmt_ = enclosing;
}

void Parser::ParseRelaxStmt(const doc::Stmt& s, Expr* result) {
  Span span = SpanOf(s.pos);
  const char* kAfterOutput = "a binding may not follow the dataflow block's R.output";
  switch (s.kind) {
    case doc::StmtKind::kAssign:
      if (s.targets.size() != 1) Fail(span, "chained assignment is not supported");
      if (relax_.dataflow_ended()) Fail(span, kAfterOutput);
      return RelaxAssign(s.targets[0], nullptr, s.value, s);
    case doc::StmtKind::kAnnAssign:
      if (!s.value) Fail(span, "a Relax variable needs a value");
      if (relax_.dataflow_ended()) Fail(span, kAfterOutput);
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
        const auto* tt = kiln::relax::ExprType(e).as<TupleTypeNode>();
        if (!tt || !tt->fields.empty()) {
          Fail(span, "a Relax expression with a value must be bound to a variable (only void calls stand alone)");
        }
        if (relax_.dataflow_ended()) Fail(span, kAfterOutput);
        relax_.Emit(rx::VarBinding(NewRelaxVar("_", kiln::relax::ExprType(e), span), e, span));
        return;
      }
      Fail(span, absl::StrCat("a ", KindName(v.kind), " is not a statement"));
    }
    case doc::StmtKind::kWith: {
      if (s.items.size() != 1 || s.items[0].context_expr->kind != doc::ExprKind::kCall) Fail(span, "unsupported with statement");
      if (s.items[0].optional_vars) {
        Fail(s.items[0].context_expr->pos, "a Relax `with` binds no variable: drop the `as ...` (write `with R.dataflow():`)");
      }
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
      if (!is_relax && s.decorators.empty()) Fail(span, "a function inside an R.function must be decorated with @R.function");
      if (!is_relax) Fail(span, "an inline prim_func (or other non-Relax function) is not allowed inside an R.function");
      // A local function that calls itself, as TVM's parser does it: its variable is declared
      // first, typed by the signature (parameter annotations, the return annotation or the empty
      // tuple), so that the body can call it; the function is then bound to that variable.
      Var var;
      if (!Lookup(s.name) && CallsByName(s.body, s.name)) {
        Array<Type> params;
        Type ret;
        {
          PushScope();
          symbolic_.emplace_back();
          struct Restore {
            Parser* p;
            ~Restore() {
              p->symbolic_.pop_back();
              p->PopScope();
            }
          } restore{this};
          for (const doc::Arg& arg : s.args) {
            if (!arg.annotation) Fail(SpanOf(arg.pos), absl::StrCat("parameter '", arg.name, "' needs a type annotation"));
            Type ty = ToRelaxType(Eval(arg.annotation), SpanOf(arg.annotation->pos));
            params.push_back(ty);
            // A later parameter's shape may name an R.Prim(value="n") parameter's variable.
            Var p(arg.name, ty, SpanOf(arg.pos));
            p.CopyOnWrite()->dtype = DataType::Void();
            Define(arg.name, Value::Obj(K::kRelax, p));
          }
          ret = s.returns ? RelaxReturnType(s.returns) : TupleType(Array<Type>{});
        }
        var = NewRelaxVar(s.name, FuncType(params, ret), span);
        Define(s.name, Value::Obj(K::kRelax, var));
      }
      rx::Function f = ParseRelaxFunc(s, s.name, &deco, false);
      if (!var.defined()) var = NewRelaxVar(s.name, kiln::relax::ExprType(f), span);
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
    const auto* declared = v.obj.as<VarNode>();
    if (it != table.end() && declared && it->second->dtype != declared->dtype) {
      // As TVM: `n = T.int32()` where the signature's "n" is an int64 is not that variable.
      Fail(v.span, absl::StrCat("Expected the same dtype for PrimType values but got ", declared->dtype.ToString(),
                                " vs ", it->second->dtype.ToString()));
    }
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

namespace {

// Whether a type annotation spells a tensor or shape dimension as a string (R.Tensor(("n",), ...)).
bool HasStringShapeImpl(const doc::Expr& e) {
  if (e.kind == doc::ExprKind::kCall) {
    bool shape_call = e.func && e.func->kind == doc::ExprKind::kAttribute &&
                      (e.func->name == "Tensor" || e.func->name == "Shape" || e.func->name == "DTensor");
    auto is_string_seq = [](const doc::ExprPtr& x) {
      if (!x || (x->kind != doc::ExprKind::kTuple && x->kind != doc::ExprKind::kList)) return false;
      return std::any_of(x->elts.begin(), x->elts.end(), [](const doc::ExprPtr& d) {
        return d->kind == doc::ExprKind::kConstant && d->const_kind == doc::Expr::ConstKind::kStr;
      });
    };
    if (shape_call && !e.args.empty() && is_string_seq(e.args[0])) return true;
    for (const doc::Keyword& kw : e.keywords) {
      if (shape_call && (kw.arg == "shape" || kw.arg == "values") && is_string_seq(kw.value)) return true;
      if (kw.value && HasStringShapeImpl(*kw.value)) return true;
    }
    for (const doc::ExprPtr& x : e.args) if (HasStringShapeImpl(*x)) return true;
    return false;
  }
  for (const doc::ExprPtr& x : e.elts) if (HasStringShapeImpl(*x)) return true;
  return false;
}

}  // namespace

bool Parser::HasStringShape(const doc::Expr& e) const { return HasStringShapeImpl(e); }

void Parser::RelaxAssign(const doc::ExprPtr& target, const doc::ExprPtr& ann_expr, const doc::ExprPtr& value_expr,
                         const doc::Stmt& s) {
  Span span = SpanOf(s.pos);
  if (target->kind == doc::ExprKind::kTuple || target->kind == doc::ExprKind::kList) {
    if (ann_expr) Fail(span, "a tuple assignment cannot be annotated");
    Value v = Eval(value_expr);
    CheckDistinctTargets(*target);
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
    // `n = T.int64()` declares a symbolic variable: TVM checks it against the annotation and
    // against an earlier definition of the name, at the target.
    DataType dtype = v.obj.as<VarNode>()->dtype;
    if (ann_expr) {
      DataType declared = ToDType(Eval(ann_expr), SpanOf(ann_expr->pos));
      if (declared != dtype) {
        Fail(target->pos, absl::StrCat("expected the declared symbolic variable '", name, "' to have type ",
                                       declared.ToString(), ", but got ", dtype.ToString()));
      }
    }
    if (const Value* prev = Lookup(name)) {
      const auto* prev_var = prev->kind == K::kPrim ? prev->obj.as<VarNode>() : nullptr;
      if (!prev_var) {
        Fail(target->pos, absl::StrCat("cannot redefine '", name, "', a non-PrimType object, to a PrimType value; ",
                                       "define the PrimType value with another name"));
      }
      if (prev_var->dtype != dtype) {
        Fail(target->pos, absl::StrCat("expected the same dtype for PrimType values but got ", dtype.ToString(),
                                       " vs ", prev_var->dtype.ToString()));
      }
    }
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
  // An annotated scalar (`b: T.int64 = 3`, `a: T.int32 = T.int32(0)`) is a binding of that
  // value: it is how a Relax scalar binding prints (TVM v0.26 has no R.prim_value).
  bool annotated_scalar = ann_expr && (v.kind == K::kInt || v.kind == K::kFloat || v.kind == K::kBool || v.kind == K::kPrim);
  if (v.kind != K::kRelax && !annotated_scalar && !(v.kind == K::kTuple && (ann_expr || relax_tuple))) {
    Define(name, v);  // a Python-level value (a module alias `cls = Module`, a number, a shape...)
    return;
  }
  Expr value = ToRelax(v, SpanOf(value_expr->pos));
  // The variable of R.match_cast takes the cast's type, not the value's.
  Type inferred = v.s == "match_cast" ? Downcast<Type>(v.items[0].obj) : kiln::relax::ExprType(value);
  Type ty = inferred;
  if (ann_expr) {
    if (HasStringShape(*ann_expr)) {
      Fail(ann_expr->pos, "a string-defined shape (\"n\") is only allowed in function parameter and return "
                          "annotations; declare the variable with n = T.int64() and write (n,)");
    }
    ty = ToRelaxType(Eval(ann_expr), SpanOf(ann_expr->pos));
    std::string why;
    // A call written as the value takes the annotation as its type, as TVM's parser gives it
    // (R.emit with an annotation). Its well-formed check compares the inferred type with it;
    // with check_well_formed=False nothing is compared.
    bool fresh_call = value_expr->kind == doc::ExprKind::kCall && v.s != "match_cast" && value.as<rx::CallNode>();
    // TVM checks a match cast's annotation against the cast type at the binding's target.
    if (v.s == "match_cast" && !kiln::relax::TypesCompatible(ty, inferred, &why)) {
      Fail(target->pos, absl::StrCat("inconsistent annotation for the match cast pair bound to '", name, "': ", why));
    }
    if ((check_well_formed_ || !fresh_call) && inferred.defined() &&
        !kiln::relax::TypesCompatible(ty, inferred, &why)) {
      // A value whose type is already known is checked by TVM's R.emit, at the statement; a call's
      // inferred type by the well-formed check, at the annotation.
      Fail(fresh_call ? SpanOf(ann_expr->pos) : span, absl::StrCat("the annotation of '", name, "' does not match its value: ", why));
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
  if (relax_.in_dataflow()) Fail(span, "an if cannot be inside `with R.dataflow():`: end the dataflow block before it");
  if (s.orelse.empty()) Fail(span, "an if in an R.function needs an else branch");
  std::string var_name;
  Type var_ty;
  auto same_name = [&](const std::string& name) {
    if (!var_name.empty() && name != var_name) {
      Fail(span, absl::StrCat("the last binding of both branches must provide the same variable: '", var_name, "' and '",
                              name, "'"));
    }
    var_name = name;
  };
  auto branch = [&](const std::vector<doc::StmtPtr>& body) -> Expr {
    const doc::Stmt& last = *body.back();
    const doc::ExprPtr& t = last.kind == doc::StmtKind::kAssign && last.targets.size() == 1 ? last.targets[0]
                          : last.kind == doc::StmtKind::kAnnAssign ? last.target : nullptr;
    if (!t || t->kind != doc::ExprKind::kName || !last.value) {
      // As in TVM, the branch's last binding gives the result, whatever statement made it: an
      // expression statement (`R.print(...)` binds `_`), or a dataflow block whose R.output
      // binds it. The branch's value is that variable.
      relax_.BeginSeq();
      PushScope();
      Expr unused;
      const doc::Stmt* unused_ret = nullptr;
      ParseRelaxBody(body, &unused, &unused_ret);
      rx::Binding binding = relax_.LastBinding();
      PopScope();
      rx::SeqExpr seq = relax_.EndSeq(binding.defined() ? Expr(binding->var) : Expr(), SpanOf(last.pos));
      // TVM checks a branch's last binding when the branch closes, and reports it at the if.
      if (!binding.defined()) {
        Fail(span, "empty body is not allowed for a branch of an if in an R.function: it must bind the result variable");
      }
      if (binding->var.as<rx::DataflowVarNode>()) {
        Fail(span, absl::StrCat("the last binding of a branch of an if must be a non-dataflow variable (list '",
                                binding->var->name, "' in R.output)"));
      }
      same_name(binding->var->name);
      return seq;
    }
    same_name(t->name);
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
  for (const Value& v : a.args) {
    // TVM's GlobalVar call takes Relax expressions only; a string is not one (ops take strings).
    if (v.kind == K::kStr && callee.as<GlobalVarNode>()) {
      Fail(a.span, "a call of a module function (GlobalVar) takes Relax expressions, not a str argument");
    }
    args.push_back(ToRelax(v, SpanOr(v, a.span)));
  }
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


namespace {

// Every R.* handler by name, built on first use and never changed afterwards.
const RelaxCallTable& RelaxCalls() {
  static const RelaxCallTable* const kTable = [] {
    auto* t = new RelaxCallTable;
    AddRelaxTypeCalls(t);
    AddRelaxDistCalls(t);
    AddRelaxValueCalls(t);
    AddRelaxOpCalls(t);
    return t;
  }();
  return *kTable;
}

}  // namespace

Value Parser::CallR(const std::string& name, CallArgs& a) {
  RelaxCall c{*this, name, a, a.span, defer_inference_};
  defer_inference_ = false;
  const RelaxCallTable& table = RelaxCalls();
  if (auto it = table.find(name); it != table.end()) return it->second(*this, a, c);
  return CallRelaxOp(*this, a, c);
}

int RelaxCall::NDim(const Value* nd) const {
  if (!nd) return -1;
  int64_t n = p.ToInt(*nd, SpanOr(*nd, span));
  if (n < -1 || n > INT32_MAX) p.Fail(SpanOr(*nd, span), "ndim must be a non-negative int, or -1 for unknown");
  return static_cast<int>(n);
}

CallArgs RelaxCall::Rebuilt() const {
  CallArgs b;
  b.span = a.span;
  b.func_span = a.func_span;
  return b;
}

}  // namespace kiln::script::parser
