#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"

namespace kiln::relax::testing {
namespace {

TEST(Builtin, ShapeConversions) {
  ir::Var b = SymVar("b");
  EXPECT_EQ(Str(Infer("shape_of", {V("x", Tensor({b, 3, 2}))})), "R.Shape([b, 3, 2])");
  EXPECT_EQ(Str(Infer("shape_of", {V("x", TensorNdim(2))})), "R.Shape(ndim=2)");
  EXPECT_EQ(Str(Infer("tensor_to_shape", {V("t", Tensor({3}, "int64"))})), "R.Shape(ndim=3)");
  EXPECT_FALSE(Infer("tensor_to_shape", {V("t", Tensor({3, 1}, "int64"))}).ok());
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
  EXPECT_FALSE(Infer("memory.alloc_tensor", {storage, zero, Shape({4}), zero}).ok());
  EXPECT_FALSE(OpRegistry::Global().FindByScriptName("memory.alloc_storage")->is_pure);
}

TEST(Builtin, Effects) {
  ir::Var x = V("x", Tensor({2}));
  EXPECT_EQ(Str(Infer("print", {ir::relax::StringImm("{}"), x})), "R.Tuple()");
  EXPECT_EQ(Str(Infer("assert_op", {V("c", Tensor({}, "bool")), ir::relax::StringImm("bad")})), "R.Tuple()");
  EXPECT_FALSE(Infer("assert_op", {V("c", Tensor({2}, "bool")), ir::relax::StringImm("bad")}).ok());
  EXPECT_EQ(Str(Infer("null_value", {})), "R.Any");
}

}  // namespace
}  // namespace kiln::relax::testing
