#include <set>

#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Registry, LookupAndCoverage) {
  const OpRegistry& r = OpRegistry::Global();
  const OpSchema* conv = r.FindByScriptName("nn.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->name, "relax.nn.conv2d");
  EXPECT_EQ(r.FindByName("relax.nn.conv2d"), conv);
  EXPECT_EQ(r.FindByName("relax.nope"), nullptr);
  for (const char* name :
       {"add", "floor_divide", "logical_xor", "right_shift", "exp", "rsqrt", "isfinite", "clip", "matmul", "astype",
        "reshape", "permute_dims", "expand_dims", "squeeze", "flatten", "concat", "split", "broadcast_to", "where",
        "take", "strided_slice", "cumsum", "cumprod", "sum", "mean", "std", "variance", "argmax", "argmin", "full",
        "zeros", "ones", "full_like", "zeros_like", "ones_like", "arange", "tril", "triu", "nn.relu", "nn.gelu",
        "nn.silu", "nn.softmax", "nn.log_softmax", "nn.layer_norm", "nn.batch_norm", "nn.rms_norm", "nn.conv2d",
        "nn.max_pool2d", "nn.avg_pool2d", "nn.adaptive_avg_pool2d", "nn.dropout", "nn.pad", "image.resize2d",
        "memory.alloc_storage", "memory.alloc_tensor", "memory.kill_storage", "memory.kill_tensor",
        "vm.alloc_storage", "vm.alloc_tensor", "vm.kill_object", "vm.call_tir_dyn", "builtin.alloc_tensor",
        "shape_of", "tensor_to_shape", "shape_to_tensor", "print", "assert_op", "null_value", "make_closure",
        "invoke_closure", "call_builtin_with_ctx", "call_tir", "call_tir_inplace", "call_dps_packed", "call_packed",
        "call_pure_packed"}) {
    EXPECT_NE(r.FindByScriptName(name), nullptr) << name;
  }
  // Every schema's IR name is "relax." + its script name, and names are unique.
  std::set<std::string> names;
  for (const OpSchema& s : r.ops()) {
    EXPECT_EQ(s.name, "relax." + s.script_name);
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_TRUE(s.infer) << s.name;
  }
}

TEST(NormalizeAttrs, DefaultsConversionAndOrder) {
  const OpSchema& sum = *OpRegistry::Global().FindByScriptName("sum");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> a =
      NormalizeAttrs(sum, {{"axis", ir::Array<ir::ObjectRef>{ir::IntImm(ir::DataType::Int(32), 1)}}});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ(a->key_at(0).str(), "axis");
  auto axis = ir::Downcast<ir::Array<ir::IntImm>>(a->value_at(0));
  ASSERT_EQ(axis.size(), 1u);
  EXPECT_EQ(axis[0]->dtype, ir::DataType::Int(64));
  EXPECT_EQ(axis[0]->value, 1);
  const auto* keep = a->value_at(1).as<ir::IntImmNode>();
  ASSERT_NE(keep, nullptr);
  EXPECT_TRUE(keep->dtype.is_bool());
  EXPECT_EQ(keep->value, 0);

  // axis=None stays a null ref.
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> none = NormalizeAttrs(sum, {{"axis", ir::ObjectRef()}});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->value_at(0).defined());

  const OpSchema& ln = *OpRegistry::Global().FindByScriptName("nn.layer_norm");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> l =
      NormalizeAttrs(ln, {{"axes", Ints({-1})}, {"epsilon", ir::FloatImm(ir::DataType::Float(32), 1e-5f)}});
  ASSERT_TRUE(l.ok());
  const auto* eps = l->Get("epsilon").as<ir::FloatImmNode>();
  ASSERT_NE(eps, nullptr);
  EXPECT_EQ(eps->dtype, ir::DataType::Float(64));

  const OpSchema& astype = *OpRegistry::Global().FindByScriptName("astype");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> d = NormalizeAttrs(astype, {{"dtype", ir::String("float16")}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->Get("dtype").as<ir::relax::DataTypeImmNode>()->value, ir::DataType::Float(16));

  // R.cumsum(x, exclusive=None) means exclusive=False, as TVM's wrapper maps it; keepdims=None
  // of R.sum stays an error.
  const OpSchema& cumsum = *OpRegistry::Global().FindByScriptName("cumsum");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> c = NormalizeAttrs(cumsum, {{"exclusive", ir::ObjectRef()}});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_NE(c->Get("exclusive").as<ir::IntImmNode>(), nullptr);
  EXPECT_EQ(c->Get("exclusive").as<ir::IntImmNode>()->value, 0);
  EXPECT_TRUE(IsInvalidArgument(NormalizeAttrs(sum, {{"keepdims", ir::ObjectRef()}}),
                                "R.sum: attribute 'keepdims' cannot be None"));
}

TEST(NormalizeAttrs, Errors) {
  const OpSchema& sum = *OpRegistry::Global().FindByScriptName("sum");
  absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> bad = NormalizeAttrs(sum, {{"axes", Ints({1})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  EXPECT_NE(bad.status().message().find("unexpected keyword argument 'axes'"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(NormalizeAttrs(sum, {{"keepdims", ir::String("yes")}}),
                                "R.sum: attribute 'keepdims' expects a bool"));
  EXPECT_TRUE(IsInvalidArgument(NormalizeAttrs(sum, {{"axis", Ints({1})}, {"axis", Ints({2})}}),
                                "R.sum: got multiple values for argument 'axis'"));
  const OpSchema& astype = *OpRegistry::Global().FindByScriptName("astype");
  EXPECT_TRUE(IsInvalidArgument(NormalizeAttrs(astype, {}), "R.astype: missing required argument 'dtype'"));
  EXPECT_TRUE(IsInvalidArgument(NormalizeAttrs(astype, {{"dtype", ir::String("floaty")}}),
                                "R.astype: attribute 'dtype' expects a valid dtype string"));
}

TEST(NormalizeArgs, CountsAndDefaults) {
  const OpSchema& add = *OpRegistry::Global().FindByScriptName("add");
  EXPECT_TRUE(IsInvalidArgument(NormalizeArgs(add, {V("x", Tensor({1}))}),
                                "R.add: expects 2 positional argument(s), got 1"));
  EXPECT_TRUE(IsInvalidArgument(NormalizeArgs(add, {V("x", Tensor({1})), V("y", Tensor({1})), V("z", Tensor({1}))}),
                                "R.add: expects 2 positional argument(s), got 3"));
  const OpSchema& packed = *OpRegistry::Global().FindByScriptName("call_packed");
  absl::StatusOr<ir::Array<ir::Expr>> p = NormalizeArgs(packed, {ir::relax::ExternFunc("f")});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->size(), 1u);
}

TEST(AttrsInPrintOrder, FollowsSchema) {
  const OpSchema& softmax = *OpRegistry::Global().FindByScriptName("nn.softmax");
  auto printed = AttrsInPrintOrder(softmax, {});
  ASSERT_EQ(printed.size(), 1u);
  EXPECT_EQ(printed[0].first, "axis");
  EXPECT_EQ(printed[0].second.as<ir::IntImmNode>()->value, -1);
}

TEST(InferCallType, GlobalVarCalleeBindsSymbolicDims) {
  ir::Var n = SymVar("n");
  ir::Var p = V("p", Tensor({n, 4}));
  ir::relax::Function f({p}, ir::relax::SeqExpr({}, p), Tensor({ir::Mul(n, Dim(2))}));
  ir::IRModule mod = ir::IRModule::Make();
  mod.Add(ir::GlobalVar("f"), f);
  mod.Add(ir::GlobalVar("prim"), ir::PrimFunc({}, ir::Stmt()));
  ir::relax::Call call(ir::GlobalVar("f"), {V("x", Tensor({8, 4}))});
  EXPECT_EQ(Str(InferCallType(call, mod)), "R.Tensor((16,), dtype=\"float32\")");
  ir::relax::Call bad(ir::GlobalVar("f"), {V("x", Tensor({8, 5}))});
  EXPECT_TRUE(IsInvalidArgument(InferCallType(bad, mod), "R.call: argument 0 of f has type R.Tensor((8, 5)"));
  ir::relax::Call arity(ir::GlobalVar("f"), {});
  EXPECT_TRUE(IsInvalidArgument(InferCallType(arity, mod), "R.call: f expects 1 argument(s), got 0"));
  // A PrimFunc called directly (after memory planning) returns nothing: the empty tuple.
  ir::relax::Call prim(ir::GlobalVar("prim"), {});
  EXPECT_EQ(Str(InferCallType(prim, mod)), "R.Tuple()");
  ir::relax::Call missing(ir::GlobalVar("nope"), {});
  EXPECT_TRUE(IsInvalidArgument(InferCallType(missing, mod), "R.call: cannot find function 'nope' in the module"));
}

TEST(InferCallType, FillsMissingAttrsForHandBuiltCalls) {
  ir::relax::Call call(ir::Op("relax.sum"), {V("x", Tensor({3, 4}))});
  EXPECT_EQ(Str(InferCallType(call, ir::IRModule())), "R.Tensor((), dtype=\"float32\")");
  ir::relax::Call unknown(ir::Op("relax.frobnicate"), {});
  EXPECT_TRUE(IsInvalidArgument(InferCallType(unknown, ir::IRModule()), "unknown Relax operator 'relax.frobnicate'"));
}

TEST(InferExprType, LeavesAndControlFlow) {
  ir::Var t = V("t", ir::TupleType({Tensor({4}), Tensor({2})}));
  EXPECT_EQ(Str(InferExprType(ir::relax::TupleGetItem(t, 1), ir::IRModule())), "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(InferExprType(ir::relax::TupleGetItem(t, 2), ir::IRModule()),
                                "tuple index 2 is out of range"));
  ir::Var a = V("a", Tensor({4})), b = V("b", Tensor({5}));
  ir::Expr ife = ir::relax::If(V("c", Tensor({}, "bool")), ir::relax::SeqExpr({}, a), ir::relax::SeqExpr({}, b));
  EXPECT_EQ(Str(InferExprType(ife, ir::IRModule())), "R.Tensor(ndim=1, dtype=\"float32\")");
  EXPECT_EQ(Str(InferExprType(Shape({2, 3}), ir::IRModule())), "R.Shape([2, 3])");
}

TEST(TypesCompatible, Rules) {
  std::string why;
  EXPECT_FALSE(TypesCompatible(Tensor({3}), Tensor({4}), &why));
  EXPECT_NE(why.find("shape"), std::string::npos);
  EXPECT_TRUE(TypesCompatible(TensorNdim(2), Tensor({3, 4}), &why));
  EXPECT_FALSE(TypesCompatible(TensorNdim(1), Tensor({3, 4}), &why));
  EXPECT_FALSE(TypesCompatible(Tensor({3}, "int32"), Tensor({3}), &why));
  EXPECT_TRUE(TypesCompatible(Tensor({SymVar("n")}), Tensor({3}), &why));
  EXPECT_FALSE(TypesCompatible(Tensor({3}), ir::ShapeType(1), &why));
  EXPECT_TRUE(TypesCompatible(ir::AnyType::Make(), Tensor({3}), &why));
}

TEST(Registry, ScriptFunctions) {
  const OpRegistry& r = OpRegistry::Global();
  for (const char* name : {"linear", "nn.relu6"}) {
    const OpSchema* s = r.FindByScriptName(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_TRUE(s->expand) << name;
  }
  // R.nn.attention parses through the script function; printing finds the 3-argument operator.
  EXPECT_TRUE(r.FindByScriptName("nn.attention")->expand);
  ASSERT_NE(r.FindByName("relax.nn.attention"), nullptr);
  EXPECT_EQ(r.FindByName("relax.nn.attention")->args.size(), 3u);
  for (const OpSchema& s : r.ops()) EXPECT_FALSE(s.expand) << s.name;
  for (const char* name :
       {"argsort", "sort", "topk", "bucketize", "collapse_sum_like", "einsum", "ewise_fma", "eye", "eye_like",
        "hamming_window", "gather_elements", "gather_nd", "scatter_elements", "scatter_nd", "slice_scatter",
        "index_put", "index_tensor", "dynamic_strided_slice", "median", "meshgrid", "multinomial_from_uniform",
        "nonzero", "one_hot", "quantize", "dequantize", "repeat", "reverse_sequence", "stack", "tile", "unique",
        "hint_on_device", "to_vdevice", "invoke_pure_closure", "call_inplace_packed", "builtin.stop_lift_params",
        "wrap_param", "size", "nn.pixel_shuffle", "nn.instance_norm", "nn.cross_entropy_with_logits", "nn.nll_loss",
        "nn.attention_bias", "nn.attention_var_len", "nn.batch_flatten", "image.resize3d", "image.grid_sample",
        "image.affine_grid"}) {
    EXPECT_NE(r.FindByScriptName(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace kiln::relax::testing
