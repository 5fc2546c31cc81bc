// TVMScript parser, distributed Relax (R.dist.*): device meshes, R.DTensor types, R.dist.const and
// the sharding operators. R.DTensor and R.device_mesh are also spelled R.dist.*; R.Range (an
// I.Range, as TVM prints it outside a module) gives a mesh's device range.
#include <algorithm>
#include <cctype>
#include <iterator>
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

// A device mesh: R.device_mesh(...) itself, or "name[i]" naming an entry of the module's global infos.
GlobalInfo MeshOf(const RelaxCall& c, const Value& v) {
  Parser& p = c.p;
  Span s = SpanOr(v, c.span);
  if (v.kind == K::kType && v.obj.as<GlobalInfoNode>() && v.obj.as<GlobalInfoNode>()->kind == "device_mesh") {
    return Downcast<GlobalInfo>(v.obj);
  }
  if (v.kind != K::kStr) p.Fail(s, "expected a device mesh: R.device_mesh(...) or \"mesh[0]\"");
  size_t open = v.s.find('[');
  if (open == std::string::npos || v.s.back() != ']') p.Fail(s, "a device mesh is named \"<global info>[<index>]\", got \"" + v.s + "\"");
  std::string key = v.s.substr(0, open), idx = v.s.substr(open + 1, v.s.size() - open - 2);
  if (idx.empty() || idx.size() > 6 || !std::all_of(idx.begin(), idx.end(), ::isdigit)) p.Fail(s, "bad device mesh index in \"" + v.s + "\"");
  if (!p.module_.defined()) p.Fail(s, "a device mesh named \"" + v.s + "\" needs an @I.ir_module with I.module_global_infos");
  const Array<GlobalInfo> infos = p.module_->global_infos.Get(String(key));
  size_t i = std::stoul(idx);
  if (i >= infos.size()) p.Fail(s, "the module has no global info \"" + v.s + "\"");
  if (infos[i]->kind != "device_mesh") p.Fail(s, "\"" + v.s + "\" is not a device mesh");
  return infos[i];
}

// A placement string ("S[0]R", ...) in its canonical spelling.
std::string PlacementOf(const RelaxCall& c, const Value& v) {
  absl::StatusOr<std::vector<int>> placement = ParsePlacement(c.p.ToStr(v, SpanOr(v, c.span)));
  if (!placement.ok()) c.p.Fail(SpanOr(v, c.span), std::string(placement.status().message()));
  return PlacementToString(*placement);
}

// R.device_mesh(shape, device_ids or I.Range(begin, end)), also spelled R.dist.device_mesh.
Value CallDeviceMesh(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* shape = Arg(a, 0, "shape");
  const Value* ids = Arg(a, 1, "device_ids");
  if (!ids) ids = Kwarg(a, "device_range");
  if (!shape || !ids || a.args.size() > 2) p.Fail(span, "R.device_mesh(shape, device_ids or I.Range(begin, end)) takes two arguments");
  std::vector<int64_t> dims;
  for (const Value& d : p.ToSeq(*shape, SpanOr(*shape, span))) dims.push_back(p.ToInt(d, SpanOr(d, span)));
  absl::StatusOr<GlobalInfo> mesh;
  if (ids->kind == K::kType && ids->obj.as<RangeNode>()) {
    mesh = MakeDeviceMesh(dims, Downcast<Range>(ids->obj));
  } else {
    std::vector<int64_t> list;
    for (const Value& d : p.ToSeq(*ids, SpanOr(*ids, span))) list.push_back(p.ToInt(d, SpanOr(d, span)));
    mesh = MakeDeviceMesh(dims, list);
  }
  if (!mesh.ok()) p.Fail(span, absl::StrCat("R.device_mesh: ", mesh.status().message()));
  return Value::Obj(K::kType, *mesh);
}

// R.DTensor(shape, dtype, device_mesh, placement, ndim=), also spelled R.dist.DTensor: a lone
// string first is the dtype.
Value CallDTensor(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  CallArgs t = c.Rebuilt();
  std::vector<Value> pos = a.args;
  if (!pos.empty() && pos[0].kind == K::kStr && !Kwarg(a, "dtype") && (pos.size() == 1 || pos[1].kind != K::kStr || pos.size() == 3)) {
    pos.insert(pos.begin(), Value::None());
  }
  static const char* kNames[] = {"shape", "dtype", "device_mesh", "placement"};
  std::vector<const Value*> got(4, nullptr);
  for (size_t i = 0; i < 4; ++i) got[i] = i < pos.size() ? &pos[i] : Kwarg(a, kNames[i]);
  if (pos.size() > 4) p.Fail(span, "R.DTensor takes at most 4 positional arguments");
  for (const auto& [k, v] : a.kwargs) {
    if (k != "ndim" && std::find(std::begin(kNames), std::end(kNames), k) == std::end(kNames)) {
      p.Fail(SpanOr(v, span), "R.DTensor got an unexpected keyword '" + k + "'");
    }
  }
  if (!got[2] || !got[3]) p.Fail(span, "R.DTensor needs a device_mesh and a placement");
  if (got[0]) t.args.push_back(*got[0]);
  if (got[1]) t.kwargs.emplace_back("dtype", *got[1]);
  if (!got[0]) t.args.clear();
  if (const Value* nd = Kwarg(a, "ndim")) t.kwargs.emplace_back("ndim", *nd);
  Value tensor = p.CallR("Tensor", t);
  TensorType tt = Downcast<TensorType>(tensor.obj);
  GlobalInfo mesh = MeshOf(c, *got[2]);
  std::string placement = PlacementOf(c, *got[3]);
  absl::Status st = CheckDTensorType(tt, mesh, *ParsePlacement(placement));
  if (!st.ok()) p.Fail(span, absl::StrCat("R.DTensor: ", st.message()));
  return Value::Obj(K::kType, DTensorType(tt, mesh, placement));
}

// R.dist.const(value, R.DTensor(...)): a constant of the DTensor's dtype, typed by it.
Value CallDistConst(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const Value* value = Arg(a, 0, "value");
  const Value* ty = Arg(a, 1, "ty");
  if (!value || !ty || a.args.size() > 2) p.Fail(span, "R.dist.const(value, ty) takes a value and a DTensor type");
  Type t = p.ToRelaxType(*ty, SpanOr(*ty, span));
  const auto* dt = t.as<DTensorTypeNode>();
  if (!dt) p.Fail(SpanOr(*ty, span), "R.dist.const's type must be an R.DTensor");
  CallArgs const_args = c.Rebuilt();
  const_args.args = {*value, Value::Str(dt->tensor_ty->dtype.ToString())};
  Value cv = p.CallR("const", const_args);
  rx::Constant constant = Downcast<rx::Constant>(cv.obj);
  std::string why;
  if (!kiln::relax::TypesCompatible(dt->tensor_ty, constant->ty, &why)) p.Fail(span, "R.dist.const: the value does not match the type: " + why);
  constant.CopyOnWrite()->ty = t;
  return Value::Obj(K::kRelax, constant);
}

// R.dist.annotate_sharding / R.dist.redistribute(value, device_mesh, placement): the operator with
// the mesh and the placement as attributes.
Value CallDistAnnotate(Parser& p, CallArgs& a, RelaxCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  const Value* input = Arg(a, 0, "value");
  if (!input) input = Kwarg(a, "input");
  const Value* mesh = Arg(a, 1, "device_mesh");
  const Value* placement = Arg(a, 2, "placement");
  if (!input || !mesh || !placement || a.args.size() > 3) {
    p.Fail(span, "R." + name + "(value, device_mesh, placement) takes a value, a device mesh and a placement");
  }
  CallArgs b = c.Rebuilt();
  b.args.push_back(*input);
  b.kwargs.emplace_back("device_mesh", Value::Obj(K::kType, MeshOf(c, *mesh)));
  b.kwargs.emplace_back("placement", Value::Str(PlacementOf(c, *placement)));
  a = std::move(b);
  return CallRelaxOp(p, a, c);
}

// R.dist.call_tir: the same operator as R.call_tir, with DTensor outputs.
Value CallDistCallTir(Parser& p, CallArgs& a, RelaxCall& c) {
  // TVM builds the call from the output types' shapes, so each must be a known shape.
  for (const char* key : {"out_ty", "out_sinfo"}) {
    const Value* out = Kwarg(a, key);
    if (!out) continue;
    std::vector<Value> outs = out->is_seq() ? out->items : std::vector<Value>{*out};
    for (const Value& o : outs) {
      const auto* dt = o.kind == K::kType ? o.obj.as<DTensorTypeNode>() : nullptr;
      if (dt && !(dt->tensor_ty.defined() && dt->tensor_ty->shape.as<rx::ShapeExprNode>())) {
        p.Fail(c.span, "R.dist.call_tir: each out_ty must have a known shape (a ShapeExpr)");
      }
    }
  }
  c.name = "call_tir";
  return CallRelaxOp(p, a, c);
}

// R.Range(begin, end): I.Range, as TVM prints it outside a module.
Value CallRange(Parser& p, CallArgs& a, RelaxCall&) { return p.CallI("Range", a); }

}  // namespace

void AddRelaxDistCalls(RelaxCallTable* t) {
  for (const char* n : {"device_mesh", "dist.device_mesh"}) t->emplace(n, &CallDeviceMesh);
  for (const char* n : {"DTensor", "dist.DTensor"}) t->emplace(n, &CallDTensor);
  t->emplace("dist.const", &CallDistConst);
  t->emplace("dist.call_tir", &CallDistCallTir);
  for (const char* n : {"dist.annotate_sharding", "dist.redistribute"}) t->emplace(n, &CallDistAnnotate);
  t->emplace("Range", &CallRange);
}

}  // namespace kiln::script::parser
