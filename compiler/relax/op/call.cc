// The call forms: R.call_tir / call_tir_inplace / call_tir_with_grad / call_dps_packed (destination
// passing: the output type is given in ty_args as out_ty), R.call_packed / call_pure_packed /
// call_builtin_with_ctx / invoke_closure / invoke_pure_closure (result type in ty_args),
// R.call_inplace_packed (a pure packed call whose outputs overwrite some of its arguments),
// R.call_py_func (a Python function by name, output type in ty_args as out_ty) and R.make_closure.
#include <algorithm>

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
      // DTensor outputs: R.dist.call_tir, the same operator on distributed tensors.
      bool dtensor_ok = op == "call_tir" && t.as<DTensorTypeNode>();
      if (!t.as<TensorTypeNode>() && !dtensor_ok) {
        return OpError(op, "out_ty must be tensor types, got " + TypeToString(t));
      }
    }
    if (op != "call_tir_inplace") return out;
    std::vector<int64_t> idx = IntArrayAttr(call, "inplace_indices").value_or(std::vector<int64_t>{});
    if (idx.size() != outs.size()) {
      return OpError(op, absl::StrCat("inplace_indices has ", idx.size(), " entries for ", outs.size(), " output(s)"));
    }
    const Type args_ty = ArgType(call, 1);  // keeps the node alive while `args` points into it
    const auto* args = args_ty.as<TupleTypeNode>();
    // As TVM: an input is overwritten by one output at most, some output must overwrite one (else
    // it is call_tir), and what is overwritten is a tensor.
    if (std::all_of(idx.begin(), idx.end(), [](int64_t i) { return i == -1; })) {
      return OpError(op, "at least one inplace index must not be -1 (else use R.call_tir)");
    }
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] >= 0 && std::count(idx.begin(), idx.end(), idx[i]) > 1) {
        return OpError(op, absl::StrCat("inplace index ", idx[i], " appears more than once"));
      }
      if (idx[i] < -1 || (args && idx[i] >= static_cast<int64_t>(args->fields.size()))) {
        return OpError(op, absl::StrCat("inplace index ", idx[i], " is out of range"));
      }
      if (args && idx[i] >= 0 && !args->fields[idx[i]].as<TensorTypeNode>()) {
        return OpError(op, absl::StrCat("argument ", idx[i], " is overwritten in place, so it must be a tensor, got ",
                                        TypeToString(args->fields[idx[i]])));
      }
    }
    return out;
  };
}

// R.call_inplace_packed(func, *args, inplace_indices, ty_args): output i overwrites argument
// inplace_indices[i] (or is fresh for -1), so its declared type must fit that argument.
absl::StatusOr<Type> InferCallInplacePacked(const ir::relax::Call& call) {
  const std::string op = "call_inplace_packed";
  if (call->args.size() < 2) return OpError(op, "expects a function and at least one argument");
  Type out = DeclaredResult(call);
  std::vector<int64_t> idx = IntArrayAttr(call, "inplace_indices").value_or(std::vector<int64_t>{});
  int64_t num_args = static_cast<int64_t>(call->args.size()) - 1;
  std::vector<bool> used(num_args, false);
  bool any = false;
  for (int64_t i : idx) {
    if (i < -1 || i >= num_args) return OpError(op, absl::StrCat("inplace index ", i, " is out of range"));
    if (i == -1) continue;
    if (used[i]) return OpError(op, absl::StrCat("inplace index ", i, " appears more than once"));
    used[i] = true;
    any = true;
  }
  if (!any) return OpError(op, "at least one inplace index must not be -1 (else use call_pure_packed)");
  const auto* tuple = out.as<TupleTypeNode>();
  if (idx.size() > 1 && tuple == nullptr) return OpError(op, "several inplace indices need a tuple result type");
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0) continue;
    Type want = idx.size() == 1 ? out : (k < tuple->fields.size() ? tuple->fields[k] : Type());
    std::string why;
    if (want.defined() && !TypesCompatible(want, ArgType(call, idx[k] + 1), &why)) {
      return OpError(op, absl::StrCat("output ", k, " does not match argument ", idx[k], " it overwrites: ", why));
    }
  }
  return out;
}

// R.call_py_func(func_name, args, out_ty): a call of the Python function registered under the
// name (TVM's vm.builtin.call_py_func); the result is the declared out_ty, tensors with shapes.
absl::StatusOr<Type> InferCallPyFunc(const ir::relax::Call& call) {
  const std::string op = "call_py_func";
  if (call->args.size() != 2) return OpError(op, "expects a function name and a tuple of arguments");
  if (!call->args[0].as<ir::relax::StringImmNode>()) {
    return OpError(op, "expects the first argument to be a string literal naming the Python function");
  }
  if (absl::Status st = CheckArgsTuple(op, call); !st.ok()) return st;
  if (call->ty_args.empty()) return OpError(op, "requires the output type (out_ty)");
  for (const Type& t : call->ty_args) {
    const auto* tensor = t.as<TensorTypeNode>();
    if (tensor == nullptr || !tensor->shape.as<ir::relax::ShapeExprNode>()) {
      return OpError(op, "out_ty must be tensor types with a shape, got " + TypeToString(t));
    }
  }
  return DeclaredResult(call);
}

InferFn DeclaredInfer() {
  return [](const ir::relax::Call& call) -> absl::StatusOr<Type> { return DeclaredResult(call); };
}

}  // namespace

absl::Status ValidateCallTirInplace(const ir::relax::Call& call) {
  // Each output i with inplace_indices[i] >= 0 reuses that input, so their types must agree.
  const Type out = DeclaredResult(call);
  std::vector<Type> outs;
  if (const auto* tu = out.as<TupleTypeNode>()) {
    outs = tu->fields.ToVector();
  } else {
    outs.push_back(out);
  }
  std::vector<int64_t> idx = IntArrayAttr(call, "inplace_indices").value_or(std::vector<int64_t>{});
  const Type args_ty = ArgType(call, 1);  // keeps the node alive while `args` points into it
  const auto* args = args_ty.as<TupleTypeNode>();
  for (size_t i = 0; i < idx.size() && i < outs.size(); ++i) {
    std::string why;
    if (args && idx[i] >= 0 && idx[i] < static_cast<int64_t>(args->fields.size()) &&
        !TypesCompatible(outs[i], args->fields[idx[i]], &why)) {
      return OpError("call_tir_inplace", absl::StrCat("output ", i, " does not match the input it overwrites: ", why));
    }
  }
  return absl::OkStatus();
}

void RegisterCallOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "call_tir", {"func", "args"}, {}, DpsInfer("call_tir")).ty_args_keyword = "out_ty";
  AddOp(ops, "call_tir_inplace", {"func", "args"}, {RequiredIntArrayAttrSpec("inplace_indices")},
        DpsInfer("call_tir_inplace"))
      .ty_args_keyword = "out_ty";
  AddOp(ops, "call_tir_with_grad", {"func", "args"},
        {StringAttrSpec("te_grad_name", ""), AnyAttrSpec("te_grad_kwargs")}, DpsInfer("call_tir_with_grad"))
      .ty_args_keyword = "out_ty";
  AddOp(ops, "call_dps_packed", {"func", "args"}, {}, DpsInfer("call_dps_packed")).ty_args_keyword = "out_ty";
  AddOp(ops, "call_py_func", {"func_name", "args"}, {}, InferCallPyFunc).ty_args_keyword = "out_ty";
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
  OpSchema& invoke_pure = AddOp(ops, "invoke_pure_closure", {"closure", "args"}, {}, DeclaredInfer());
  invoke_pure.ty_args_keyword = "ty_args";
  OpSchema& inplace = AddOp(ops, "call_inplace_packed", {"func", "args"}, {RequiredIntArrayAttrSpec("inplace_indices")},
                            InferCallInplacePacked);
  inplace.variadic = true;
  inplace.ty_args_keyword = "ty_args";
  // The callee may be written as a string, as for R.call_packed: it names a packed function.
  inplace.finalize_args = [](Array<Expr>* args) {
    if (args->empty()) return;
    if (const auto* s = (*args)[0].as<ir::relax::StringImmNode>()) {
      ir::relax::ExternFunc f(s->value, s->span);
      f.CopyOnWrite()->ty = PackedFuncType::Make();
      args->Set(0, f);
    }
  };
  AddOp(ops, "make_closure", {"func", "args"}, {}, [](const ir::relax::Call&) -> absl::StatusOr<Type> {
    return Type(AnyType::Make());
  });
}

}  // namespace kiln::relax
