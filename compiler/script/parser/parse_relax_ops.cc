// TVMScript parser, Relax operators: every `R.<name>` that no other family handles is an operator
// of the Relax op registry (compiler/relax/op), whose schema orders its arguments, converts keyword
// arguments to attributes and infers the result type. A few operators first rewrite their
// arguments the way TVM's Python wrappers do (R.hint_on_device, R.print, R.assert_op,
// R.nn.attention_var_len).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/parser/handlers.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

namespace {

// R.hint_on_device(data, R.device(...), memory_scope="global"): spread the device into the
// op's device_type/index attributes.
Value CallHintOnDevice(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  CallArgs b = c.Rebuilt();
  const Value* dev = Arg(a, 1, "dst_vdevice");
  const Value* scope = Arg(a, 2, "memory_scope");
  if (a.args.empty() || !dev || dev->kind != K::kDict || a.args.size() > 3) {
    p.Fail(span, "R.hint_on_device(data, R.device(device_type, index), memory_scope) takes a tensor and a device");
  }
  b.args.push_back(a.args[0]);
  for (size_t i = 0; i < dev->keys.size(); ++i) b.kwargs.emplace_back(dev->keys[i].s, dev->items[i]);
  if (scope) b.kwargs.emplace_back("memory_scope", *scope);
  for (const auto& [k, v] : a.kwargs) {
    if (k != "dst_vdevice" && k != "memory_scope") p.Fail(SpanOr(v, span), "R.hint_on_device got an unexpected keyword '" + k + "'");
  }
  a = std::move(b);
  return CallRelaxOp(p, a, c);
}

// TVM's wrappers R.print(*values, format="") and R.assert_op(condition, format_args=None,
// format="") store the format string before the values: [format, *values] and
// [condition, format, *format_args]. A str format is a relax StringImm; assert_op's
// format_args is one value or a list of them.
Value CallPrintAssert(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  bool is_assert = name == "assert_op";
  CallArgs b = c.Rebuilt();
  const Value* format = nullptr;
  std::vector<Value> values;
  if (is_assert) {
    const Value* cond = Arg(a, 0, "condition");
    if (!cond) p.Fail(span, "R.assert_op(condition, format_args=None, format=\"\") needs a condition");
    b.args.push_back(*cond);
    const Value* fa = Arg(a, 1, "format_args");
    format = Arg(a, 2, "format");
    if (a.args.size() > 2 && Kwarg(a, "format")) p.Fail(span, "R.assert_op: format is given twice");
    if (a.args.size() > 3) p.Fail(span, "R.assert_op takes at most 3 positional arguments");
    if (fa && fa->kind == K::kList) values = fa->items;
    else if (fa && fa->kind != K::kNone) values.push_back(*fa);
  } else {
    values = a.args;
    format = Kwarg(a, "format");
  }
  for (const auto& [k, v] : a.kwargs) {
    bool known = k == "format" || (is_assert && (k == "condition" || k == "format_args"));
    if (!known) p.Fail(SpanOr(v, span), absl::StrCat("R.", name, " got an unexpected keyword '", k, "'"));
  }
  b.args.push_back(format && format->kind != K::kNone ? *format : Value::Str(""));
  if (b.args.back().kind == K::kStr) {
    b.args.back() = Value::Obj(K::kRelax, rx::StringImm(b.args.back().s, SpanOr(b.args.back(), span)));
  }
  for (Value& v : values) b.args.push_back(std::move(v));
  a = std::move(b);
  return CallRelaxOp(p, a, c);
}

// R.nn.attention_var_len: TVM's wrapper takes (queries, keys, values, seqstart_q, max_seqlen_q,
// seqstart_k=None, max_seqlen_k=None, ...), the k ones defaulting to the q ones; the operator's
// arguments are ordered (..., seqstart_q, seqstart_k, max_seqlen_q, max_seqlen_k).
Value CallAttentionVarLen(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  static const char* kScript[] = {"queries", "keys", "values", "seqstart_q", "max_seqlen_q", "seqstart_k",
                                  "max_seqlen_k"};
  std::vector<const Value*> got(7, nullptr);
  for (size_t i = 0; i < 7; ++i) got[i] = Arg(a, i, kScript[i]);
  if (a.args.size() > 7) p.Fail(span, "R.nn.attention_var_len takes at most 7 positional arguments");
  for (size_t i = 0; i < 5; ++i) {
    if (!got[i]) p.Fail(span, absl::StrCat("R.nn.attention_var_len: missing argument '", kScript[i], "'"));
  }
  if (!got[5] || got[5]->kind == K::kNone) got[5] = got[3];
  if (!got[6] || got[6]->kind == K::kNone) got[6] = got[4];
  CallArgs b = c.Rebuilt();
  for (size_t i : {0, 1, 2, 3, 5, 4, 6}) b.args.push_back(*got[i]);
  for (auto& [k, v] : a.kwargs) {
    if (std::find(std::begin(kScript), std::end(kScript), k) == std::end(kScript)) b.kwargs.emplace_back(k, v);
  }
  a = std::move(b);
  return CallRelaxOp(p, a, c);
}

// The operator's arguments given by keyword, in any order, join the positional ones; an omitted
// optional one before a given one takes its default.
void BindKeywordArgs(const RelaxCall& c, const kiln::relax::OpSchema& schema) {
  CallArgs& a = c.a;
  for (size_t i = a.args.size(); i < schema.args.size(); ++i) {
    auto it = std::find_if(a.kwargs.begin(), a.kwargs.end(), [&](const auto& kv) { return kv.first == schema.args[i]; });
    if (it == a.kwargs.end()) {
      const std::pair<std::string, Value>* later = nullptr;
      for (const auto& kv : a.kwargs) {
        if (std::find(schema.args.begin() + i, schema.args.end(), kv.first) != schema.args.end()) later = &kv;
      }
      if (!later) break;
      // A later argument is given: an omitted optional one in between takes its default.
      size_t d = schema.min_args >= 0 && i >= static_cast<size_t>(schema.min_args) ? i - schema.min_args : SIZE_MAX;
      if (d < schema.arg_defaults.size() && schema.arg_defaults[d].defined()) {
        a.args.push_back(Value::Obj(K::kRelax, schema.arg_defaults[d]));
        continue;
      }
      c.p.Fail(SpanOr(later->second, c.span),
               absl::StrCat("R.", c.name, ": argument '", later->first, "' is given but '", schema.args[i], "' is missing"));
    }
    a.args.push_back(it->second);
    a.kwargs.erase(it);
  }
}

// A shape given as a Python sequence of dims (ints, "n" names, expressions).
rx::ShapeExpr ShapeOf(const RelaxCall& c, const std::vector<Value>& items, const Span& span) {
  Array<PrimExpr> dims;
  for (const Value& d : items) dims.push_back(c.p.SymbolicDim(d, SpanOr(d, c.span), DataType::Int(64)));
  rx::ShapeExpr shape(dims, span);
  shape.CopyOnWrite()->ty = ShapeType(dims);
  return shape;
}

// Positional argument i of an operator call, converted the way TVM's wrapper converts it.
Expr OpArg(const RelaxCall& c, const kiln::relax::OpSchema& schema, size_t i, bool tir_like, bool packed) {
  Parser& p = c.p;
  const std::string& name = c.name;
  const Value& v = c.a.args[i];
  Span span = SpanOr(v, c.span);
  const std::string* param = i < schema.args.size() ? &schema.args[i] : nullptr;
  if (i == 0 && packed && v.kind == K::kStr) {
    rx::ExternFunc f(v.s, span);
    f.CopyOnWrite()->ty = PackedFuncType::Make();
    return f;
  }
  if (tir_like && i == 1 && v.is_seq()) {
    Array<Expr> fields;
    for (const Value& x : v.items) {
      // A string is a string constant (R.call_dps_packed("f", (x, "identity", ...)), as MLC-LLM
      // passes kernel options), as TVM converts it.
      if (x.kind == K::kPrim) {
        // A typed value (T.bool(True), T.int32(4)) keeps its dtype.
        PrimExpr prim = p.ToPrim(x, SpanOr(x, c.span));
        rx::PrimValue pv(prim, SpanOr(x, c.span));
        pv.CopyOnWrite()->ty = PrimType(prim.dtype(), prim);
        fields.push_back(pv);
      } else {
        fields.push_back(p.ToRelax(x, SpanOr(x, c.span)));
      }
    }
    rx::Tuple t(fields, span);
    t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
    return t;
  }
  // R.image.*'s size: an int or a PrimExpr means that size in every spatial dim, a Python
  // tuple is a shape (a 1-tuple repeated, for resize), as TVM's wrappers convert it.
  if (absl::StartsWith(name, "image.") && param && *param == "size" &&
      (v.is_seq() || v.kind == K::kInt || v.kind == K::kPrim)) {
    size_t spatial = name == "image.resize3d" ? 3 : 2;
    std::vector<Value> items = v.is_seq() ? v.items : std::vector<Value>(spatial, v);
    if (items.size() == 1 && absl::StartsWith(name, "image.resize")) items.assign(spatial, items[0]);
    return ShapeOf(c, items, span);
  }
  // A Python tuple where the operator takes a shape: R.zeros((m, n), "float32").
  if (v.is_seq() && param && *param == "shape") return ShapeOf(c, v.items, span);
  // R.call_tir(f, x, ...) with one tensor: TVM wraps it into a one-element tuple.
  if (tir_like && i == 1 && v.kind == K::kRelax) {
    Expr x = p.ToRelax(v, span);
    if (x->ty.defined() && !x->ty.as<TupleTypeNode>()) {
      rx::Tuple t(Array<Expr>{x}, span);
      t.CopyOnWrite()->ty = kiln::relax::ExprType(t);
      return t;
    }
  }
  if (v.kind == K::kStr && param && *param == "dtype") return rx::DataTypeImm(p.ToDType(v, span), span);
  return p.ToRelax(v, span);
}

// out_ty= / ty_args= (and their older spellings): the call's type arguments.
void AddTypeArgs(const RelaxCall& c, const Value& v, bool tuple_list, Array<Type>* ty_args) {
  Parser& p = c.p;
  const Span& span = c.span;
  if (!tuple_list && v.kind == K::kTuple) {  // ty_args=(R.Tuple(...),): one type per element
    for (const Value& x : v.items) ty_args->push_back(p.ToRelaxType(x, SpanOr(x, span)));
  } else if (tuple_list && v.kind == K::kList && v.items.size() == 1) {
    // out_ty=[T]: TVM's call_tir wrappers make a one-element list the single output type.
    ty_args->push_back(p.ToRelaxType(v.items[0], SpanOr(v.items[0], span)));
  } else if (tuple_list && v.kind == K::kList) {
    Array<Type> fields;
    for (const Value& x : v.items) fields.push_back(p.ToRelaxType(x, SpanOr(x, span)));
    ty_args->push_back(TupleType(fields));
  } else if (v.kind == K::kList) {
    for (const Value& x : v.items) ty_args->push_back(p.ToRelaxType(x, SpanOr(x, span)));
  } else {
    ty_args->push_back(p.ToRelaxType(v, SpanOr(v, span)));
  }
}

// A VDevice object (I.vdevice(...), tvm.ir.VDevice(...)) given for a string attribute, as
// to_vdevice's dst_vdevice: the attribute holds its "target:id:scope" spelling.
void SpellVDeviceAttrs(const RelaxCall& c, const kiln::relax::OpSchema& schema,
                       std::vector<std::pair<std::string, ObjectRef>>* attrs) {
  for (auto& [k, v] : *attrs) {
    const auto* info = v.as<GlobalInfoNode>();
    if (!info || info->kind != "vdevice") continue;
    for (const kiln::relax::AttrSpec& spec : schema.attrs) {
      if (spec.name != k || spec.kind != kiln::relax::AttrSpec::Kind::kString) continue;
      const auto* target = info->attrs.Get(String("target")).as<StringNode>();
      const auto* id = info->attrs.Get(String("vdevice_id")).as<IntImmNode>();
      const auto* scope = info->attrs.Get(String("memory_scope")).as<StringNode>();
      if (!target) c.p.Fail(c.span, "a VDevice needs a target");
      v = String(absl::StrCat(target->value, ":", id ? id->value : 0, ":", scope ? scope->value : "global"));
    }
  }
}

// R.emit_with_ty(op, args, ty_args=None) (and R.emit_with_type): TVM's builder call that makes
// Call(Op.get(op), args, ty_args) from an operator's IR name. It is the operator's own call, so it
// is parsed (and printed back) as R.<op>(*args, ty_args=...).
Value CallEmitWithTy(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* op = Arg(a, 0, "op");
  const Value* args = Arg(a, 1, "args");
  const Value* ty_args = Arg(a, 2, "ty_args");
  if (!op || op->kind != K::kStr || !args || a.args.size() + a.kwargs.size() > 3) {
    p.Fail(span, absl::StrCat("R.", c.name, "(op, args, ty_args=None) takes an operator name, its arguments and types"));
  }
  for (const auto& [k, v] : a.kwargs) {
    if (k != "op" && k != "args" && k != "ty_args") p.Fail(SpanOr(v, span), absl::StrCat("R.", c.name, " got an unexpected keyword '", k, "'"));
  }
  const kiln::relax::OpSchema* schema = kiln::relax::OpRegistry::Global().FindByName(op->s);
  if (!schema) p.Fail(SpanOr(*op, span), absl::StrCat("R.", c.name, ": unknown operator \"", op->s, "\""));
  CallArgs b = c.Rebuilt();
  if (args->kind == K::kTuple || args->kind == K::kList) {
    b.args = args->items;
  } else {
    b.args.push_back(*args);
  }
  if (ty_args && ty_args->kind != K::kNone) b.kwargs.emplace_back("ty_args", *ty_args);
  a = std::move(b);
  c.name = schema->script_name;
  return CallRelaxOp(p, a, c);
}

}  // namespace

Value CallRelaxOp(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  const kiln::relax::OpSchema* schema = kiln::relax::OpRegistry::Global().FindByScriptName(name);
  if (!schema) p.Fail(a.func_span, absl::StrCat("R.", name, " is not a Relax operator"));
  bool tir_like = name == "call_tir" || name == "call_tir_inplace" || name == "call_tir_with_grad" || name == "call_dps_packed" ||
                  name == "dist.call_tir_local_view" || name == "call_py_func";
  bool packed = name == "call_packed" || name == "call_pure_packed" || name == "call_dps_packed" || name == "call_builtin_with_ctx";
  Array<Expr> args;
  std::vector<std::pair<std::string, ObjectRef>> attrs;
  Array<Type> ty_args;
  if (!schema->variadic) BindKeywordArgs(c, *schema);
  size_t n_pos = schema->variadic ? a.args.size() : std::min(a.args.size(), schema->args.size());
  for (size_t i = 0; i < n_pos; ++i) args.push_back(OpArg(c, *schema, i, tir_like, packed));
  // R.call_tir(f, args, out_ty) and R.call_dps_packed(f, args, out_ty): the output type may be
  // the third positional argument, as in TVM's Python signature.
  size_t first_attr = n_pos;
  if (name == "call_tir_inplace" && a.args.size() > n_pos) {
    // R.call_tir_inplace(f, args, inplace_indices, out_ty): the indices come before the type.
    attrs.emplace_back("inplace_indices", p.ToAttrValue(a.args[n_pos], SpanOr(a.args[n_pos], span)));
    if (a.args.size() > n_pos + 1) AddTypeArgs(c, a.args[n_pos + 1], true, &ty_args);
    if (a.args.size() > n_pos + 2) p.Fail(span, "R.call_tir_inplace takes at most 4 positional arguments");
    first_attr = a.args.size();
  } else if (tir_like && !schema->variadic && a.args.size() > n_pos) {
    AddTypeArgs(c, a.args[n_pos], true, &ty_args);
    ++first_attr;
  }
  for (size_t i = first_attr; i < a.args.size(); ++i) {
    size_t ai = i - first_attr;
    if (ai >= schema->attrs.size()) p.Fail(span, absl::StrCat("R.", name, " takes at most ", first_attr + schema->attrs.size(), " positional arguments"));
    attrs.emplace_back(schema->attrs[ai].name, p.ToAttrValue(a.args[i], span));
  }
  for (const auto& [k, v] : a.kwargs) {
    bool is_arg = false;
    for (size_t i = 0; i < schema->args.size(); ++i) {
      if (schema->args[i] != k) continue;
      is_arg = true;
      if (!schema->variadic) p.Fail(SpanOr(v, span), absl::StrCat("R.", name, ": argument '", k, "' is given twice"));
      args.push_back(p.ToRelax(v, SpanOr(v, span)));
    }
    if (is_arg) continue;
    if (k == "out_ty" || k == "ty_args") {
      AddTypeArgs(c, v, k == "out_ty", &ty_args);
    } else if (k == "out_sinfo" || k == "sinfo_args") {
      p.Warn(span, absl::StrCat(k, "= is spelled ", k == "out_sinfo" ? "out_ty" : "ty_args", "= in TVM v0.26"));
      AddTypeArgs(c, v, k == "out_sinfo", &ty_args);
    } else if (k == "tir_vars") {
      p.Fail(span, "tir_vars= was removed in TVM v0.26: pass symbolic values inside the argument tuple, e.g. R.call_tir(cls.f, (x, n), out_ty=...)");
    } else if (v.kind == K::kLambda) {  // index_map=lambda i: (i // 4, i % 4), as TVM's wrapper allows
      attrs.emplace_back(k, p.LambdaToIndexMap(v, DataType::Int(64), SpanOr(v, span)));
    } else {
      attrs.emplace_back(k, p.ToAttrValue(v, SpanOr(v, span)));
    }
  }
  // TVM normalizes R.call_tir_inplace by reading its argument tuple's fields, so the tuple must
  // be written in line, not a variable bound to one.
  if (name == "call_tir_inplace" && args.size() > 1 && !args[1].as<rx::TupleNode>()) {
    p.Fail(SpanOr(a.args.size() > 1 ? a.args[1] : a.args.back(), span),
           "R.call_tir_inplace holds its arguments as an in-line tuple, not a variable bound to one");
  }
  SpellVDeviceAttrs(c, *schema, &attrs);
  absl::StatusOr<rx::Call> call = kiln::relax::MakeOpCall(schema->script_name, args, attrs, ty_args, p.module_, span,
                                                          /*infer=*/!c.defer);
  if (!call.ok()) p.Fail(span, std::string(call.status().message()));
  return Value::Obj(K::kRelax, *call);
}

void AddRelaxOpCalls(RelaxCallTable* t) {
  t->emplace("hint_on_device", &CallHintOnDevice);
  for (const char* n : {"print", "assert_op"}) t->emplace(n, &CallPrintAssert);
  t->emplace("nn.attention_var_len", &CallAttentionVarLen);
  for (const char* n : {"emit_with_ty", "emit_with_type"}) t->emplace(n, &CallEmitWithTy);
}

}  // namespace kiln::script::parser
