// The Relax op registry (built once from the family files), attribute/argument normalization for
// the parser, and type inference entry points for calls and other Relax expressions.
#include "compiler/relax/op/op.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"
#include "compiler/tir/functor.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

// ---- schema builders ----

OpSchema& AddOp(std::vector<OpSchema>* ops, const std::string& script_name, std::vector<std::string> args,
                std::vector<AttrSpec> attrs, InferFn infer) {
  OpSchema s;
  s.name = "relax." + script_name;
  s.script_name = script_name;
  s.args = std::move(args);
  s.attrs = std::move(attrs);
  s.infer = std::move(infer);
  ops->push_back(std::move(s));
  return ops->back();
}

namespace {
Array<IntImm> IntArray(const std::vector<int64_t>& v) {
  Array<IntImm> a;
  for (int64_t x : v) a.push_back(IntImm(DataType::Int(64), x));
  return a;
}
}  // namespace

AttrSpec IntAttrSpec(const std::string& name, int64_t dflt) {
  return {name, AttrSpec::Kind::kInt, IntImm(DataType::Int(64), dflt)};
}
AttrSpec RequiredIntAttrSpec(const std::string& name) { return {name, AttrSpec::Kind::kInt, ObjectRef()}; }
AttrSpec OptionalIntAttrSpec(const std::string& name) {
  return {name, AttrSpec::Kind::kOptionalInt, ObjectRef()};
}
AttrSpec IntArrayAttrSpec(const std::string& name, const std::vector<int64_t>& dflt) {
  return {name, AttrSpec::Kind::kIntArray, IntArray(dflt)};
}
AttrSpec RequiredIntArrayAttrSpec(const std::string& name) {
  return {name, AttrSpec::Kind::kIntArray, ObjectRef()};
}
AttrSpec OptionalIntArrayAttrSpec(const std::string& name) {
  return {name, AttrSpec::Kind::kOptionalIntArray, ObjectRef()};
}
AttrSpec FloatAttrSpec(const std::string& name, double dflt) {
  return {name, AttrSpec::Kind::kFloat, FloatImm(DataType::Float(64), dflt)};
}
AttrSpec OptionalFloatAttrSpec(const std::string& name) {
  return {name, AttrSpec::Kind::kOptionalFloat, ObjectRef()};
}
AttrSpec FloatArrayAttrSpec(const std::string& name, const std::vector<double>& dflt) {
  Array<FloatImm> a;
  for (double x : dflt) a.push_back(FloatImm(DataType::Float(64), x));
  return {name, AttrSpec::Kind::kFloatArray, a};
}
AttrSpec BoolAttrSpec(const std::string& name, bool dflt) {
  return {name, AttrSpec::Kind::kBool, IntImm(DataType::Bool(), dflt ? 1 : 0)};
}
AttrSpec StringAttrSpec(const std::string& name, const std::string& dflt) {
  return {name, AttrSpec::Kind::kString, String(dflt)};
}
AttrSpec OptionalStringAttrSpec(const std::string& name) {
  return {name, AttrSpec::Kind::kOptionalString, ObjectRef()};
}
AttrSpec DTypeAttrSpec(const std::string& name, DataType dflt) {
  return {name, AttrSpec::Kind::kDType, ir::relax::DataTypeImm(dflt)};
}
AttrSpec RequiredDTypeAttrSpec(const std::string& name) { return {name, AttrSpec::Kind::kDType, ObjectRef()}; }
AttrSpec AnyAttrSpec(const std::string& name) { return {name, AttrSpec::Kind::kAny, ObjectRef()}; }

// ---- registry ----

OpRegistry::OpRegistry() {
  RegisterBinaryOps(&ops_);
  RegisterUnaryOps(&ops_);
  RegisterReduceOps(&ops_);
  RegisterLinalgOps(&ops_);
  RegisterManipulateOps(&ops_);
  RegisterIndexOps(&ops_);
  RegisterCreateOps(&ops_);
  RegisterNNOps(&ops_);
  RegisterBuiltinOps(&ops_);
  RegisterCallOps(&ops_);
  RegisterGradOps(&ops_);
  RegisterDistributedOps(&ops_);
  RegisterVisionOps(&ops_);
  AddDistributedInference(&ops_);
  // Script functions share the family files with the operators they build; keep them apart.
  std::vector<OpSchema> all = std::move(ops_);
  ops_.clear();
  for (OpSchema& s : all) (s.expand ? script_functions_ : ops_).push_back(std::move(s));
  for (size_t i = 0; i < ops_.size(); ++i) {
    by_name_.emplace(ops_[i].name, i);
    by_script_name_.emplace(ops_[i].script_name, i);
  }
  for (size_t i = 0; i < script_functions_.size(); ++i) {
    script_function_by_name_.emplace(script_functions_[i].script_name, i);
  }
}

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = new OpRegistry();
  return *registry;
}

const OpSchema* OpRegistry::FindByName(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &ops_[it->second];
}

const OpSchema* OpRegistry::FindByScriptName(const std::string& script) const {
  auto f = script_function_by_name_.find(script);
  if (f != script_function_by_name_.end()) return &script_functions_[f->second];
  auto it = by_script_name_.find(script);
  return it == by_script_name_.end() ? nullptr : &ops_[it->second];
}

// ---- attribute normalization ----

namespace {

bool IsOptionalKind(AttrSpec::Kind k) {
  switch (k) {
    case AttrSpec::Kind::kOptionalInt:
    case AttrSpec::Kind::kOptionalIntArray:
    case AttrSpec::Kind::kOptionalFloat:
    case AttrSpec::Kind::kOptionalString:
    case AttrSpec::Kind::kAny:
      return true;
    default:
      return false;
  }
}

std::optional<int64_t> ToInt(const ObjectRef& v) {
  if (const auto* i = v.as<IntImmNode>()) return i->value;
  if (const auto* p = v.as<ir::relax::PrimValueNode>()) return AsConst(p->value);
  return std::nullopt;
}

std::optional<double> ToFloat(const ObjectRef& v) {
  if (const auto* f = v.as<FloatImmNode>()) return f->value;
  if (const auto* p = v.as<ir::relax::PrimValueNode>()) {
    if (const auto* f = p->value.as<FloatImmNode>()) return f->value;
  }
  if (auto i = ToInt(v)) return static_cast<double>(*i);
  return std::nullopt;
}

std::optional<std::string> ToStr(const ObjectRef& v) {
  if (const auto* s = v.as<StringNode>()) return s->value;
  if (const auto* s = v.as<StringImmNode>()) return s->value;
  if (const auto* s = v.as<ir::relax::StringImmNode>()) return s->value;
  return std::nullopt;
}

// The elements of a list-like value: Array, ShapeExpr values, or a relax Tuple's fields.
std::optional<std::vector<ObjectRef>> ToList(const ObjectRef& v) {
  std::vector<ObjectRef> out;
  if (const auto* a = v.as<ArrayNode>()) {
    out = a->data;
  } else if (const auto* s = v.as<ir::relax::ShapeExprNode>()) {
    for (const PrimExpr& e : s->values) out.push_back(e);
  } else if (const auto* t = v.as<ir::relax::TupleNode>()) {
    for (const Expr& e : t->fields) out.push_back(e);
  } else {
    return std::nullopt;
  }
  return out;
}

absl::StatusOr<ObjectRef> ConvertAttrValue(const OpSchema& schema, const AttrSpec& spec, const ObjectRef& v) {
  auto bad = [&](const char* what) {
    return OpError(schema.script_name, absl::StrCat("attribute '", spec.name, "' expects ", what));
  };
  using K = AttrSpec::Kind;
  if (!v.defined()) {
    if (IsOptionalKind(spec.kind)) return ObjectRef();
    if (spec.none_is_default) return spec.default_value;
    if (spec.kind == K::kDType) return ObjectRef(ir::relax::DataTypeImm(DataType::Void()));
    return OpError(schema.script_name, absl::StrCat("attribute '", spec.name, "' cannot be None"));
  }
  switch (spec.kind) {
    case K::kInt:
    case K::kOptionalInt: {
      auto i = ToInt(v);
      if (!i) return bad("an integer");
      return ObjectRef(IntImm(DataType::Int(64), *i));
    }
    case K::kIntArray:
    case K::kOptionalIntArray:
    case K::kIntOrIntArray: {
      if (auto i = ToInt(v)) {
        if (spec.kind == K::kIntOrIntArray) return ObjectRef(IntImm(DataType::Int(64), *i));
        return ObjectRef(IntArray({*i}));
      }
      auto list = ToList(v);
      if (!list) return bad("a list of integers");
      std::vector<int64_t> ints;
      for (const ObjectRef& x : *list) {
        auto i = ToInt(x);
        if (!i) return bad("a list of integers");
        ints.push_back(*i);
      }
      return ObjectRef(IntArray(ints));
    }
    case K::kFloat:
    case K::kOptionalFloat: {
      auto f = ToFloat(v);
      if (!f) return bad("a number");
      return ObjectRef(FloatImm(DataType::Float(64), *f));
    }
    case K::kFloatArray: {
      auto list = ToList(v);
      if (!list) return bad("a list of numbers");
      Array<FloatImm> out;
      for (const ObjectRef& x : *list) {
        auto f = ToFloat(x);
        if (!f) return bad("a list of numbers");
        out.push_back(FloatImm(DataType::Float(64), *f));
      }
      return ObjectRef(out);
    }
    case K::kBool: {
      auto i = ToInt(v);
      if (!i) return bad("a bool");
      return ObjectRef(IntImm(DataType::Bool(), *i != 0 ? 1 : 0));
    }
    case K::kString:
    case K::kOptionalString: {
      auto s = ToStr(v);
      if (!s) return bad("a string");
      return ObjectRef(String(*s));
    }
    case K::kDType: {
      if (v.as<ir::relax::DataTypeImmNode>()) return v;
      auto s = ToStr(v);
      if (!s) return bad("a dtype string");
      absl::StatusOr<DataType> dt = DataType::Parse(*s);
      if (!dt.ok()) return bad("a valid dtype string");
      return ObjectRef(ir::relax::DataTypeImm(*dt));
    }
    case K::kPrimExprArray: {
      auto list = ToList(v);
      if (!list) return bad("a list of integer expressions");
      Array<PrimExpr> out;
      for (const ObjectRef& x : *list) {
        if (const auto* p = x.as<ir::relax::PrimValueNode>()) {
          out.push_back(Simplify(p->value));
        } else if (x.as<PrimExprNode>()) {
          out.push_back(Simplify(PrimExpr(x.ptr())));
        } else {
          return bad("a list of integer expressions");
        }
      }
      return ObjectRef(out);
    }
    case K::kAny:
      return v;
  }
  return v;
}

}  // namespace

absl::StatusOr<Map<String, ObjectRef>> NormalizeAttrs(const OpSchema& schema,
                                                      const std::vector<std::pair<std::string, ObjectRef>>& given) {
  std::unordered_map<std::string, ObjectRef> by_name;
  for (const auto& [name, value] : given) {
    bool known = false;
    for (const AttrSpec& s : schema.attrs) known |= s.name == name;
    if (!known) {
      return OpError(schema.script_name, absl::StrCat("got an unexpected keyword argument '", name, "'"));
    }
    if (!by_name.emplace(name, value).second) {
      return OpError(schema.script_name, absl::StrCat("got multiple values for argument '", name, "'"));
    }
  }
  Map<String, ObjectRef> out;
  for (const AttrSpec& spec : schema.attrs) {
    auto it = by_name.find(spec.name);
    if (it == by_name.end()) {
      if (!spec.default_value.defined() && !IsOptionalKind(spec.kind)) {
        return OpError(schema.script_name, absl::StrCat("missing required argument '", spec.name, "'"));
      }
      out.Set(String(spec.name), spec.default_value);
      continue;
    }
    absl::StatusOr<ObjectRef> v = ConvertAttrValue(schema, spec, it->second);
    if (!v.ok()) return v.status();
    out.Set(String(spec.name), *v);
  }
  if (schema.finalize_attrs) schema.finalize_attrs(&out);
  return out;
}

absl::StatusOr<Array<Expr>> NormalizeArgs(const OpSchema& schema, const Array<Expr>& given) {
  size_t n = schema.args.size();
  size_t min = schema.min_args < 0 ? (schema.variadic ? n - 1 : n) : static_cast<size_t>(schema.min_args);
  if (given.size() < min || (!schema.variadic && given.size() > n)) {
    std::string expect = schema.variadic ? absl::StrCat("at least ", min)
                                         : (min == n ? absl::StrCat(n) : absl::StrCat(min, " to ", n));
    return OpError(schema.script_name, absl::StrCat("expects ", expect, " positional argument(s), got ",
                                                    given.size()));
  }
  Array<Expr> out;
  for (size_t i = 0; i < given.size(); ++i) {
    // A dtype written as a plain string (R.vm.alloc_tensor(..., dtype="float32")) is a DataTypeImm,
    // as TVM's Python wrappers make it.
    const auto* s = given[i].as<ir::relax::StringImmNode>();
    if (s != nullptr && i < n && schema.args[i] == "dtype") {
      absl::StatusOr<DataType> dt = DataType::Parse(s->value);
      if (!dt.ok()) return OpError(schema.script_name, "'" + s->value + "' is not a valid dtype");
      out.push_back(ir::relax::DataTypeImm(*dt, s->span));
    } else {
      out.push_back(given[i]);
    }
  }
  for (size_t i = given.size(); i < n && !schema.variadic; ++i) {
    size_t d = i - min;
    if (d >= schema.arg_defaults.size() || !schema.arg_defaults[d].defined()) break;
    out.push_back(schema.arg_defaults[d]);
  }
  if (schema.finalize_args) schema.finalize_args(&out);
  return out;
}

std::vector<std::pair<std::string, ObjectRef>> AttrsInPrintOrder(const OpSchema& schema,
                                                                 const Map<String, ObjectRef>& attrs) {
  std::vector<std::pair<std::string, ObjectRef>> out;
  for (const AttrSpec& spec : schema.attrs) {
    int64_t i = attrs.Find(String(spec.name));
    out.emplace_back(spec.name, i >= 0 ? attrs.value_at(i) : spec.default_value);
  }
  return out;
}

// ---- type inference ----

namespace {

// Binds the symbolic vars of a callee's parameter type to the matching parts of the argument type.
void BindParamVars(const Type& param, const Type& arg, std::unordered_map<const VarNode*, PrimExpr>* vmap) {
  auto bind_dims = [&](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& a) {
    if (p.size() != a.size()) return;
    for (size_t i = 0; i < p.size(); ++i) {
      if (const auto* v = p[i].as<VarNode>()) vmap->emplace(v, a[i]);
    }
  };
  const auto* pd = param.as<DTensorTypeNode>();
  const auto* ad = arg.as<DTensorTypeNode>();
  if (pd && ad) {
    BindParamVars(pd->tensor_ty, ad->tensor_ty, vmap);
  } else if (param.as<TensorTypeNode>() && arg.as<TensorTypeNode>()) {
    absl::StatusOr<TensorInfo> p = GetTensorInfo(param, "call", "");
    absl::StatusOr<TensorInfo> a = GetTensorInfo(arg, "call", "");
    if (p.ok() && a.ok() && p->shape_known && a->shape_known) bind_dims(p->shape, a->shape);
  } else if (const auto* ps = param.as<ShapeTypeNode>()) {
    const auto* as = arg.as<ShapeTypeNode>();
    if (as && ps->values_known && as->values_known) bind_dims(ps->values.ToVector(), as->values.ToVector());
  } else if (const auto* pp = param.as<PrimTypeNode>()) {
    const auto* ap = arg.as<PrimTypeNode>();
    if (ap && pp->value.defined() && ap->value.defined()) {
      if (const auto* v = pp->value.as<VarNode>()) vmap->emplace(v, ap->value);
    }
  } else if (const auto* pt = param.as<TupleTypeNode>()) {
    const auto* at = arg.as<TupleTypeNode>();
    if (at && at->fields.size() == pt->fields.size()) {
      for (size_t i = 0; i < pt->fields.size(); ++i) BindParamVars(pt->fields[i], at->fields[i], vmap);
    }
  }
}

absl::StatusOr<Type> ApplyFuncType(const FuncTypeNode* ft, const ir::relax::Call& call, const std::string& callee) {
  if (!ft->params_known) return ft->ret.defined() ? ft->ret : Type(AnyType::Make());
  if (ft->params.size() != call->args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("R.call: ", callee, " expects ", ft->params.size(),
                                                   " argument(s), got ", call->args.size()));
  }
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  std::vector<Type> arg_types;
  for (size_t i = 0; i < ft->params.size(); ++i) {
    arg_types.push_back(ExprType(call->args[i]));
    BindParamVars(ft->params[i], arg_types.back(), &vmap);
  }
  for (size_t i = 0; i < ft->params.size(); ++i) {
    std::string why;
    if (!TypesCompatible(SubstituteType(ft->params[i], vmap), arg_types[i], &why)) {
      return absl::InvalidArgumentError(absl::StrCat("R.call: argument ", i, " of ", callee, " has type ",
                                                     TypeToString(arg_types[i]), " but the parameter is ",
                                                     TypeToString(ft->params[i]), ": ", why));
    }
  }
  if (!ft->ret.defined()) return Type(AnyType::Make());
  return SubstituteType(ft->ret, vmap);
}

Type TyArgsResult(const ir::relax::Call& call) {
  if (call->ty_args.empty()) return AnyType::Make();
  if (call->ty_args.size() == 1) return call->ty_args[0];
  return TupleType(call->ty_args);
}

Type FunctionType(const ir::relax::FunctionNode* f) {
  Array<Type> params;
  for (const Var& p : f->params) params.push_back(p->ty.defined() ? p->ty : Type(AnyType::Make()));
  return FuncType(params, f->ret_ty.defined() ? f->ret_ty : Type(AnyType::Make()), f->is_pure);
}

// The least specific type covering both (for If branches).
Type JoinTypes(const Type& a, const Type& b) {
  if (!a.defined() || !b.defined()) return AnyType::Make();
  if (StructuralEqual(a, b)) return a;
  const auto* ta = a.as<TensorTypeNode>();
  const auto* tb = b.as<TensorTypeNode>();
  if (ta && tb) {
    absl::StatusOr<TensorInfo> ia = GetTensorInfo(a, "if", "");
    absl::StatusOr<TensorInfo> ib = GetTensorInfo(b, "if", "");
    TensorInfo out;
    out.dtype = ia->dtype == ib->dtype ? ia->dtype : DataType::Void();
    out.ndim = ia->ndim == ib->ndim ? ia->ndim : -1;
    if (out.ndim >= 0 && ia->shape_known && ib->shape_known) {
      out.shape_known = true;
      for (int i = 0; i < out.ndim; ++i) {
        if (!ProveEqual(ia->shape[i], ib->shape[i])) out.shape_known = false;
      }
      if (out.shape_known) out.shape = ia->shape;
    }
    return MakeTensorType(out);
  }
  const auto* sa = a.as<ShapeTypeNode>();
  const auto* sb = b.as<ShapeTypeNode>();
  if (sa && sb) return ShapeType(sa->ndim == sb->ndim ? sa->ndim : -1);
  const auto* pa = a.as<PrimTypeNode>();
  const auto* pb = b.as<PrimTypeNode>();
  if (pa && pb && pa->dtype == pb->dtype) return PrimType(pa->dtype);
  const auto* ua = a.as<TupleTypeNode>();
  const auto* ub = b.as<TupleTypeNode>();
  if (ua && ub && ua->fields.size() == ub->fields.size()) {
    Array<Type> fields;
    for (size_t i = 0; i < ua->fields.size(); ++i) fields.push_back(JoinTypes(ua->fields[i], ub->fields[i]));
    return TupleType(fields);
  }
  return AnyType::Make();
}

// call_tir and its variants must name a PrimFunc of the module.
absl::Status CheckTirCallee(const OpSchema& schema, const ir::relax::Call& call, const IRModule& module) {
  if (schema.name.rfind("relax.call_tir", 0) != 0 || call->args.empty() || !module.defined()) {
    return absl::OkStatus();
  }
  const auto* gv = call->args[0].as<GlobalVarNode>();
  if (gv == nullptr) return OpError(schema.script_name, "the callee must be a PrimFunc of the module (cls.<name>)");
  BaseFunc f = module.Lookup(gv->name);
  if (!f.defined()) return OpError(schema.script_name, "cannot find function '" + gv->name + "' in the module");
  if (!f.as<PrimFuncNode>()) return OpError(schema.script_name, "'" + gv->name + "' is not a PrimFunc");
  return absl::OkStatus();
}

}  // namespace

Type ExprType(const Expr& expr) {
  if (!expr.defined()) return Type();
  if (expr->ty.defined()) return expr->ty;
  if (const auto* s = expr.as<ir::relax::ShapeExprNode>()) return ShapeType(s->values);
  if (const auto* p = expr.as<ir::relax::PrimValueNode>()) return PrimType(p->value.dtype(), p->value);
  if (expr.as<ir::relax::StringImmNode>() || expr.as<ir::relax::DataTypeImmNode>()) return AnyType::Make();
  if (const auto* t = expr.as<ir::relax::TupleNode>()) {
    Array<Type> fields;
    for (const Expr& f : t->fields) {
      Type ft = ExprType(f);
      fields.push_back(ft.defined() ? ft : Type(AnyType::Make()));
    }
    return TupleType(fields);
  }
  if (const auto* g = expr.as<ir::relax::TupleGetItemNode>()) {
    if (const auto* tt = ExprType(g->tuple).as<TupleTypeNode>()) {
      if (g->index >= 0 && static_cast<size_t>(g->index) < tt->fields.size()) return tt->fields[g->index];
    }
    return Type();
  }
  if (const auto* f = expr.as<ir::relax::FunctionNode>()) return FunctionType(f);
  if (expr.as<ir::relax::ExternFuncNode>()) return PackedFuncType::Make();
  return Type();
}

absl::StatusOr<Type> InferCallType(const ir::relax::Call& call, const IRModule& module) {
  const Expr& op = call->op;
  if (const auto* o = op.as<OpNode>()) {
    const OpSchema* schema = OpRegistry::Global().FindByName(o->name);
    if (schema == nullptr) return absl::InvalidArgumentError("unknown Relax operator '" + o->name + "'");
    absl::Status callee = CheckTirCallee(*schema, call, module);
    if (!callee.ok()) return callee;
    absl::StatusOr<Array<Expr>> args = NormalizeArgs(*schema, call->args);
    if (!args.ok()) return args.status();
    // Calls built without NormalizeAttrs may lack defaulted attributes: fill them in.
    bool complete = true;
    for (const AttrSpec& s : schema->attrs) complete &= call->attrs.count(String(s.name));
    // A DTensor argument selects the operator's distributed rule, as in TVM's block builder.
    bool dist = false;
    for (const Expr& a : call->args) dist |= ExprType(a).as<DTensorTypeNode>() != nullptr;
    const auto& infer = dist ? schema->dist_infer : schema->infer;
    if (!infer) return OpError(schema->script_name, "has no type inference for DTensor arguments");
    if (complete && args->size() == call->args.size()) return infer(call);
    std::vector<std::pair<std::string, ObjectRef>> given;
    for (const auto& [k, v] : call->attrs.items()) given.emplace_back(k.str(), v);
    absl::StatusOr<Map<String, ObjectRef>> attrs = NormalizeAttrs(*schema, given);
    if (!attrs.ok()) return attrs.status();
    return infer(ir::relax::Call(call->op, *args, *attrs, call->ty_args, call->span));
  }
  if (const auto* gv = op.as<GlobalVarNode>()) {
    BaseFunc f = module.defined() ? module.Lookup(gv->name) : BaseFunc();
    if (!f.defined()) {
      if (const auto* ft = gv->ty.as<FuncTypeNode>()) return ApplyFuncType(ft, call, gv->name);
      return absl::InvalidArgumentError("R.call: cannot find function '" + gv->name + "' in the module");
    }
    if (const auto* rf = f.as<ir::relax::FunctionNode>()) {
      Type ft = FunctionType(rf);
      return ApplyFuncType(ft.as<FuncTypeNode>(), call, gv->name);
    }
    // A PrimFunc called directly (what memory planning leaves after call_tir is lowered) returns
    // its scalar result, or the empty tuple when it returns nothing.
    if (const auto* pf = f.as<PrimFuncNode>()) {
      if (pf->ret_type.defined() && pf->ret_type.as<PrimTypeNode>() && !pf->ret_type.as<PrimTypeNode>()->dtype.is_void()) {
        return Type(PrimType(pf->ret_type.as<PrimTypeNode>()->dtype));
      }
      return Type(TupleType(Array<Type>{}));
    }
    return TyArgsResult(call);
  }
  if (op.as<ir::relax::ExternFuncNode>()) return TyArgsResult(call);
  Type callee = ExprType(op);
  if (const auto* ft = callee.as<FuncTypeNode>()) {
    const auto* v = op.as<VarNode>();
    return ApplyFuncType(ft, call, v ? v->name : "the callee");
  }
  if (!callee.defined() || callee.as<AnyTypeNode>() || callee.as<PackedFuncTypeNode>()) return TyArgsResult(call);
  return absl::InvalidArgumentError("R.call: the callee of type " + TypeToString(callee) + " is not callable");
}

absl::StatusOr<Type> InferExprType(const Expr& expr, const IRModule& module) {
  if (const auto* c = expr.as<ir::relax::CallNode>()) return InferCallType(GetRef<ir::relax::Call>(c), module);
  if (const auto* gv = expr.as<GlobalVarNode>()) {
    BaseFunc f = module.defined() ? module.Lookup(gv->name) : BaseFunc();
    if (const auto* rf = f.as<ir::relax::FunctionNode>()) return FunctionType(rf);
    if (f.defined()) return Type(AnyType::Make());
    if (gv->ty.defined()) return gv->ty;
    return absl::InvalidArgumentError("cannot find function '" + gv->name + "' in the module");
  }
  if (const auto* s = expr.as<ir::relax::SeqExprNode>()) return InferExprType(s->body, module);
  if (const auto* i = expr.as<ir::relax::IfNode>()) {
    absl::StatusOr<Type> t = InferExprType(i->true_branch, module);
    if (!t.ok()) return t.status();
    absl::StatusOr<Type> f = InferExprType(i->false_branch, module);
    if (!f.ok()) return f.status();
    return JoinTypes(*t, *f);
  }
  if (const auto* t = expr.as<ir::relax::TupleNode>()) {
    Array<Type> fields;
    for (const Expr& f : t->fields) {
      absl::StatusOr<Type> ft = InferExprType(f, module);
      if (!ft.ok()) return ft.status();
      fields.push_back(*ft);
    }
    return TupleType(fields);
  }
  if (const auto* g = expr.as<ir::relax::TupleGetItemNode>()) {
    absl::StatusOr<Type> tt = InferExprType(g->tuple, module);
    if (!tt.ok()) return tt.status();
    const auto* tup = tt->as<TupleTypeNode>();
    if (tup == nullptr) {
      if (tt->as<AnyTypeNode>()) return Type(AnyType::Make());
      return absl::InvalidArgumentError("cannot index a value of type " + TypeToString(*tt));
    }
    if (g->index < 0 || static_cast<size_t>(g->index) >= tup->fields.size()) {
      return absl::InvalidArgumentError(absl::StrCat("tuple index ", g->index, " is out of range for ",
                                                     TypeToString(*tt)));
    }
    return tup->fields[g->index];
  }
  Type t = ExprType(expr);
  return t.defined() ? t : Type(AnyType::Make());
}

namespace {

absl::StatusOr<ir::relax::Call> MakeCallWithSchema(const OpSchema& schema, const Array<Expr>& args,
                                                   const std::vector<std::pair<std::string, ObjectRef>>& attrs,
                                                   const Array<Type>& ty_args, const IRModule& module, Span span,
                                                   bool infer = true) {
  absl::StatusOr<Array<Expr>> full_args = NormalizeArgs(schema, args);
  if (!full_args.ok()) return full_args.status();
  absl::StatusOr<Map<String, ObjectRef>> full_attrs = NormalizeAttrs(schema, attrs);
  if (!full_attrs.ok()) return full_attrs.status();
  ir::relax::Call call(Op(schema.name), *full_args, *full_attrs, ty_args, span);
  if (schema.expand) return schema.expand(call, module);
  absl::StatusOr<Type> ty = InferCallType(call, module);
  if (!ty.ok() && !infer) return call;
  if (!ty.ok()) return ty.status();
  call.CopyOnWrite()->ty = *ty;
  return call;
}

}  // namespace

absl::StatusOr<ir::relax::Call> MakeOpCall(const std::string& script_name, const Array<Expr>& args,
                                       const std::vector<std::pair<std::string, ObjectRef>>& attrs,
                                       const Array<Type>& ty_args, const IRModule& module, Span span, bool infer) {
  const OpSchema* schema = OpRegistry::Global().FindByScriptName(script_name);
  if (schema == nullptr) return absl::InvalidArgumentError("unknown Relax operator R." + script_name);
  return MakeCallWithSchema(*schema, args, attrs, ty_args, module, span, infer);
}

absl::StatusOr<ir::relax::Call> MakeOpCallByName(const std::string& name, const Array<Expr>& args,
                                                 const std::vector<std::pair<std::string, ObjectRef>>& attrs,
                                                 const IRModule& module, Span span) {
  const OpSchema* schema = OpRegistry::Global().FindByName(name);
  if (schema == nullptr) return absl::InvalidArgumentError("unknown Relax operator '" + name + "'");
  return MakeCallWithSchema(*schema, args, attrs, {}, module, span);
}

bool TypesCompatible(const Type& annotated, const Type& actual, std::string* why) {
  auto fail = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  if (!annotated.defined() || !actual.defined()) return true;
  if (annotated.as<AnyTypeNode>() || actual.as<AnyTypeNode>()) return true;
  if (const auto* a = annotated.as<DTensorTypeNode>()) {
    const auto* b = actual.as<DTensorTypeNode>();
    if (!b) return fail("expected a DTensor, got " + TypeToString(actual));
    std::string inner;
    if (!TypesCompatible(a->tensor_ty, b->tensor_ty, &inner)) return fail(inner);
    if (!StructuralEqual(a->device_mesh, b->device_mesh)) return fail("the device meshes differ");
    if (a->placement != b->placement) return fail("placement \"" + a->placement + "\" vs \"" + b->placement + "\"");
    return true;
  }
  if (const auto* a = annotated.as<TensorTypeNode>()) {
    if (!actual.as<TensorTypeNode>()) return fail("expected a tensor, got " + TypeToString(actual));
    absl::StatusOr<TensorInfo> ia = GetTensorInfo(annotated, "", "");
    absl::StatusOr<TensorInfo> ib = GetTensorInfo(actual, "", "");
    if (!a->dtype.is_void() && !ib->dtype.is_void() && a->dtype != ib->dtype) {
      return fail("dtype " + ia->dtype.ToString() + " vs " + ib->dtype.ToString());
    }
    if (ia->ndim >= 0 && ib->ndim >= 0 && ia->ndim != ib->ndim) {
      return fail(absl::StrCat("rank ", ia->ndim, " vs ", ib->ndim));
    }
    if (ia->shape_known && ib->shape_known) {
      for (size_t i = 0; i < ia->shape.size(); ++i) {
        if (ProveNotEqual(ia->shape[i], ib->shape[i])) {
          return fail(absl::StrCat("shape ", ShapeToString(ia->shape), " vs ", ShapeToString(ib->shape)));
        }
      }
    }
    return true;
  }
  if (const auto* a = annotated.as<ShapeTypeNode>()) {
    const auto* b = actual.as<ShapeTypeNode>();
    if (!b) return fail("expected a shape, got " + TypeToString(actual));
    if (a->ndim >= 0 && b->ndim >= 0 && a->ndim != b->ndim) return fail(absl::StrCat("rank ", a->ndim, " vs ", b->ndim));
    if (a->values_known && b->values_known) {
      for (size_t i = 0; i < a->values.size() && i < b->values.size(); ++i) {
        if (ProveNotEqual(a->values[i], b->values[i])) return fail(TypeToString(annotated) + " vs " + TypeToString(actual));
      }
    }
    return true;
  }
  if (const auto* a = annotated.as<PrimTypeNode>()) {
    const auto* b = actual.as<PrimTypeNode>();
    if (!b) return fail("expected a prim value, got " + TypeToString(actual));
    if (!a->dtype.is_void() && !b->dtype.is_void() && a->dtype != b->dtype) {
      return fail("dtype " + a->dtype.ToString() + " vs " + b->dtype.ToString());
    }
    if (a->value.defined() && b->value.defined() && ProveNotEqual(a->value, b->value)) {
      return fail(TypeToString(annotated) + " vs " + TypeToString(actual));
    }
    return true;
  }
  if (const auto* a = annotated.as<TupleTypeNode>()) {
    const auto* b = actual.as<TupleTypeNode>();
    if (!b) return fail("expected a tuple, got " + TypeToString(actual));
    if (a->fields.size() != b->fields.size()) {
      return fail(absl::StrCat("tuple of ", a->fields.size(), " vs ", b->fields.size(), " fields"));
    }
    for (size_t i = 0; i < a->fields.size(); ++i) {
      std::string inner;
      if (!TypesCompatible(a->fields[i], b->fields[i], &inner)) return fail(absl::StrCat("field ", i, ": ", inner));
    }
    return true;
  }
  if (annotated.as<FuncTypeNode>() || annotated.as<PackedFuncTypeNode>()) {
    if (!actual.as<FuncTypeNode>() && !actual.as<PackedFuncTypeNode>()) {
      return fail("expected a callable, got " + TypeToString(actual));
    }
    const auto* a = annotated.as<FuncTypeNode>();
    const auto* b = actual.as<FuncTypeNode>();
    if (a && b) {
      std::string inner;
      if (!TypesCompatible(a->ret, b->ret, &inner)) return fail("return type: " + inner);
    }
    return true;
  }
  return true;
}

}  // namespace kiln::relax
