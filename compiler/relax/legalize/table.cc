#include "compiler/relax/legalize/table.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT

LegalizeContext::LegalizeContext(IRModule module) : module_(std::move(module)) {}

bool LegalizeContext::for_gpu() const {
  const auto* v =
      module_->attrs.count(String(kGPUTargetAttr)) ? module_->attrs.Get(String(kGPUTargetAttr)).as<IntImmNode>() : nullptr;
  return v != nullptr && v->value != 0;
}

namespace {

// A kernel exported under a C library name would shadow that function for its own body (the
// float64 exp kernel calling libm's exp would call itself), so those names get a prefix.
bool IsCLibraryName(const std::string& name) {
  static const std::unordered_set<std::string>* names = new std::unordered_set<std::string>{
      "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "cos", "cosh",
      "erf", "erfc", "exp", "exp2", "expm1", "fabs", "floor", "fmax", "fmin", "fmod", "log", "log10",
      "log1p", "log2", "nearbyint", "pow", "remainder", "rint", "round", "sin", "sinh", "sqrt", "tan",
      "tanh", "trunc", "memcpy", "memset", "malloc", "free", "abort", "exit", "div", "sort", "qsort",
  };
  return names->count(name) > 0;
}

}  // namespace

std::string LegalizeContext::FreshName(const std::string& hint) {
  const std::string base = IsCLibraryName(hint) ? "tir_" + hint : hint;
  if (!module_.GetGlobalVar(base).defined()) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, i);
    if (!module_.GetGlobalVar(name).defined()) return name;
  }
}

absl::StatusOr<Expr> LegalizeContext::CallTIR(const BuiltFunc& f, const Type& out_ty) {
  GlobalVar gv;
  uint64_t hash = StructuralHash(f.func);
  for (const auto& [g, func] : added_[hash]) {
    if (StructuralEqual(func, f.func)) {
      gv = g;
      break;
    }
  }
  if (!gv.defined()) {
    std::string name = FreshName(f.name);
    gv = GlobalVar(name);
    PrimFunc func = f.func;
    Map<String, ObjectRef> attrs;
    attrs.Set(String("global_symbol"), String(name));
    for (const auto& [k, v] : f.func->attrs.items()) attrs.Set(k, v);
    func.CopyOnWrite()->attrs = attrs;
    module_.Add(gv, func);
    added_[hash].emplace_back(gv, f.func);
  }
  // Several outputs are one tuple type, as the parser reads out_ty=[a, b].
  Array<Type> ty_args = {out_ty};
  ir::relax::Tuple args(f.args);
  args.CopyOnWrite()->ty = ExprType(args);
  ir::relax::Call call(Op("relax.call_tir"), {gv, args}, {}, ty_args);
  call.CopyOnWrite()->ty = out_ty;
  return Expr(call);
}

absl::StatusOr<Expr> LegalizeContext::Emit(const FuncBuilder& b, const std::vector<Tensor>& outputs,
                                           OpPatternKind pattern, const ir::relax::Call& call) {
  absl::StatusOr<BuiltFunc> f = b.Build(outputs, pattern);
  if (!f.ok()) return f.status();
  return CallTIR(*f, call->ty);
}

absl::StatusOr<const TensorTypeNode*> OutTensorType(const ir::relax::Call& call) {
  const auto* tt = call->ty.as<TensorTypeNode>();
  if (tt == nullptr) {
    return absl::InvalidArgumentError("its result is not a tensor (" +
                                      (call->ty.defined() ? TypeToString(call->ty) : std::string("untyped")) + ")");
  }
  std::vector<PrimExpr> shape;
  int ndim = -1;
  if (!tt->shape.defined() || !GetShapeValues(tt->shape, &shape, &ndim) || tt->dtype.is_void()) {
    return absl::InvalidArgumentError("its result shape or dtype is unknown (" + TypeToString(call->ty) + ")");
  }
  return tt;
}

absl::StatusOr<SingleInputKernel> StartSingleInputKernel(const ir::relax::Call& call, std::string name) {
  absl::StatusOr<const TensorTypeNode*> out_tt = OutTensorType(call);
  if (!out_tt.ok()) return out_tt.status();
  FuncBuilder b(std::move(name));
  absl::StatusOr<Tensor> x = b.Input(call->args[0]);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<PrimExpr>> shape = b.LocalShape(call->ty);
  if (!shape.ok()) return shape.status();
  return SingleInputKernel{*out_tt, std::move(b), *std::move(x), *std::move(shape)};
}

std::vector<PrimExpr> BroadcastIndices(const Tensor& x, const std::vector<PrimExpr>& out_shape, const Indices& i) {
  std::vector<PrimExpr> idx;
  size_t offset = out_shape.size() - x.shape().size();
  for (size_t d = 0; d < x.shape().size(); ++d) {
    const PrimExpr& xd = x.shape()[d];
    std::optional<int64_t> c = AsConst(xd);
    std::optional<int64_t> o = AsConst(out_shape[offset + d]);
    if (c && *c == 1 && !(o && *o == 1)) {
      idx.push_back(IntImm(DataType::Int(64), 0));
    } else {
      idx.push_back(i[offset + d]);
    }
  }
  return idx;
}

}  // namespace kiln::relax::legalize
