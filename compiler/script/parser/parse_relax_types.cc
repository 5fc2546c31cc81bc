// TVMScript parser, Relax types spelled as calls: R.Tensor, R.Shape, R.Tuple, R.Prim, R.Object /
// R.Any and R.Callable (the distributed R.DTensor is in parse_relax_dist.cc).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "compiler/script/parser/handlers.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

namespace {

// "kind[:index]" names the index-th entry of the module's I.module_global_infos "vdevice" list;
// TVM's lookup fails past the end of the list (a kind that does not match is only a warning).
void CheckVDevice(Parser& p, const std::string& vdevice, const Span& span) {
  size_t colon = vdevice.find(':');
  int64_t index = 0;
  if (colon != std::string::npos) {
    size_t end = vdevice.find(':', colon + 1);
    std::string digits = vdevice.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
      p.Fail(span, absl::StrCat("vdevice \"", vdevice, "\": the device index after ':' must be an integer"));
    }
    index = std::stoll(digits);
  }
  // Without a module or its global infos TVM fails too, but kiln's printer writes such annotations
  // for a VDevice object the module does not list (R.to_vdevice(x, I.VDevice(...))), so only an
  // index past the listed vdevices is an error here.
  if (!p.module_.defined() || p.module_->global_infos.empty()) return;
  Array<GlobalInfo> devices = p.module_->global_infos.Get("vdevice");
  if (!devices.empty() && index >= static_cast<int64_t>(devices.size())) {
    p.Fail(span, absl::StrCat("vdevice \"", vdevice, "\": the target VDevice was not found in the module's GlobalInfos (",
                              devices.size(), " vdevice(s))"));
  }
}

// R.Tensor(shape, dtype, ndim=, vdevice=): a tensor type.
Value CallTensor(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* shape = Arg(a, 0, "shape");
  const Value* dtype = Arg(a, 1, "dtype");
  // R.Tensor("float32", ndim=2): a lone string is the dtype (TVM accepts the shape-less form).
  if (shape && shape->kind == K::kStr && !Kwarg(a, "shape") && (!dtype || a.args.size() == 1)) {
    dtype = shape;
    shape = nullptr;
  }
  const Value* ndim = Kwarg(a, "ndim");
  const Value* vdevice = Kwarg(a, "vdevice");
  // TVM's R.Tensor(shape=None, dtype=None, vdevice=None, ndim=-1): nothing else.
  for (const auto& [k, v] : a.kwargs) {
    if (k != "shape" && k != "dtype" && k != "ndim" && k != "vdevice") {
      p.Fail(SpanOr(v, span), absl::StrCat("R.Tensor got an unexpected keyword argument '", k, "'"));
    }
  }
  if (a.args.size() > 3) p.Fail(span, "R.Tensor takes at most 3 positional arguments (shape, dtype, vdevice)");
  if (!vdevice && a.args.size() == 3) vdevice = &a.args[2];
  DataType dt = dtype && dtype->kind != K::kNone ? p.ToDType(*dtype, SpanOr(*dtype, span)) : DataType::Void();
  TensorType t;
  if (shape && shape->kind != K::kNone) {
    // TVM takes a list/tuple, a ShapeExpr or a variable of shape type; it fails at the call.
    if (shape->kind == K::kRelax) {
      const auto* var = shape->obj.as<VarNode>();
      if (!shape->obj.as<rx::ShapeExprNode>() && !(var && var->ty.defined() && var->ty.as<ShapeTypeNode>())) {
        p.Fail(span, "R.Tensor: a shape given as an expression must be a ShapeExpr or a variable of shape type");
      }
    } else if (shape->kind != K::kTuple && shape->kind != K::kList) {
      p.Fail(span, "R.Tensor: the shape must be a list, a tuple or a shape expression");
    }
    if (shape->kind == K::kRelax) {
      t = TensorType(dt, c.NDim(ndim));
      t.CopyOnWrite()->shape = Downcast<Expr>(shape->obj);
    } else {
      Array<PrimExpr> dims;
      for (const Value& d : p.ToSeq(*shape, SpanOr(*shape, span))) dims.push_back(p.SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
      int n = c.NDim(ndim);
      if (n != -1 && n != static_cast<int>(dims.size())) {
        p.Fail(SpanOr(*ndim, span), absl::StrCat("R.Tensor: ndim=", n, " does not match the shape's ", dims.size(), " dimensions"));
      }
      t = TensorType(dims, dt);
    }
  } else {
    t = TensorType(dt, c.NDim(ndim));
  }
  if (vdevice && vdevice->kind != K::kNone) {
    t.CopyOnWrite()->vdevice = p.ToStr(*vdevice, span);
    CheckVDevice(p, t->vdevice, span);
  }
  return Value::Obj(K::kType, t);
}

// R.Shape(values) / R.Shape(ndim=): a shape type.
Value CallShape(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* values = Arg(a, 0, "values");
  if (values && values->kind != K::kNone) {
    Array<PrimExpr> dims;
    for (const Value& d : p.ToSeq(*values, SpanOr(*values, span))) dims.push_back(p.SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
    return Value::Obj(K::kType, ShapeType(dims));
  }
  const Value* ndim = Kwarg(a, "ndim");
  return Value::Obj(K::kType, ShapeType(c.NDim(ndim)));
}

// R.Tuple(*fields) or R.Tuple([fields]): a tuple type.
Value CallTuple(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  Array<Type> fields;
  std::vector<Value> items = a.args;
  if (items.size() == 1 && items[0].kind == K::kList) items = items[0].items;
  for (const Value& x : items) fields.push_back(p.ToRelaxType(x, SpanOr(x, span)));
  return Value::Obj(K::kType, TupleType(fields));
}

// R.Prim(dtype) / R.Prim(value=...): a PrimType, with its value when known.
Value CallPrim(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* dtype = Arg(a, 0, "dtype");
  const Value* value = Kwarg(a, "value");
  if (value && value->kind != K::kNone) {
    // A typed value (T.int32(0)) keeps its dtype; an int or a "n" string is int64.
    PrimExpr pv = value->kind == K::kPrim ? p.ToPrim(*value, SpanOr(*value, span))
                                          : p.SymbolicDim(*value, SpanOr(*value, span), DataType::Int(64));
    return Value::Obj(K::kType, PrimType(pv.dtype(), pv));
  }
  if (!dtype) p.Fail(span, "R.Prim needs a dtype or value=");
  return Value::Obj(K::kType, PrimType(p.ToDType(*dtype, SpanOr(*dtype, span))));
}

// R.Callable(params, ret, purity): a function type (params None: unknown). As in TVM, purity
// defaults to True when the params are known and to False for an opaque function.
Value CallCallable(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* params = Arg(a, 0, "params");
  const Value* ret = Arg(a, 1, "ret");
  const Value* purity = Arg(a, 2, "purity");
  Array<Type> ps;
  bool known = params && params->kind != K::kNone;
  if (known) for (const Value& x : p.ToSeq(*params, span)) ps.push_back(p.ToRelaxType(x, SpanOr(x, span)));
  FuncType ft(ps, ret && ret->kind != K::kNone ? p.ToRelaxType(*ret, span) : Type(AnyType::Make()),
              purity ? p.ToBool(*purity, span) : known);
  if (!known) ft.CopyOnWrite()->params_known = false;
  return Value::Obj(K::kType, ft);
}

// R.Object / R.Any: the type of any value.
Value CallAny(Parser&, CallArgs&, RelaxCall&) { return Value::Obj(K::kType, AnyType::Make()); }

}  // namespace

void AddRelaxTypeCalls(RelaxCallTable* t) {
  t->emplace("Tensor", &CallTensor);
  t->emplace("Shape", &CallShape);
  t->emplace("Tuple", &CallTuple);
  t->emplace("Prim", &CallPrim);
  for (const char* n : {"Object", "Any"}) t->emplace(n, &CallAny);
  t->emplace("Callable", &CallCallable);
}

}  // namespace kiln::script::parser
