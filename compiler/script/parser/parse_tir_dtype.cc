// TVMScript parser, `T.*` dtype constructors: T.int32() (a fresh variable), T.int32(5) (a
// constant), T.float16(x) (a cast), and the handle types T.handle(...) / T.TensorMap().
#include <limits>
#include <string>

#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.handle() / T.handle("float32", "shared"): a fresh handle variable.
Value CallHandle(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  // T.handle() / T.handle("float32", "shared"): a fresh handle variable.
  Type ty = PrimType(DataType::Handle());
  static const char* kTensorMapNames[] = {"TensorMap", "tensormap", "CUtensorMap", "cuTensorMap"};
  bool tensor_map = false;
  for (const char* n : kTensorMapNames) tensor_map |= !a.args.empty() && a.args[0].kind == K::kStr && a.args[0].s == n;
  if (tensor_map) {  // T.handle("tensormap") is T.TensorMap(), as in TVM's builder
    CallArgs none;
    none.span = none.func_span = span;
    return p.CallT("TensorMap", none);
  }
  if (!a.args.empty()) {
    DataType elem = p.ToDType(a.args[0], SpanOr(a.args[0], span));
    std::string scope = a.args.size() > 1 ? p.ToStr(a.args[1], span) : "global";
    ty = PointerType(PrimType(elem), scope);
  }
  Value v = Value::Obj(K::kPrim, Var(c.FreshName(), ty, span));
  v.fresh_var = true;
  return v;
}

// T.TensorMap(): a fresh handle variable pointing to a CUDA tensor-map descriptor.
Value CallTensorMap(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  // T.TensorMap(): a fresh handle variable pointing to a CUDA tensor-map descriptor.
  c.Need(0, 0);
  Value v = Value::Obj(K::kPrim, Var(c.FreshName(), PointerType(TensorMapType::Make()), span));
  v.fresh_var = true;
  return v;
}

// T.Var(name, dtype): a fresh variable with that name (TVM's tirx.Var, which TVMScript resolves
// like any Python value; the library's kernels declare symbolic sizes so).
Value CallVar(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const Value* name = Arg(a, 0, "name");
  const Value* dtype = Arg(a, 1, "dtype");
  if (!dtype) dtype = Kwarg(a, "ty");
  if (!name || !dtype || a.args.size() + a.kwargs.size() != 2) p.Fail(span, "T.Var(name, dtype) takes a name and a dtype");
  Value v = Value::Obj(K::kPrim, Var(p.ToStr(*name, SpanOr(*name, span)), p.ToDType(*dtype, SpanOr(*dtype, span)), span));
  v.fresh_var = true;
  return v;
}

}  // namespace

// T.int32(), T.int32(5), T.float16(x), T.bool(True): a fresh variable, a constant or a cast.
Value CallTirDType(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  DataType dtype = *DataType::Parse(name);
  if (a.args.empty()) {
    bool size_var = false;
    if (const Value* sv = Kwarg(a, "is_size_var")) size_var = p.ToBool(*sv, span);
    Value v = Value::Obj(K::kPrim, size_var ? PrimExpr(SizeVar(c.FreshName(), dtype, span)) : PrimExpr(Var(c.FreshName(), dtype, span)));
    v.fresh_var = true;
    return v;
  }
  c.Need(1, 1);
  const Value& x = a.args[0];
  if (x.kind == K::kStr && dtype.is_floating()) {
    double f = x.s == "inf" ? std::numeric_limits<double>::infinity()
             : x.s == "-inf" ? -std::numeric_limits<double>::infinity()
             : x.s == "nan" ? std::numeric_limits<double>::quiet_NaN() : 0;
    if (x.s != "inf" && x.s != "-inf" && x.s != "nan") p.Fail(SpanOr(x, span), "expected \"inf\", \"-inf\" or \"nan\"");
    return Value::Obj(K::kPrim, FloatImm(dtype, f, span));
  }
  if (x.is_number()) return c.Ok(tir::MakeConst(dtype, c.Operand(0), span));
  return c.Ok(tir::CastTo(dtype, c.Prim(0), span));
}

void AddTirDTypeCalls(TirCallTable* t) {
  t->by_name.emplace("handle", &CallHandle);
  t->by_name.emplace("TensorMap", &CallTensorMap);
  t->by_name.emplace("Var", &CallVar);
}

}  // namespace kiln::script::parser
