#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

TEST(Reduce, AxesAndKeepdims) {
  ir::Var x = V("x", Tensor({3, 4, 5}));
  EXPECT_EQ(Str(Infer("sum", {x}, {{"axis", Ints({1})}})), "R.Tensor((3, 5), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("mean", {x}, {{"axis", Ints({0, 2})}})), "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("max", {x}, {{"axis", Ints({-1})}, {"keepdims", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((3, 4, 1), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("prod", {x})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("variance", {x}, {{"keepdims", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((1, 1, 1), dtype=\"float32\")");
  // An int for a list attribute is accepted as [int] (as TVM's Python wrapper does).
  EXPECT_EQ(Str(Infer("sum", {x}, {{"axis", ir::IntImm(ir::DataType::Int(32), 2)}})),
            "R.Tensor((3, 4), dtype=\"float32\")");
}

TEST(Reduce, Errors) {
  ir::Var x = V("x", Tensor({3, 4}));
  EXPECT_TRUE(IsInvalidArgument(Infer("sum", {x}, {{"axis", Ints({2})}}),
                                "R.sum: axis 2 is out of range for a tensor of rank 2"));
  EXPECT_TRUE(IsInvalidArgument(Infer("sum", {x}, {{"axis", Ints({1, -1})}}), "R.sum: axis -1 appears more than once"));
}

TEST(Reduce, UnknownShape) {
  EXPECT_EQ(Str(Infer("sum", {V("x", TensorNdim(3))}, {{"axis", Ints({1})}})), "R.Tensor(ndim=2, dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("sum", {V("x", TensorNdim(-1))})), "R.Tensor((), dtype=\"float32\")");
}

TEST(Reduce, ArgmaxAndScan) {
  ir::Var x = V("x", Tensor({3, 4}));
  EXPECT_EQ(Str(Infer("argmax", {x}, {{"axis", I(1)}})), "R.Tensor((3,), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("argmin", {x})), "R.Tensor((), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("cumsum", {V("c", Tensor({10}, "int32"))}, {{"axis", I(0)}, {"dtype", ir::String("int64")}})),
            "R.Tensor((10,), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("cumprod", {x})), "R.Tensor((12,), dtype=\"float32\")");
}

TEST(Median, TupleForOneAxis) {
  ir::Var x = V("x", Tensor({3, 4, 5}));
  EXPECT_EQ(Str(Infer("median", {x})), "R.Tensor((), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("median", {x}, {{"axis", Ints({1})}})),
            "R.Tuple(R.Tensor((3, 5), dtype=\"float32\"), R.Tensor((3, 5), dtype=\"int64\"))");
  EXPECT_EQ(Str(Infer("median", {x}, {{"axis", Ints({0, 2})}, {"keepdims", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((1, 4, 1), dtype=\"float32\")");
}

TEST(Sorting, SortArgsortTopk) {
  ir::Var x = V("x", Tensor({4, 8}));
  EXPECT_EQ(Str(Infer("sort", {x})), "R.Tensor((4, 8), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("sort", {x}, {{"axis", I(2)}}),
                                "R.sort: axis 2 is out of range for a tensor of rank 2"));
  EXPECT_EQ(Str(Infer("argsort", {x})), "R.Tensor((4, 8), dtype=\"int32\")");  // dtype defaults to int32
  EXPECT_EQ(Str(Infer("argsort", {x}, {{"dtype", ir::String("int64")}})), "R.Tensor((4, 8), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("topk", {x}, {{"k", I(3)}})),
            "R.Tuple(R.Tensor((4, 3), dtype=\"float32\"), R.Tensor((4, 3), dtype=\"int32\"))");
  EXPECT_EQ(Str(Infer("topk", {x}, {{"k", I(2)}, {"axis", I(0)}, {"ret_type", ir::String("values")}})),
            "R.Tensor((2, 8), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("topk", {x}, {{"k", I(20)}, {"ret_type", ir::String("indices")}})),
            "R.Tensor((4, 8), dtype=\"int32\")");  // k beyond the extent keeps it
  EXPECT_TRUE(IsInvalidArgument(Infer("topk", {x}, {{"ret_type", ir::String("all")}}),
                                "R.topk: ret_type must be \"both\", \"values\" or \"indices\""));
}

TEST(Search, BucketizeUniqueNonzero) {
  ir::Var x = V("x", Tensor({3, 4}));
  ir::Var b = V("b", Tensor({5}));
  EXPECT_EQ(Str(Infer("bucketize", {x, b})), "R.Tensor((3, 4), dtype=\"int64\")");
  EXPECT_EQ(Str(Infer("bucketize", {x, b}, {{"out_int32", ir::IntImm(ir::DataType::Bool(), 1)}})),
            "R.Tensor((3, 4), dtype=\"int32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("bucketize", {x, V("c", Tensor({5, 1}))}),
                                "R.bucketize: boundaries must be 1-D, got rank 2"));
  absl::StatusOr<ir::relax::Call> u = MakeOpCall("unique", {x}, {}, {}, ir::IRModule());
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->args.size(), 5u);  // sorted and the three flags are filled in
  EXPECT_EQ(Str((*u)->ty), "R.Tensor(ndim=1, dtype=\"float32\")");
  ir::Expr t = ir::relax::PrimValue(ir::IntImm(ir::DataType::Bool(), 1));
  ir::Expr f = ir::relax::PrimValue(ir::IntImm(ir::DataType::Bool(), 0));
  EXPECT_EQ(Str(Infer("unique", {x, t, t, f, t})),
            "R.Tuple(R.Tensor(ndim=1, dtype=\"float32\"), R.Tensor(ndim=1, dtype=\"int64\"), "
            "R.Tensor(ndim=1, dtype=\"int64\"))");
  EXPECT_EQ(Str(Infer("unique", {x, t, f, f, f, ir::relax::PrimValue(I(1))})), "R.Tensor(ndim=2, dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("unique", {x, t, f, f, f, ir::relax::PrimValue(I(2))}),
                                "R.unique: axis 2 is out of range for a tensor of rank 2"));
  EXPECT_EQ(Str(Infer("nonzero", {x})), "R.Tensor(ndim=2, dtype=\"int64\")");
}

TEST(Sampling, MultinomialFromUniform) {
  ir::Var p = V("p", Tensor({2, 10}));
  ir::Var u = V("u", Tensor({3, 1}));
  ir::Var i = V("i", Tensor({3, 1}, "int64"));
  EXPECT_EQ(Str(Infer("multinomial_from_uniform", {p, u, i})), "R.Tensor((3, 1), dtype=\"int64\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("multinomial_from_uniform", {p, u, V("j", Tensor({4, 1}, "int64"))}),
                                "R.multinomial_from_uniform: uniform_sample and sample_indices must have the same number of rows"));
  EXPECT_TRUE(IsInvalidArgument(Infer("multinomial_from_uniform", {p, u, V("j", Tensor({3, 1}))}),  // float indices
                                "R.multinomial_from_uniform: sample_indices must have an integer dtype"));
}

}  // namespace
}  // namespace kiln::relax::testing
