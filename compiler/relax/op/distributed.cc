// Distributed Relax operators and inference on DTensors, after TVM's relax.dist / relax.ccl:
//   - R.ccl.* collectives (allreduce, allgather, broadcast_from_worker0, scatter_from_worker0) on
//     tensors, and allreduce on a DTensor (its result is replicated);
//   - R.dist.annotate_sharding / redistribute (attributes device_mesh: a mesh global info, and
//     placement: canonical text), redistribute_replica_to_shard and call_tir_local_view;
//   - the "distributed" inference rules TVM registers as dist.FInferType for ordinary operators
//     (elementwise unary and binary, matmul, permute_dims, reshape, softmax, reductions). A call
//     with a DTensor argument uses them: the local result comes from the operator's own inference
//     on the tensors the DTensors carry, and its placement follows the tensor axes the result
//     inherits from sharded input axes (TVM's axis group propagation, one operator at a time).
#include <algorithm>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

// Output axis `out_axis` inherits input `arg`'s axis `axis`.
struct AxisEdge {
  size_t arg;
  int axis;
  int out_axis;
};
using EdgeFn = std::function<absl::StatusOr<std::vector<AxisEdge>>(const ir::relax::Call& local, const TensorInfo& out)>;

const DTensorTypeNode* DTensorArg(const ir::relax::Call& call, size_t i) {
  return i < call->args.size() ? ExprType(call->args[i]).as<DTensorTypeNode>() : nullptr;
}

absl::StatusOr<TensorInfo> ArgInfo(const ir::relax::Call& local, size_t i, const std::string& op) {
  return GetTensorInfo(ArgType(local, i), op, absl::StrCat("argument ", i));
}

// The rule for an operator TVM gives a dist.FInferType built on its ordinary inference.
InferFn DistRule(const std::string& op, InferFn local_infer, EdgeFn edges) {
  return [op, local_infer, edges](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    GlobalInfo mesh;
    Array<Expr> local_args;
    for (size_t i = 0; i < call->args.size(); ++i) {
      Type t = ExprType(call->args[i]);
      if (t.as<TensorTypeNode>()) {
        return OpError(op, "a distributed operator takes DTensors, not tensors, as inputs");
      }
      const auto* dt = t.as<DTensorTypeNode>();
      if (!dt) {
        local_args.push_back(call->args[i]);
        continue;
      }
      if (!mesh.defined()) {
        mesh = dt->device_mesh;
      } else if (!StructuralEqual(mesh, dt->device_mesh)) {
        return OpError(op, "its DTensor inputs are on different device meshes");
      }
      local_args.push_back(Var(absl::StrCat("local", i), Type(dt->tensor_ty)));
    }
    ir::relax::Call local(call->op, local_args, call->attrs, call->ty_args, call->span);
    absl::StatusOr<Type> out = local_infer(local);
    if (!out.ok()) return out.status();
    const auto* out_tt = out->as<TensorTypeNode>();
    if (!out_tt) return OpError(op, "the distributed rule expects a tensor result");
    absl::StatusOr<TensorInfo> out_info = GetTensorInfo(*out, op, "result");
    if (!out_info.ok()) return out_info.status();
    absl::StatusOr<std::vector<AxisEdge>> es = edges(local, *out_info);
    if (!es.ok()) return es.status();
    std::vector<int> placement(DeviceMeshShape(mesh).size(), kReplica);
    for (size_t i = 0; i < call->args.size(); ++i) {
      const DTensorTypeNode* dt = DTensorArg(call, i);
      if (!dt) continue;
      absl::StatusOr<std::vector<int>> in = ParsePlacement(dt->placement);
      if (!in.ok()) return in.status();
      for (size_t j = 0; j < in->size() && j < placement.size(); ++j) {
        if ((*in)[j] == kReplica || placement[j] != kReplica) continue;
        for (const AxisEdge& e : *es) {
          if (e.arg == i && e.axis == (*in)[j]) placement[j] = e.out_axis;
        }
      }
    }
    return Type(DTensorType(Downcast<TensorType>(*out), mesh, PlacementToString(placement)));
  };
}

absl::StatusOr<std::vector<AxisEdge>> SameAxes(const ir::relax::Call& local, const TensorInfo& out) {
  (void)local;
  std::vector<AxisEdge> es;
  for (int i = 0; i < out.ndim; ++i) es.push_back({0, i, i});
  return es;
}

// Broadcast: dims aligned from the right join when equal; a dim of 1 is broadcast and joins nothing.
absl::StatusOr<std::vector<AxisEdge>> BroadcastAxes(const ir::relax::Call& local, const TensorInfo& out) {
  std::vector<AxisEdge> es;
  absl::StatusOr<TensorInfo> a = ArgInfo(local, 0, "binary");
  absl::StatusOr<TensorInfo> b = ArgInfo(local, 1, "binary");
  if (!a.ok() || !b.ok() || !a->shape_known || !b->shape_known) {
    return absl::InvalidArgumentError("inputs of a distributed operator must have known shapes");
  }
  int n = std::min(a->ndim, b->ndim);
  for (int i = 1; i <= n; ++i) {
    const PrimExpr& d0 = a->shape[a->ndim - i];
    const PrimExpr& d1 = b->shape[b->ndim - i];
    bool one0 = AsConst(d0) == 1, one1 = AsConst(d1) == 1;
    if (ProveEqual(d0, d1) || (!one0 && !one1)) {
      es.push_back({0, a->ndim - i, out.ndim - i});
      es.push_back({1, b->ndim - i, out.ndim - i});
    } else if (one0) {
      es.push_back({1, b->ndim - i, out.ndim - i});
    } else {
      es.push_back({0, a->ndim - i, out.ndim - i});
    }
  }
  for (int i = 0; i < a->ndim - n; ++i) es.push_back({0, i, i});
  for (int i = 0; i < b->ndim - n; ++i) es.push_back({1, i, i});
  return es;
}

// Matmul: batch dims broadcast, x1's rows and x2's columns reach the result; the reduction axis
// does not (a result of sharded reductions is a partial sum, replicated in the type).
absl::StatusOr<std::vector<AxisEdge>> MatmulAxes(const ir::relax::Call& local, const TensorInfo& out) {
  std::vector<AxisEdge> es;
  absl::StatusOr<TensorInfo> a = ArgInfo(local, 0, "matmul");
  absl::StatusOr<TensorInfo> b = ArgInfo(local, 1, "matmul");
  if (!a.ok() || !b.ok() || !a->shape_known || !b->shape_known || a->ndim < 1 || b->ndim < 1) {
    return absl::InvalidArgumentError("inputs of a distributed operator must have known shapes");
  }
  bool a_vec = a->ndim == 1, b_vec = b->ndim == 1;
  int pa = a_vec ? 0 : a->ndim - 2, pb = b_vec ? 0 : b->ndim - 2;
  int prefix = std::max(pa, pb);
  for (int i = 1; i <= std::min(pa, pb); ++i) {
    const PrimExpr& d0 = a->shape[pa - i];
    const PrimExpr& d1 = b->shape[pb - i];
    bool one0 = AsConst(d0) == 1, one1 = AsConst(d1) == 1;
    if (ProveEqual(d0, d1) || (!one0 && !one1)) {
      es.push_back({0, pa - i, prefix - i});
      es.push_back({1, pb - i, prefix - i});
    } else if (one0) {
      es.push_back({1, pb - i, prefix - i});
    } else {
      es.push_back({0, pa - i, prefix - i});
    }
  }
  for (int i = 0; i < pa - std::min(pa, pb); ++i) es.push_back({0, i, i});
  for (int i = 0; i < pb - std::min(pa, pb); ++i) es.push_back({1, i, i});
  if (!a_vec) {
    es.push_back({0, a->ndim - 2, prefix});
    if (!b_vec) es.push_back({1, b->ndim - 1, prefix + 1});
  } else if (!b_vec) {
    es.push_back({1, b->ndim - 1, prefix});
  }
  (void)out;
  return es;
}

absl::StatusOr<std::vector<AxisEdge>> PermuteAxes(const ir::relax::Call& local, const TensorInfo& out) {
  std::vector<AxisEdge> es;
  std::optional<std::vector<int64_t>> axes = IntArrayAttr(local, "axes");
  for (int i = 0; i < out.ndim; ++i) {
    int64_t src = axes ? (*axes)[i] : out.ndim - 1 - i;
    if (src < 0) src += out.ndim;
    es.push_back({0, static_cast<int>(src), i});
  }
  return es;
}

// Reshape: walking both shapes from the right, an input axis reaches the output axis where the
// products of the dims to their right agree.
absl::StatusOr<std::vector<AxisEdge>> ReshapeAxes(const ir::relax::Call& local, const TensorInfo& out) {
  std::vector<AxisEdge> es;
  absl::StatusOr<TensorInfo> in = ArgInfo(local, 0, "reshape");
  if (!in.ok() || !in->shape_known || !out.shape_known) {
    return absl::InvalidArgumentError("inputs of a distributed operator must have known shapes");
  }
  int i = in->ndim, j = out.ndim;
  PrimExpr old_prod = Dim(1), new_prod = Dim(1);
  while (i > 0 && j > 0) {
    std::optional<int64_t> o = AsConst(old_prod), n = AsConst(new_prod);
    if (o && n && *n > *o) {
      old_prod = MulDim(old_prod, in->shape[--i]);
    } else if (o && n && *n < *o) {
      new_prod = MulDim(new_prod, out.shape[--j]);
    } else {
      if (i != in->ndim) es.push_back({0, i, j});
      --i;
      --j;
      old_prod = MulDim(old_prod, in->shape[i]);
      new_prod = MulDim(new_prod, out.shape[j]);
    }
  }
  return es;
}

// Reductions and softmax: the axes not reduced carry over (renumbered unless keepdims).
EdgeFn ReduceAxes(bool softmax) {
  return [softmax](const ir::relax::Call& local, const TensorInfo& out) -> absl::StatusOr<std::vector<AxisEdge>> {
    (void)out;
    absl::StatusOr<TensorInfo> in = ArgInfo(local, 0, "reduce");
    if (!in.ok() || in->ndim < 0) return absl::InvalidArgumentError("inputs of a distributed operator must have known ndim");
    std::unordered_set<int> reduced;
    bool keepdims = softmax || BoolAttr(local, "keepdims", false);
    if (softmax) {
      int64_t a = IntAttr(local, "axis").value_or(-1);
      reduced.insert(static_cast<int>(a < 0 ? a + in->ndim : a));
    } else if (std::optional<std::vector<int64_t>> axes = IntArrayAttr(local, "axis")) {
      for (int64_t a : *axes) reduced.insert(static_cast<int>(a < 0 ? a + in->ndim : a));
    } else {
      for (int k = 0; k < in->ndim; ++k) reduced.insert(k);
    }
    std::vector<AxisEdge> es;
    for (int k = 0, o = 0; k < in->ndim; ++k) {
      if (reduced.count(k)) {
        if (keepdims) ++o;
        continue;
      }
      es.push_back({0, k, o++});
    }
    return es;
  };
}

// ---- the R.dist and R.ccl operators

absl::StatusOr<std::vector<int>> PlacementAttr(const ir::relax::Call& call) {
  return ParsePlacement(StringAttr(call, "placement", ""));
}

absl::StatusOr<Type> DTensorWith(const std::string& op, const TensorType& t, const ObjectRef& mesh_ref,
                                 const std::vector<int>& placement) {
  GlobalInfo mesh = mesh_ref.as<GlobalInfoNode>() ? Downcast<GlobalInfo>(mesh_ref) : GlobalInfo();
  absl::Status st = CheckDTensorType(t, mesh, placement);
  if (!st.ok()) return OpError(op, std::string(st.message()));
  return Type(DTensorType(t, mesh, PlacementToString(placement)));
}

absl::StatusOr<Type> InferAnnotateSharding(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<std::vector<int>> p = PlacementAttr(call);
  if (!p.ok()) return OpError("dist.annotate_sharding", std::string(p.status().message()));
  if (t.as<TensorTypeNode>()) {
    absl::StatusOr<Type> checked = DTensorWith("dist.annotate_sharding", Downcast<TensorType>(t),
                                               call->attrs.Get(String("device_mesh")), *p);
    if (!checked.ok()) return checked.status();
  }
  return t;  // a hint for sharding propagation: the value keeps its type
}

absl::StatusOr<Type> InferRedistribute(const ir::relax::Call& call) {
  const auto* dt = ArgType(call, 0).as<DTensorTypeNode>();
  if (!dt) return OpError("dist.redistribute", "expects a DTensor, got " + TypeToString(ArgType(call, 0)));
  absl::StatusOr<std::vector<int>> p = PlacementAttr(call);
  if (!p.ok()) return OpError("dist.redistribute", std::string(p.status().message()));
  return DTensorWith("dist.redistribute", dt->tensor_ty, call->attrs.Get(String("device_mesh")), *p);
}

// Splits axis `axis` of a tensor into num_workers parts (scatter_from_worker0, the local view of
// redistribute_replica_to_shard).
absl::StatusOr<Type> SplitAxis(const std::string& op, const Type& t, int64_t num_workers, int64_t axis_in) {
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, op, "x");
  if (!x.ok()) return x.status();
  if (!x->shape_known) return OpError(op, "the input must have a known shape");
  absl::StatusOr<int> axis = NormalizeAxis(op, axis_in, x->ndim);
  if (!axis.ok()) return axis.status();
  if (num_workers <= 0) return OpError(op, "num_workers must be positive");
  PrimExpr& d = x->shape[*axis];
  if (std::optional<int64_t> c = AsConst(d); c && *c % num_workers != 0) {
    return OpError(op, absl::StrCat("axis ", *axis, " of size ", *c, " is not divisible by num_workers ", num_workers));
  }
  d = FloorDivDim(d, Dim(num_workers));
  return MakeTensorType(*x);
}

absl::StatusOr<Type> InferReplicaToShard(const ir::relax::Call& call) {
  const std::string op = "dist.redistribute_replica_to_shard";
  int64_t workers = IntAttr(call, "num_workers").value_or(0), axis = IntAttr(call, "axis").value_or(0);
  Type t = ArgType(call, 0);
  if (const auto* dt = t.as<DTensorTypeNode>()) {
    // The global view: same tensor, now sharded along `axis` (TVM supports 1-d meshes here).
    absl::StatusOr<std::vector<int>> p = ParsePlacement(dt->placement);
    if (!p.ok()) return p.status();
    if (p->size() != 1 || (*p)[0] != kReplica) return OpError(op, "expects a replicated DTensor on a 1-d mesh");
    absl::StatusOr<Type> local = SplitAxis(op, dt->tensor_ty, workers, axis);
    if (!local.ok()) return local.status();
    return DTensorWith(op, dt->tensor_ty, dt->device_mesh, {static_cast<int>(axis)});
  }
  return SplitAxis(op, t, workers, axis);
}

absl::StatusOr<Type> InferAllReduce(const ir::relax::Call& call) {
  std::string op_type = StringAttr(call, "op_type", "sum");
  static const char* kOps[] = {"sum", "prod", "min", "max", "avg"};
  if (std::find(std::begin(kOps), std::end(kOps), op_type) == std::end(kOps)) {
    return OpError("ccl.allreduce", "op_type must be one of sum, prod, min, max, avg; got \"" + op_type + "\"");
  }
  Type t = ArgType(call, 0);
  if (const auto* dt = t.as<DTensorTypeNode>()) {
    std::vector<int> all_replicated(DeviceMeshShape(dt->device_mesh).size(), kReplica);
    return Type(DTensorType(dt->tensor_ty, dt->device_mesh, PlacementToString(all_replicated)));
  }
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "ccl.allreduce", "x");
  if (!x.ok()) return x.status();
  return t;
}

absl::StatusOr<Type> InferAllGather(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "ccl.allgather", "x");
  if (!x.ok()) return x.status();
  int64_t workers = IntAttr(call, "num_workers").value_or(0);
  if (workers <= 0) return OpError("ccl.allgather", "num_workers must be positive");
  if (!x->shape_known || x->ndim < 1) return t;
  x->shape[0] = MulDim(x->shape[0], Dim(workers));
  return MakeTensorType(*x);
}

absl::StatusOr<Type> TensorIdentity(const ir::relax::Call& call) {
  Type t = ArgType(call, 0);
  absl::StatusOr<TensorInfo> x = GetTensorInfo(t, "ccl.broadcast_from_worker0", "x");
  if (!x.ok()) return x.status();
  return t;
}

absl::StatusOr<Type> InferCallTirLocalView(const ir::relax::Call& call) {
  const std::string op = "dist.call_tir_local_view";
  if (call->ty_args.size() != 1) return OpError(op, "requires one output type (out_ty)");
  if (call->args.empty() || !call->args[0].as<GlobalVarNode>()) return OpError(op, "the callee must be a PrimFunc");
  return call->ty_args[0];
}

}  // namespace

void RegisterDistributedOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "ccl.allreduce", {"x"}, {StringAttrSpec("op_type", "sum"), BoolAttrSpec("in_group", true)},
        InferAllReduce);
  AddOp(ops, "ccl.allgather", {"x"}, {RequiredIntAttrSpec("num_workers"), BoolAttrSpec("in_group", true)},
        InferAllGather);
  AddOp(ops, "ccl.broadcast_from_worker0", {"x"}, {}, TensorIdentity);
  AddOp(ops, "ccl.scatter_from_worker0", {"x"}, {RequiredIntAttrSpec("num_workers"), IntAttrSpec("axis", 0)},
        [](const ir::relax::Call& call) -> absl::StatusOr<Type> {
          return SplitAxis("ccl.scatter_from_worker0", ArgType(call, 0), IntAttr(call, "num_workers").value_or(0),
                           IntAttr(call, "axis").value_or(0));
        });
  AddOp(ops, "dist.annotate_sharding", {"input"}, {AnyAttrSpec("device_mesh"), StringAttrSpec("placement", "")},
        InferAnnotateSharding);
  AddOp(ops, "dist.redistribute", {"input"}, {AnyAttrSpec("device_mesh"), StringAttrSpec("placement", "")},
        InferRedistribute);
  AddOp(ops, "dist.redistribute_replica_to_shard", {"input"},
        {RequiredIntAttrSpec("num_workers"), RequiredIntAttrSpec("axis")}, InferReplicaToShard);
  AddOp(ops, "dist.call_tir_local_view", {"func", "args"}, {}, InferCallTirLocalView).ty_args_keyword = "out_ty";
}

void AddDistributedInference(std::vector<OpSchema>* ops) {
  static const char* kUnary[] = {"abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil",
                                 "cos", "cosh", "exp", "floor", "log", "logical_not", "negative", "round", "rsqrt",
                                 "sigmoid", "sign", "sin", "sinh", "square", "sqrt", "tan", "tanh", "erf",
                                 "isfinite", "isinf", "isnan", "nn.relu", "nn.gelu", "nn.gelu_tanh", "nn.silu"};
  static const char* kBinary[] = {"add", "divide", "floor_divide", "multiply", "power", "subtract", "mod",
                                  "floor_mod", "equal", "greater", "greater_equal", "less", "less_equal",
                                  "not_equal", "minimum", "maximum", "logical_and", "logical_or", "logical_xor",
                                  "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"};
  static const char* kReduce[] = {"max", "mean", "min", "prod", "std", "sum", "variance"};
  auto in = [](const std::string& s, const auto& list) {
    return std::find(std::begin(list), std::end(list), s) != std::end(list);
  };
  for (OpSchema& s : *ops) {
    const std::string& n = s.script_name;
    EdgeFn edges;
    if (in(n, kUnary)) edges = SameAxes;
    else if (in(n, kBinary)) edges = BroadcastAxes;
    else if (in(n, kReduce)) edges = ReduceAxes(false);
    else if (n == "nn.softmax") edges = ReduceAxes(true);
    else if (n == "matmul") edges = MatmulAxes;
    else if (n == "permute_dims") edges = PermuteAxes;
    else if (n == "reshape") edges = ReshapeAxes;
    if (edges) {
      s.dist_infer = DistRule(n, s.infer, edges);
    } else if (n == "builtin.stop_lift_params") {
      s.dist_infer = [](const ir::relax::Call& call) -> absl::StatusOr<Type> { return ArgType(call, 0); };
    } else if (n == "call_tir" || n == "call_packed" || n == "dist.annotate_sharding" ||
               n == "dist.redistribute" || n == "dist.redistribute_replica_to_shard" || n == "ccl.allreduce") {
      // These rules handle DTensors themselves (R.call_packed is typed by ty_args; in TVM it is
      // a call of an ExternFunc, not an operator).
      s.dist_infer = s.infer;
    }
  }
}

}  // namespace kiln::relax
