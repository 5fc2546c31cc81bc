// TVMScript parser, Relax function-level statements spelled as calls (R.func_attr, R.output,
// R.dataflow) and leaf values: R.const, R.prim_value, R.shape, R.str, R.dtype, R.ExternFunc,
// R.tuple, R.TupleGetItem, R.match_cast and R.device.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/parser/handlers.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

namespace {

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

// R.func_attr({...}): attributes of the enclosing R.function.
Value CallFuncAttr(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  builder::FunctionData* fd = p.relax_.func();
  if (!fd || a.args.size() != 1) p.Fail(span, "R.func_attr({...}) belongs in an R.function");
  for (const auto& [k, v] : p.ToAttrMap(a.args[0], span).items()) {
    if (fd->is_private && k.str() == "global_symbol") {
      p.Fail(span, "a private R.function has no global_symbol: drop private=True or the attribute");
    }
    if (fd->attrs.count(k)) p.Fail(span, absl::StrCat("R.func_attr sets \"", k.str(), "\" twice in one function"));
    fd->attrs.Set(k, v);
  }
  return Value::None();
}

// R.output(*vars): the dataflow block's outputs (collected before the block is parsed).
Value CallOutput(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (!p.relax_.in_dataflow()) p.Fail(span, "R.output must be used inside `with R.dataflow():`");
  if (p.relax_.dataflow_ended()) p.Fail(span, "a dataflow block may have only one R.output");
  for (const Value& v : a.args) {
    if (v.kind != K::kRelax || !v.obj.as<VarNode>()) p.Fail(SpanOr(v, span), "R.output takes variables of the block");
    // As TVM's dataflow frame: an output must be bound in this block (not a parameter or a
    // variable of an earlier block).
    if (!p.relax_.BoundInDataflow(Downcast<Var>(v.obj))) {
      p.Fail(span, absl::StrCat("R.output: '", Downcast<Var>(v.obj)->name, "' is not emitted by this dataflow block"));
    }
  }
  p.relax_.EndDataflowOutputs();
  return Value::None();
}

// R.const(value, dtype): a tensor constant from a number or nested lists of numbers.
Value CallConst(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.empty()) p.Fail(span, "R.const(value, dtype) needs a value");
  const Value* dtype_v = Arg(a, 1, "dtype");
  std::vector<int64_t> shape;
  std::vector<const Value*> flat;
  bool any_float = false;
  std::function<void(const Value&, size_t)> walk = [&](const Value& v, size_t depth) {
    if (v.is_seq()) {
      if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(v.items.size()));
      else if (shape[depth] != static_cast<int64_t>(v.items.size())) p.Fail(span, "R.const: ragged nested lists");
      for (const Value& x : v.items) walk(x, depth + 1);
      return;
    }
    if (!v.is_number()) p.Fail(SpanOr(v, span), "R.const takes numbers or nested lists of numbers");
    any_float |= v.kind == K::kFloat;
    flat.push_back(&v);
  };
  walk(a.args[0], 0);
  DataType dt = dtype_v && dtype_v->kind != K::kNone ? p.ToDType(*dtype_v, span)
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
      p.Fail(span, absl::StrCat("R.const: unsupported dtype ", dt.ToString()));
    }
  }
  Array<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(IntImm(DataType::Int(64), d));
  rx::Constant constant(dt, shape, data, span);
  constant.CopyOnWrite()->ty = TensorType(dims, dt);
  return Value::Obj(K::kRelax, constant);
}

// R.prim_value(value): a PrimValue.
Value CallPrimValue(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1) p.Fail(span, "R.prim_value takes one value");
  // A typed value (R.prim_value(T.bool(True)), T.int32(3)) keeps its dtype; plain ints are int64.
  PrimExpr prim = a.args[0].kind == K::kInt ? PrimExpr(IntImm(DataType::Int(64), a.args[0].i))
             : a.args[0].kind == K::kFloat ? PrimExpr(FloatImm(DataType::Float(64), a.args[0].f))
             : a.args[0].kind == K::kBool ? PrimExpr(IntImm(DataType::Bool(), a.args[0].b ? 1 : 0))
             : a.args[0].kind == K::kPrim ? p.ToPrim(a.args[0], SpanOr(a.args[0], span))
             : p.SymbolicDim(a.args[0], SpanOr(a.args[0], span), DataType::Int(64));
  rx::PrimValue pv(prim, span);
  pv.CopyOnWrite()->ty = PrimType(prim.dtype(), prim);
  return Value::Obj(K::kRelax, pv);
}

// R.shape(dims), and R.ShapeExpr, relax.ShapeExpr: the same node.
Value CallShapeExpr(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1) p.Fail(span, "R.shape takes a list of dims");
  Array<PrimExpr> dims;
  for (const Value& d : p.ToSeq(a.args[0], span)) dims.push_back(p.SymbolicDim(d, SpanOr(d, span), DataType::Int(64)));
  rx::ShapeExpr s(dims, span);
  s.CopyOnWrite()->ty = ShapeType(dims);
  return Value::Obj(K::kRelax, s);
}

// R.TupleGetItem(t, i), the spelled-out form of t[i].
Value CallTupleGetItem(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 2) p.Fail(span, "R.TupleGetItem takes a tuple and an index");
  Expr t = p.ToRelax(a.args[0], SpanOr(a.args[0], span));
  const auto* tt = t->ty.as<TupleTypeNode>();
  int64_t i = p.ToInt(a.args[1], SpanOr(a.args[1], span));
  if (tt && (i < 0 || i >= static_cast<int64_t>(tt->fields.size()))) {
    p.Fail(SpanOr(a.args[1], span), absl::StrCat("tuple index ", i, " is out of range for ", tt->fields.size(), " fields"));
  }
  rx::TupleGetItem item(t, static_cast<int>(i), span);
  item.CopyOnWrite()->ty = kiln::relax::ExprType(item);
  return Value::Obj(K::kRelax, item);
}

// R.str("text"): a StringImm.
Value CallStr(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1) p.Fail(span, "R.str takes one string");
  return Value::Obj(K::kRelax, rx::StringImm(p.ToStr(a.args[0], span), span));
}

// R.dtype("float32"): a DataTypeImm.
Value CallDType(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 1) p.Fail(span, "R.dtype takes one dtype string");
  return Value::Obj(K::kRelax, rx::DataTypeImm(p.ToDType(a.args[0], span), span));
}

// R.ExternFunc(symbol[, type]), also spelled R.extern.
Value CallExternFunc(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.empty() || a.args.size() > 2) p.Fail(span, "R.ExternFunc(symbol[, type]) takes the function's symbol");
  rx::ExternFunc f(p.ToStr(a.args[0], span), span);
  f.CopyOnWrite()->ty = a.args.size() == 2 ? p.ToRelaxType(a.args[1], SpanOr(a.args[1], span)) : Type(PackedFuncType::Make());
  return Value::Obj(K::kRelax, f);
}

// R.match_cast(value, type): the value, marked for a MatchCast binding.
Value CallMatchCast(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (a.args.size() != 2) p.Fail(span, "R.match_cast(value, type) takes two arguments");
  if (a.args[0].kind == K::kNone) p.Fail(span, "the value of R.match_cast cannot be None");
  Expr value = p.ToRelax(a.args[0], SpanOr(a.args[0], span));
  if (a.args[1].kind != K::kType && a.args[1].kind != K::kName) p.Fail(span, "R.match_cast's second argument must be a type such as R.Tensor((n,), \"float32\")");
  Type ty = p.ToRelaxType(a.args[1], SpanOr(a.args[1], span));
  Type vt = kiln::relax::ExprType(value);
  std::string why;
  if (vt.defined() && !kiln::relax::TypesCompatible(ty, vt, &why)) {
    p.Fail(span, absl::StrCat("R.match_cast can never succeed: ", why));
  }
  Value v = Value::Obj(K::kRelax, value);
  v.s = "match_cast";
  v.items.push_back(Value::Obj(K::kType, ty));
  return v;
}

// R.tuple(*fields) builds a Tuple; TVM prints the empty tuple this way.
Value CallTupleExpr(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  if (!a.kwargs.empty()) p.Fail(span, "R.tuple takes only positional fields");
  Array<Expr> fields;
  for (const Value& v : a.args) fields.push_back(p.ToRelax(v, SpanOr(v, span)));
  rx::Tuple t(fields, span);
  t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
  return Value::Obj(K::kRelax, t);
}

// R.device(device_type, index=0): a runtime device, only meaningful as R.hint_on_device's
// argument; kept as a dict of the two ints that op stores as attributes.
Value CallDevice(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* type = Arg(a, 0, "device_type");
  if (!type) type = Kwarg(a, "dev_type");
  const Value* index = Arg(a, 1, "index");
  if (!type) p.Fail(span, "R.device(device_type, index=0) needs a device type");
  int64_t code = 0;
  if (type->kind == K::kStr) {
    static const std::pair<const char*, int64_t> kCodes[] = {
        {"cpu", 1}, {"llvm", 1}, {"cuda", 2}, {"gpu", 2}, {"nvptx", 2}, {"opencl", 4}, {"vulkan", 7},
        {"metal", 8}, {"rocm", 10}, {"ext_dev", 12}, {"webgpu", 15}, {"hexagon", 16}};
    for (const auto& [n, kind] : kCodes) if (type->s == n) code = kind;
    if (code == 0) p.Fail(SpanOr(*type, span), "unknown device type '" + type->s + "'");
  } else {
    code = p.ToInt(*type, SpanOr(*type, span));
  }
  Value dict = Value::Of(K::kDict);
  dict.keys = {Value::Str("device_type"), Value::Str("index")};
  dict.items = {Value::Int(code), Value::Int(index ? p.ToInt(*index, SpanOr(*index, span)) : 0)};
  dict.span = span;
  return dict;
}

// R.dataflow() is a with context, not a call.
Value CallDataflow(Parser& p, CallArgs&, RelaxCall& c) { p.Fail(c.span, "R.dataflow() is used as `with R.dataflow():`"); }

}  // namespace

void AddRelaxValueCalls(RelaxCallTable* t) {
  t->emplace("func_attr", &CallFuncAttr);
  t->emplace("output", &CallOutput);
  t->emplace("dataflow", &CallDataflow);
  t->emplace("const", &CallConst);
  t->emplace("prim_value", &CallPrimValue);
  for (const char* n : {"shape", "ShapeExpr"}) t->emplace(n, &CallShapeExpr);
  t->emplace("TupleGetItem", &CallTupleGetItem);
  t->emplace("str", &CallStr);
  t->emplace("dtype", &CallDType);
  for (const char* n : {"ExternFunc", "extern"}) t->emplace(n, &CallExternFunc);
  t->emplace("match_cast", &CallMatchCast);
  t->emplace("tuple", &CallTupleExpr);
  t->emplace("device", &CallDevice);
}

}  // namespace kiln::script::parser
