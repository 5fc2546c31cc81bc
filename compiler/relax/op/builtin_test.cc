#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Builtin, ShapeConversions) {
  ir::Var b = SymVar("b");
  EXPECT_EQ(Str(Infer("shape_of", {V("x", Tensor({b, 3, 2}))})), "R.Shape([b, 3, 2])");
  EXPECT_EQ(Str(Infer("shape_of", {V("x", TensorNdim(2))})), "R.Shape(ndim=2)");
  EXPECT_EQ(Str(Infer("tensor_to_shape", {V("t", Tensor({3}, "int64"))})), "R.Shape(ndim=3)");
  EXPECT_TRUE(IsInvalidArgument(Infer("tensor_to_shape", {V("t", Tensor({3, 1}, "int64"))}),
                                "R.tensor_to_shape: expects a 1-D tensor"));
  EXPECT_EQ(Str(Infer("shape_to_tensor", {Shape({4, 5})})), "R.Tensor((2,), dtype=\"int64\")");
}

TEST(Builtin, Memory) {
  ir::Expr dt = ir::relax::DataTypeImm(ir::DataType::Float(16));
  ir::Expr zero = ir::relax::PrimValue(I(0));
  ir::Var storage = V("s", ir::AnyType::Make());
  EXPECT_EQ(Str(Infer("memory.alloc_storage", {Shape({64}), zero, ir::relax::StringImm("global"), dt})), "R.Any");
  EXPECT_EQ(Str(Infer("memory.alloc_tensor", {storage, zero, Shape({4, 8}), dt})), "R.Tensor((4, 8), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("vm.alloc_tensor", {storage, zero, Shape({4}), dt})), "R.Tensor((4,), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("builtin.alloc_tensor", {Shape({2}), dt, zero})), "R.Tensor((2,), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("memory.kill_storage", {storage})), "R.Tuple()");
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.alloc_tensor", {storage, zero, Shape({4}), zero}),
                                "R.memory.alloc_tensor: expects a dtype"));
  // TVM counts allocations as pure; freeing is an effect.
  for (const char* pure : {"memory.alloc_storage", "memory.alloc_tensor", "vm.alloc_storage", "vm.alloc_tensor",
                           "builtin.alloc_tensor", "grad.start_checkpoint"}) {
    EXPECT_TRUE(OpRegistry::Global().FindByScriptName(pure)->is_pure) << pure;
  }
  for (const char* impure : {"memory.kill_storage", "memory.kill_tensor", "vm.kill_object", "vm.call_tir_dyn"}) {
    EXPECT_FALSE(OpRegistry::Global().FindByScriptName(impure)->is_pure) << impure;
  }
  EXPECT_EQ(Str(Infer("grad.end_checkpoint", {V("x", Tensor({3}))})), "R.Tensor((3,), dtype=\"float32\")");
}

TEST(Builtin, MemoryView) {
  ir::Var x = V("x", Tensor({4, 8}));
  ir::relax::Call null(ir::Op("relax.null_value"), {});
  null.CopyOnWrite()->ty = ir::AnyType::Make();
  EXPECT_EQ(Str(Infer("memory.view", {x})), "R.Tensor((4, 8), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("memory.view", {x, Shape({32})})), "R.Tensor((32,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("memory.view", {x, null, ir::relax::DataTypeImm(ir::DataType::Int(32))})),
            "R.Tensor((4, 8), dtype=\"int32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {Shape({4})}),
                                "R.memory.view: expects a tensor for argument 'data'"));
  EXPECT_EQ(Str(Infer("memory.ensure_zero_offset", {x})), "R.Tensor((4, 8), dtype=\"float32\")");
}

// TVM's view inference rejects views that provably end past the data, and malformed arguments.
TEST(Builtin, MemoryViewBounds) {
  ir::Var x = V("x", Tensor({16}, "uint8"));
  ir::relax::Call null(ir::Op("relax.null_value"), {});
  null.CopyOnWrite()->ty = ir::AnyType::Make();
  auto dtype = [](const char* d) { return ir::relax::DataTypeImm(*ir::DataType::Parse(d)); };
  auto offset = [](int64_t v) { return ir::relax::PrimValue(ir::IntImm(ir::DataType::Int(64), v)); };
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {x, Shape({17})}), "the view ends past"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {V("z", ir::TensorType(ir::Array<ir::PrimExpr>{ir::IntImm(ir::DataType::Int(64), 16)}, ir::DataType::Void())), Shape({4, 5})}), "more elements than the data"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {x, null, dtype("float16")}), "the view ends past"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {x, Shape({8}), dtype("float16"), offset(2)}), "the view ends past"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {x, null, dtype("void")}), "not void"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {x, offset(42)}), "expects a shape"));
  EXPECT_TRUE(IsInvalidArgument(Infer("memory.view", {V("y", ir::TensorType(ir::DataType::Void(), -1)), null, null, offset(16)}),
                                "a non-zero offset"));
  // Within bounds: a smaller view at an offset, the same bytes as another dtype.
  EXPECT_EQ(Str(Infer("memory.view", {x, Shape({4}), dtype("float16"), offset(8)})), "R.Tensor((4,), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("memory.view", {x, Shape({8}), dtype("float16")})), "R.Tensor((8,), dtype=\"float16\")");
  EXPECT_EQ(Str(Infer("memory.view", {x, Shape({8})})), "R.Tensor((8,), dtype=\"uint8\")");
  // R.tuple() (void) leaves an argument unset, as R.null_value() does.
  EXPECT_EQ(Str(Infer("memory.view", {x, Shape({1, 16}), ir::relax::Tuple(ir::Array<ir::Expr>{}), ir::relax::Tuple(ir::Array<ir::Expr>{})})),
            "R.Tensor((1, 16), dtype=\"uint8\")");
  // A dtype in a variable is known only at run time.
  EXPECT_EQ(Str(Infer("memory.view", {x, null, V("d", ir::AnyType::Make())})), "R.Tensor((16,))");
}

TEST(Builtin, Effects) {
  ir::Var x = V("x", Tensor({2}));
  EXPECT_EQ(Str(Infer("print", {ir::relax::StringImm("{}"), x})), "R.Tuple()");
  EXPECT_EQ(Str(Infer("assert_op", {V("c", Tensor({}, "bool")), ir::relax::StringImm("bad")})), "R.Tuple()");
  EXPECT_TRUE(IsInvalidArgument(Infer("assert_op", {V("c", Tensor({2}, "bool")), ir::relax::StringImm("bad")}),
                                "R.assert_op: the condition must be a scalar"));
  EXPECT_EQ(Str(Infer("null_value", {})), "R.Any");
}

TEST(Builtin, SizeDevicesAndStopLiftParams) {
  ir::Var x = V("x", Tensor({2, 3}));
  EXPECT_EQ(Str(Infer("size", {x})), "R.Tensor((), dtype=\"int64\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("size", {Shape({2})}), "R.size: expects a tensor, got R.Shape([2])"));
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("to_vdevice", {x}, {{"dst_vdevice", ir::String("cuda:0")}}, {}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(ir::Downcast<ir::String>((*c)->attrs.Get(ir::String("dst_vdevice"))).str(), "cuda:0:global");
  const auto* tt = (*c)->ty.as<ir::TensorTypeNode>();
  ASSERT_NE(tt, nullptr);
  EXPECT_EQ(tt->vdevice, "cuda:0");
  EXPECT_TRUE(IsInvalidArgument(Infer("to_vdevice", {x}),  // dst_vdevice is required
                                "R.to_vdevice: missing required argument 'dst_vdevice'"));
  EXPECT_EQ(Str(Infer("hint_on_device", {x}, {{"device_type", I(2)}, {"index", I(0)}})), "R.Tensor((2, 3), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("hint_on_device", {x}, {{"device_type", I(2)}}),  // index is required
                                "R.hint_on_device: missing required argument 'index'"));
  EXPECT_EQ(Str(Infer("builtin.stop_lift_params", {x})), "R.Tensor((2, 3), dtype=\"float32\")");
}

TEST(Builtin, AllocTensorDtypeAsString) {
  // R.vm.alloc_tensor(storage, offset=0, shape=..., dtype="int32"): the string becomes a dtype.
  ir::Var storage = V("s", ir::AnyType::Make());
  absl::StatusOr<ir::relax::Call> c = MakeOpCall(
      "vm.alloc_tensor", {storage, ir::relax::PrimValue(I(0)), Shape({4}), ir::relax::StringImm("int32")}, {}, {},
      ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((4,), dtype=\"int32\")");
  ASSERT_NE((*c)->args[3].as<ir::relax::DataTypeImmNode>(), nullptr);
  // runtime_device_index is filled in as TVM's wrapper does: R.prim_value(0).
  ASSERT_EQ((*c)->args.size(), 5u);
  EXPECT_EQ(AsConst((*c)->args[4].as<ir::relax::PrimValueNode>()->value), std::optional<int64_t>(0));
  EXPECT_TRUE(IsInvalidArgument(Infer("vm.alloc_tensor", {storage, ir::relax::PrimValue(I(0)), Shape({4}), ir::relax::StringImm("int33x")}),
                                "R.vm.alloc_tensor: 'int33x' is not a valid dtype"));
}

}  // namespace
}  // namespace kiln::relax::testing
