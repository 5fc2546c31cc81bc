// TVMScript parser, `T.*` expressions: the operator functions (T.min, T.floordiv, T.abs,
// T.ceildiv, T.all, ...), casts and constants, the node constructors printed forms use (T.Add,
// T.Cast, T.Select, T.Ramp, T.Call, ...), lambdas (T.comm_reducer, T.index_map), and plain values
// (T.target, T.meta_var, T.Range).
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.target(...): a target is kept as its string (the printer spells it T.target(...)) or dict.
Value CallTarget(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 2);
  const Value* host = Arg(a, 1, "host");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "host") p.Fail(SpanOr(v, span), absl::StrCat("T.target has no argument '", k, "'"));
  }
  if (a.args[0].kind == K::kDict && !host) return a.args[0];
  if (!host) return Value::Str(p.ToStr(a.args[0], SpanOr(a.args[0], span)));
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

// T.meta_var(value): the value itself.
Value CallMetaVar(Parser& p, CallArgs& a, const TirCall& c) {
  c.Need(1, 1);
  Value v = a.args[0];
  v.meta = true;
  return v;
}

// T.all(*conds) / T.any(*conds) (tvm.tirx.all / any): a left-nested and/or chain.
Value CallAllAny(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  if (a.args.empty() || !a.kwargs.empty()) p.Fail(span, absl::StrCat("T.", name, " takes one or more conditions"));
  tir::BinaryOpKind op = name == "all" ? tir::BinaryOpKind::kAnd : tir::BinaryOpKind::kOr;
  if (a.args.size() == 1) return a.args[0];
  PrimExpr acc = c.OkPrim(tir::BinaryOp(op, c.Operand(0), c.Operand(1), span));
  for (size_t i = 2; i < a.args.size(); ++i) acc = c.OkPrim(tir::BinaryOp(op, acc, c.Operand(i), span));
  return Value::Obj(K::kPrim, acc);
}

// T.Range(begin, end): a domain, as a slice value for T.iter_var.
Value CallRange(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  Value r = Value::Seq(K::kSlice, {a.args[0], a.args[1], Value::None()});
  r.span = span;
  return r;
}

// T.Cast(dtype, value): the node as written.
Value CallCastNode(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  return Value::Obj(K::kPrim, Cast(p.ToDType(a.args[0], SpanOr(a.args[0], span)), c.Prim(1), span));
}

// T.Select(cond, t, f): a literal branch takes the other branch's dtype.
Value CallSelect(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(3, 3);
  PrimExpr cond = c.Prim(0);
  PrimExpr t, f;
  if (a.args[1].is_number() && a.args[2].is_number()) {
    t = c.Prim(1);
    f = c.Prim(2);
  } else if (a.args[1].is_number()) {
    f = c.Prim(2);
    t = Downcast<PrimExpr>(c.Ok(tir::MakeConst(f.dtype(), c.Operand(1), span)).obj);
  } else if (a.args[2].is_number()) {
    t = c.Prim(1);
    f = Downcast<PrimExpr>(c.Ok(tir::MakeConst(t.dtype(), c.Operand(2), span)).obj);
  } else {
    t = c.Prim(1);
    f = c.Prim(2);
  }
  if (t.dtype() != f.dtype()) {
    p.Fail(span, absl::StrCat("mismatched types: ", t.dtype().ToString(), " vs ", f.dtype().ToString(), " in T.Select"));
  }
  return Value::Obj(K::kPrim, Select(cond, t, f, span));
}

// T.comm_reducer(lambda x, y: x + y, [identity, ...]): a CommReducer.
Value CallCommReducer(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  Array<PrimExpr> ids = p.ToPrimArray(a.args[1], SpanOr(a.args[1], span));
  std::vector<DataType> dtypes;
  for (size_t i = 0; i < 2 * ids.size(); ++i) dtypes.push_back(ids[i % ids.size()].dtype());
  auto node = make_object<CommReducerNode>();
  node->span = span;
  node->identity_element = ids;
  Array<Var> params;
  node->result = p.EvalLambda(a.args[0], dtypes, "T.comm_reducer", &params, span);
  for (size_t i = 0; i < params.size(); ++i) (i < ids.size() ? node->lhs : node->rhs).push_back(params[i]);
  if (ids.empty() || node->result.size() != ids.size()) {
    p.Fail(span, "the lambda of T.comm_reducer returns one value per identity value");
  }
  return Value::Obj(K::kReducer, CommReducer(ObjectPtr<Object>(std::move(node))));
}

// T.index_map(lambda i, j: (j, i), index_dtype="int64"): an IndexMap.
Value CallIndexMap(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  DataType index_dtype = DataType::Int(64);
  for (const auto& [k, v] : a.kwargs) {
    if (k == "index_dtype") index_dtype = p.ToDType(v, SpanOr(v, span));
    else if (k != "inverse_index_map") p.Fail(SpanOr(v, span), absl::StrCat("T.index_map has no argument '", k, "'"));
  }
  return Value::Obj(K::kReducer, p.LambdaToIndexMap(a.args[0], index_dtype, span));
}

// T.cast(value, dtype): the function spelling of T.Cast(dtype, value).
Value CallCast(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const Value* value = Arg(a, 0, "value");
  const Value* dtype = Arg(a, 1, "dtype");
  if (!value || !dtype || a.args.size() > 2) p.Fail(span, absl::StrCat("T.cast(value, dtype) expects 2 arguments, got ", a.args.size() + a.kwargs.size()));
  return c.Ok(tir::CastTo(p.ToDType(*dtype, SpanOr(*dtype, span)), p.ToPrim(*value, SpanOr(*value, span)), span));
}

// T.const(value, dtype=None) (tvm.tirx.const): dtype from the literal.
Value CallConst(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const Value* value = Arg(a, 0, "value");
  const Value* dtype = Arg(a, 1, "dtype");
  if (!value || a.args.size() > 2) p.Fail(span, "T.const(value, dtype=None) takes a value and an optional dtype");
  tir::Operand lit = value->kind == K::kFloat ? tir::Operand::FloatLiteral(value->f)
                   : value->kind == K::kBool ? tir::Operand::BoolLiteral(value->b)
                   : value->kind == K::kInt ? tir::Operand::IntLiteral(value->i)
                   : tir::Operand(p.ToPrim(*value, SpanOr(*value, span)));
  if (!dtype || dtype->kind == K::kNone) return Value::Obj(K::kPrim, lit.Materialize());
  return c.Ok(tir::MakeConst(p.ToDType(*dtype, SpanOr(*dtype, span)), lit, span));
}

// The node constructors T.IntImm("int32", 8) and T.FloatImm("float32", 0.5).
Value CallImm(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  c.Need(2, 2);
  DataType dtype = p.ToDType(a.args[0], SpanOr(a.args[0], span));
  const Value& v = a.args[1];
  if (name == "IntImm") {
    if (!dtype.is_int_or_bool() || dtype.lanes() != 1) p.Fail(span, "T.IntImm takes a scalar integer or bool dtype");
    if (v.kind != K::kInt && v.kind != K::kBool) p.Fail(SpanOr(v, span), "T.IntImm takes an integer value");
    return c.Ok(tir::MakeConst(dtype, tir::Operand::IntLiteral(v.kind == K::kBool ? v.b : v.i), span));
  }
  if (!dtype.is_floating() || dtype.lanes() != 1) p.Fail(span, "T.FloatImm takes a scalar floating-point dtype");
  if (!v.is_number()) p.Fail(SpanOr(v, span), "T.FloatImm takes a number");
  return Value::Obj(K::kPrim, FloatImm(dtype, v.kind == K::kFloat ? v.f : static_cast<double>(v.kind == K::kBool ? v.b : v.i), span));
}

// T.StringImm("text").
Value CallStringImm(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  return Value::Obj(K::kPrim, StringImm(p.ToStr(a.args[0], SpanOr(a.args[0], span)), span));
}

// T.Call(op, [args], attrs=None, ret_ty=dtype): the printed form of a Call node.
Value CallCallNode(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const Value* op = Arg(a, 0, "op");
  const Value* args = Arg(a, 1, "args");
  const Value* attrs = Arg(a, 2, "attrs");
  const Value* ret = Kwarg(a, "ret_ty");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "op" && k != "args" && k != "attrs" && k != "ret_ty") p.Fail(SpanOr(v, span), absl::StrCat("T.Call has no argument '", k, "'"));
  }
  if (!op || !args || a.args.size() > 3) p.Fail(span, "T.Call(op, args, attrs=None, ret_ty=dtype) takes an operator and its arguments");
  if (attrs && attrs->kind != K::kNone && !(attrs->kind == K::kDict && attrs->items.empty())) {
    p.Fail(SpanOr(*attrs, span), "T.Call: call attributes are not supported");
  }
  if (!ret) p.Fail(span, "T.Call needs ret_ty= (the call's dtype)");
  std::string op_name;
  if (op->kind == K::kStr) op_name = op->s;
  else if (const auto* o = op->obj.as<OpNode>()) op_name = o->name;
  else p.Fail(SpanOr(*op, span), "T.Call takes an operator name or I.Op.get(name)");
  return Value::Obj(K::kPrim, Call(c.CallDType(*ret), Op(op_name), p.ToPrimArray(*args, SpanOr(*args, span)), span));
}

// T.max_value / T.min_value / T.infinity(dtype).
Value CallLimitValue(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  c.Need(1, 1);
  return c.Ok(tir::LimitValue(name, p.ToDType(a.args[0], SpanOr(a.args[0], span)), span));
}

// The lanes argument of T.Ramp / T.Broadcast: a constant, or T.vscale() * k for a scalable vector.
int LanesArg(Parser& p, const Value& v, const char* what, const Span& span) {
  absl::StatusOr<int> lanes = tir::EncodedLanes(p.ToPrim(v, SpanOr(v, span)), what);
  if (!lanes.ok()) p.Fail(SpanOr(v, span), std::string(lanes.status().message()));
  return *lanes;
}

// T.Ramp(base, stride, lanes).
Value CallRamp(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(3, 3);
  PrimExpr base, stride;
  if (!tir::MatchTypes(c.Operand(0), c.Operand(1), &base, &stride).ok()) p.Fail(span, "T.Ramp: base and stride need one integer dtype");
  return Value::Obj(K::kPrim, Ramp(base, stride, LanesArg(p, a.args[2], "T.Ramp", span), span));
}

// T.Broadcast(value, lanes).
Value CallBroadcast(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  PrimExpr value = c.Prim(0);
  if (!value.dtype().is_scalar()) p.Fail(span, absl::StrCat("T.Broadcast broadcasts a scalar, got ", value.dtype().ToString()));
  return Value::Obj(K::kPrim, Broadcast(value, LanesArg(p, a.args[1], "T.Broadcast", span), span));
}

// T.Shuffle(vectors, indices).
Value CallShuffle(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  return Value::Obj(K::kPrim, Shuffle(p.ToPrimArray(a.args[0], span), p.ToPrimArray(a.args[1], span), span));
}

// T.Not(x): logical not.
Value CallNot(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  return c.Ok(tir::LogicalNot(c.Operand(0), span));
}

// T.abs(x): the identity on unsigned types, max(x, -x) style via Select otherwise.
Value CallAbs(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(1, 1);
  PrimExpr x = c.Prim(0);
  if (x.dtype().is_uint() || x.dtype().is_bool()) return Value::Obj(K::kPrim, x);
  if (x.dtype().is_float()) return Value::Obj(K::kPrim, Call(x.dtype(), Op("tirx.fabs"), {x}, span));
  PrimExpr zero = *tir::MakeConst(x.dtype(), tir::Operand::IntLiteral(0), span);
  PrimExpr neg = c.OkPrim(tir::Negate(tir::Operand(x), span));
  return Value::Obj(K::kPrim, Select(*tir::BinaryOp(tir::BinaryOpKind::kGE, x, zero, span), x, neg, span));
}

// T.ceildiv(a, b): (a + b - 1) // b on integers, as TVM's helper builds it.
Value CallCeilDiv(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  c.Need(2, 2);
  PrimExpr a0 = c.Prim(0), b0 = p.ToPrimAs(a0.dtype(), a.args[1], span);
  PrimExpr one = *tir::MakeConst(a0.dtype(), tir::Operand::IntLiteral(1), span);
  PrimExpr sum = c.OkPrim(tir::BinaryOp(tir::BinaryOpKind::kSub, c.OkPrim(tir::BinaryOp(tir::BinaryOpKind::kAdd, a0, b0, span)), one, span));
  return c.Ok(tir::BinaryOp(tir::BinaryOpKind::kFloorDiv, sum, b0, span));
}

// The function spellings, then the node constructors (T.Add(a, b), T.FloorDiv(a, b), ...) that
// hand-written tests use.
constexpr std::pair<const char*, tir::BinaryOpKind> kBinary[] = {
    {"min", tir::BinaryOpKind::kMin}, {"max", tir::BinaryOpKind::kMax},
    {"truncdiv", tir::BinaryOpKind::kDiv}, {"truncmod", tir::BinaryOpKind::kMod},
    {"div", tir::BinaryOpKind::kDiv},  // tvm.tirx.div: C division (truncating on integers)
    {"floordiv", tir::BinaryOpKind::kFloorDiv}, {"floormod", tir::BinaryOpKind::kFloorMod},
    {"Add", tir::BinaryOpKind::kAdd}, {"Sub", tir::BinaryOpKind::kSub}, {"Mul", tir::BinaryOpKind::kMul},
    {"Div", tir::BinaryOpKind::kDiv}, {"Mod", tir::BinaryOpKind::kMod},
    {"FloorDiv", tir::BinaryOpKind::kFloorDiv}, {"FloorMod", tir::BinaryOpKind::kFloorMod},
    {"Min", tir::BinaryOpKind::kMin}, {"Max", tir::BinaryOpKind::kMax},
    {"EQ", tir::BinaryOpKind::kEQ}, {"NE", tir::BinaryOpKind::kNE}, {"LT", tir::BinaryOpKind::kLT},
    {"LE", tir::BinaryOpKind::kLE}, {"GT", tir::BinaryOpKind::kGT}, {"GE", tir::BinaryOpKind::kGE},
    {"And", tir::BinaryOpKind::kAnd}, {"Or", tir::BinaryOpKind::kOr},
};

// T.min(a, b), T.floordiv(a, b), ..., T.Add(a, b), ...: one binary operator of kBinary.
Value CallBinary(Parser& p, CallArgs& a, const TirCall& c) {
  const std::string& name = c.name;
  const auto* entry = std::find_if(std::begin(kBinary), std::end(kBinary), [&](const auto& b) { return name == b.first; });
  tir::BinaryOpKind kind = entry->second;
  c.Need(2, 2);
  // The lowercase functions fold constants like TVM's operator functions; the node
  // constructors (capitalized) build the node as written.
  bool node_ctor = std::isupper(static_cast<unsigned char>(name[0]));
  if (a.args[0].is_number() && a.args[1].is_number() && (kind == tir::BinaryOpKind::kMin || kind == tir::BinaryOpKind::kMax)) {
    return c.Ok(node_ctor ? tir::MakeBinaryNode(kind, tir::Operand(c.Prim(0)), c.Operand(1), c.span)
                          : tir::BinaryOp(kind, tir::Operand(c.Prim(0)), c.Operand(1), c.span));
  }
  return c.Ok(node_ctor ? tir::MakeBinaryNode(kind, c.Operand(0), c.Operand(1), c.span)
                        : tir::BinaryOp(kind, c.Operand(0), c.Operand(1), c.span));
}

}  // namespace

PrimExpr Parser::ToPrimAs(DataType dtype, const Value& v, const Span& span) const {
  if (v.kind == K::kInt || v.kind == K::kBool) {
    absl::StatusOr<PrimExpr> c = tir::MakeConst(dtype, tir::Operand::IntLiteral(ToInt(v, span)), span);
    if (!c.ok()) Fail(SpanOr(v, span), std::string(c.status().message()));
    return *c;
  }
  return ToPrim(v, span);
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

// T.call_tir(f, *args): a call of another PrimFunc of the module, the same as f(*args).
Value CallTirCallTir(Parser& p, CallArgs& a, const TirCall& c) {
  if (a.args.empty() || a.args[0].kind != K::kRelax || a.args[0].obj.as<GlobalVarNode>() == nullptr) {
    p.Fail(c.span, "T.call_tir expects a function of the module (a GlobalVar) first");
  }
  Expr callee = Downcast<Expr>(a.args[0].obj);
  a.args.erase(a.args.begin());
  return p.CallRelaxFunction(callee, a);
}

void AddTirExprCalls(TirCallTable* t) {
  t->by_name.emplace("target", &CallTarget);
  t->by_name.emplace("call_tir", &CallTirCallTir);
  t->by_name.emplace("meta_var", &CallMetaVar);
  for (const char* n : {"all", "any"}) t->by_name.emplace(n, &CallAllAny);
  t->by_name.emplace("Range", &CallRange);
  t->by_name.emplace("Cast", &CallCastNode);
  t->by_name.emplace("Select", &CallSelect);
  t->by_name.emplace("comm_reducer", &CallCommReducer);
  t->by_name.emplace("index_map", &CallIndexMap);
  t->by_name.emplace("cast", &CallCast);
  t->by_name.emplace("const", &CallConst);
  for (const char* n : {"IntImm", "FloatImm"}) t->by_name.emplace(n, &CallImm);
  t->by_name.emplace("StringImm", &CallStringImm);
  t->by_name.emplace("Call", &CallCallNode);
  for (const char* n : {"max_value", "min_value", "infinity"}) t->by_name.emplace(n, &CallLimitValue);
  for (const char* n : {"Ramp", "ramp"}) t->by_name.emplace(n, &CallRamp);
  for (const char* n : {"Broadcast", "broadcast"}) t->by_name.emplace(n, &CallBroadcast);
  t->by_name.emplace("Shuffle", &CallShuffle);
  t->by_name.emplace("Not", &CallNot);
  t->by_name.emplace("abs", &CallAbs);
  t->by_name.emplace("ceildiv", &CallCeilDiv);
  for (const auto& [n, kind] : kBinary) t->by_name.emplace(n, &CallBinary);
}

}  // namespace kiln::script::parser
