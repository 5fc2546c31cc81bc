// CallTIRRewrite: R.call_tir / call_tir_inplace / call_tir_with_grad / call_dps_packed become an
// explicit allocation of each output (relax.builtin.alloc_tensor) followed by a
// destination-passing call of the kernel with the inputs, then the outputs.
//
// Why: the VM calls kernels, it does not allocate for them. Making the allocations visible lets
// StaticPlanBlockMemory reuse storage and lets the VM code generator emit plain calls. An in-place
// output (call_tir_inplace, inplace_indices[i] >= 0) is the input it overwrites: nothing is
// allocated and the kernel receives only the outputs that are not in place.
//
// Argument order. TVM v0.26 passes the argument tuple positionally to the leading PrimFunc
// parameters, then the outputs. Programs written for the older `tir_vars=` form put symbolic
// scalars in the tuple but expect them after the outputs (PrimFunc (A, B, n) called with (x, n));
// when the callee is a PrimFunc of the module whose parameters only fit that order (tensors,
// outputs, scalars), that order is used. Anything else fitting neither is an error.
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

bool IsDpsCall(const rx::CallNode* call) {
  return IsOp(call->op, "relax.call_tir") || IsOp(call->op, "relax.call_tir_inplace") ||
         IsOp(call->op, "relax.call_tir_with_grad") || IsOp(call->op, "relax.call_dps_packed");
}

// Whether PrimFunc parameter `p` takes a tensor (a handle) rather than a scalar.
bool IsHandleParam(const PrimFuncNode* f, const Var& p) {
  return f->buffer_map.count(p) || p->dtype.is_handle();
}

bool IsScalarArg(const Expr& arg) {
  Type t = ExprType(arg);
  return arg.as<rx::PrimValueNode>() != nullptr || (t.defined() && t.as<PrimTypeNode>() != nullptr);
}

// Whether `args` fit the PrimFunc's parameters kind by kind (tensor <-> handle, scalar <-> scalar).
bool FitsParams(const PrimFuncNode* f, const std::vector<Expr>& args) {
  if (args.size() != f->params.size()) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsHandleParam(f, f->params[i]) == IsScalarArg(args[i])) return false;
  }
  return true;
}

class CallTIRRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    const auto* vb = binding.as<rx::VarBindingNode>();
    const auto* call = vb ? vb->value.as<rx::CallNode>() : nullptr;
    if (call == nullptr || !IsDpsCall(call)) return BindingRewriter::RewriteBinding(binding, bb);
    rx::Call c = Downcast<rx::Call>(Remap(vb->value));
    const std::string op = c->op.as<OpNode>()->name;
    if (c->args.size() != 2) return absl::InvalidArgumentError(op + " expects (callee, argument tuple)");
    std::vector<Expr> inputs;
    if (const auto* t = c->args[1].as<rx::TupleNode>()) {
      inputs = t->fields.ToVector();
    } else {
      inputs.push_back(c->args[1]);
    }
    std::vector<int64_t> inplace;
    bool is_inplace = op == "relax.call_tir_inplace";
    if (is_inplace) inplace = IntArrayAttr(c, "inplace_indices").value_or(std::vector<int64_t>{});
    if (c->ty_args.empty()) return absl::InvalidArgumentError(op + " has no output type (out_ty)");
    // out_ty=[a, b] is either several ty_args or one tuple type.
    std::vector<Type> out_tys = c->ty_args.ToVector();
    if (out_tys.size() == 1) {
      if (const auto* tt = out_tys[0].as<TupleTypeNode>()) out_tys = tt->fields.ToVector();
    }
    if (is_inplace && inplace.size() != out_tys.size()) {
      return absl::InvalidArgumentError(op + ": inplace_indices must have one entry per output");
    }

    // The outputs: fresh allocations, or the inputs they overwrite.
    std::vector<Expr> outs, fresh;
    for (size_t i = 0; i < out_tys.size(); ++i) {
      if (is_inplace && inplace[i] >= 0) {
        if (static_cast<size_t>(inplace[i]) >= inputs.size()) {
          return absl::InvalidArgumentError(absl::StrCat(op, ": inplace index ", inplace[i], " is out of range"));
        }
        outs.push_back(inputs[inplace[i]]);
        continue;
      }
      absl::StatusOr<Var> alloc = Allocate(out_tys[i], op, bb);
      if (!alloc.ok()) return alloc.status();
      outs.push_back(*alloc);
      fresh.push_back(*alloc);
    }

    std::vector<Expr> args = inputs;
    args.insert(args.end(), fresh.begin(), fresh.end());
    if (const PrimFuncNode* f = CalledPrimFunc(c->args[0], module_); f != nullptr && !FitsParams(f, args)) {
      std::vector<Expr> legacy;
      for (const Expr& a : inputs) if (!IsScalarArg(a)) legacy.push_back(a);
      legacy.insert(legacy.end(), fresh.begin(), fresh.end());
      for (const Expr& a : inputs) if (IsScalarArg(a)) legacy.push_back(a);
      if (!FitsParams(f, legacy)) {
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": the ", args.size(), " arguments (inputs then outputs) do not fit the parameters of PrimFunc '",
            c->args[0].as<GlobalVarNode>()->name, "' (", f->params.size(), ")"));
      }
      args = legacy;
    }
    rx::Call kernel(c->args[0], Array<Expr>(args), {}, {}, c->span);
    absl::StatusOr<Var> done = bb->Emit(kernel, "_");
    if (!done.ok()) return done.status();

    if (outs.size() == 1 && !ExprType(vb->value).as<TupleTypeNode>()) {
      Substitute(vb->var, outs[0]);
      return absl::OkStatus();
    }
    absl::StatusOr<Expr> tuple = Typed(rx::Tuple(Array<Expr>(outs)), module_);
    if (!tuple.ok()) return tuple.status();
    bb->EmitBinding(rx::VarBinding(vb->var, *tuple, vb->span));
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<Var> Allocate(const Type& ty, const std::string& op, BlockBuilder* bb) {
    const auto* tt = ty.as<TensorTypeNode>();
    const auto* shape = tt ? tt->shape.as<rx::ShapeExprNode>() : nullptr;
    if (shape == nullptr || tt->dtype.is_void()) {
      return absl::InvalidArgumentError(op + ": every output type needs a known shape and dtype to be allocated");
    }
    rx::Call alloc(Op("relax.builtin.alloc_tensor"),
                   {MakeShape(shape->values), MakeDType(tt->dtype), MakeInt64(0), MakeString("global")});
    return bb->Emit(alloc, "alloc");
  }
};

}  // namespace

absl::StatusOr<IRModule> CallTIRRewrite(const IRModule& module) { return CallTIRRewriter(module).Run(); }

}  // namespace kiln::relax::transform
