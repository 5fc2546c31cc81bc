// The call forms: R.call_tir / call_tir_inplace / call_tir_with_grad / call_dps_packed (destination
// passing: the output type is given in ty_args as out_ty), R.call_packed / call_pure_packed /
// call_builtin_with_ctx / invoke_closure (result type in ty_args) and R.make_closure.
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

// The declared result: one type, or a tuple of several (call_tir with out_ty=[a, b]).
Type DeclaredResult(const ir::relax::Call& call) {
  if (call->ty_args.empty()) return AnyType::Make();
  if (call->ty_args.size() == 1) return call->ty_args[0];
  return TupleType(call->ty_args);
}

absl::Status CheckArgsTuple(const std::string& op, const ir::relax::Call& call) {
  Type t = ArgType(call, 1);
  if (t.defined() && !t.as<TupleTypeNode>() && !t.as<AnyTypeNode>()) {
    return OpError(op, "expects a tuple of arguments, got " + TypeToString(t));
  }
  return absl::OkStatus();
}

// Destination-passing calls: the outputs must be tensors (or a tuple of tensors).
InferFn DpsInfer(const std::string& op) {
  return [op](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    if (call->ty_args.empty()) return OpError(op, "requires the output type (out_ty)");
    absl::Status st = CheckArgsTuple(op, call);
    if (!st.ok()) return st;
    Type out = DeclaredResult(call);
    std::vector<Type> outs;
    if (const auto* tu = out.as<TupleTypeNode>()) {
      outs = tu->fields.ToVector();
    } else {
      outs.push_back(out);
    }
    for (const Type& t : outs) {
      if (!t.as<TensorTypeNode>()) return OpError(op, "out_ty must be tensor types, got " + TypeToString(t));
    }
    if (op != "call_tir_inplace") return out;
    // Each output i with inplace_indices[i] >= 0 reuses that input, so their types must agree.
    std::vector<int64_t> idx = IntArrayAttr(call, "inplace_indices").value_or(std::vector<int64_t>{});
    if (idx.size() != outs.size()) {
      return OpError(op, absl::StrCat("inplace_indices has ", idx.size(), " entries for ", outs.size(), " output(s)"));
    }
    const Type args_ty = ArgType(call, 1);  // keeps the node alive while `args` points into it
    const auto* args = args_ty.as<TupleTypeNode>();
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < -1 || (args && idx[i] >= static_cast<int64_t>(args->fields.size()))) {
        return OpError(op, absl::StrCat("inplace index ", idx[i], " is out of range"));
      }
      std::string why;
      if (args && idx[i] >= 0 && !TypesCompatible(outs[i], args->fields[idx[i]], &why)) {
        return OpError(op, absl::StrCat("output ", i, " does not match the input it overwrites: ", why));
      }
    }
    return out;
  };
}

InferFn DeclaredInfer() {
  return [](const ir::relax::Call& call) -> absl::StatusOr<Type> { return DeclaredResult(call); };
}

}  // namespace

void RegisterCallOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "call_tir", {"func", "args"}, {}, DpsInfer("call_tir")).ty_args_keyword = "out_ty";
  AddOp(ops, "call_tir_inplace", {"func", "args"}, {RequiredIntArrayAttrSpec("inplace_indices")},
        DpsInfer("call_tir_inplace"))
      .ty_args_keyword = "out_ty";
  AddOp(ops, "call_tir_with_grad", {"func", "args"},
        {StringAttrSpec("te_grad_name", ""), AnyAttrSpec("te_grad_kwargs")}, DpsInfer("call_tir_with_grad"))
      .ty_args_keyword = "out_ty";
  AddOp(ops, "call_dps_packed", {"func", "args"}, {}, DpsInfer("call_dps_packed")).ty_args_keyword = "out_ty";
  OpSchema& packed = AddOp(ops, "call_packed", {"func", "args"}, {}, DeclaredInfer());
  packed.variadic = true;
  packed.is_pure = false;
  packed.ty_args_keyword = "ty_args";
  OpSchema& pure_packed = AddOp(ops, "call_pure_packed", {"func", "args"}, {}, DeclaredInfer());
  pure_packed.variadic = true;
  pure_packed.ty_args_keyword = "ty_args";
  OpSchema& ctx = AddOp(ops, "call_builtin_with_ctx", {"func", "args"}, {}, DeclaredInfer());
  ctx.is_pure = false;
  ctx.ty_args_keyword = "ty_args";
  OpSchema& invoke = AddOp(ops, "invoke_closure", {"closure", "args"}, {}, DeclaredInfer());
  invoke.is_pure = false;
  invoke.ty_args_keyword = "ty_args";
  AddOp(ops, "make_closure", {"func", "args"}, {}, [](const ir::relax::Call&) -> absl::StatusOr<Type> {
    return Type(AnyType::Make());
  });
}

}  // namespace kiln::relax
