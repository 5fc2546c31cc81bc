// MatmulKernel against a reference computed here with numpy's matmul semantics, on the reference
// interpreter and on LLVM: sizes that are and are not multiples of the 6x16 tile and of the
// 4-tile row groups, k deeper than one 128 block, broadcast batch dims, 1-D operands, and a
// symbolic row count.
#include "compiler/relax/legalize/linalg.h"

#include <algorithm>

#include "compiler/relax/legalize/kernel_testing.h"
#include "compiler/script/printer/printer.h"
#include "gtest/gtest.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::legalize {
namespace {

using ir::DataType;
using ir::PrimExpr;
using kernel_testing::F;
using kernel_testing::RandomF32;

std::vector<PrimExpr> Dims(const std::vector<int64_t>& s) {
  std::vector<PrimExpr> d;
  for (int64_t x : s) d.push_back(Int64(x));
  return d;
}

// numpy.matmul on float32 tensors, in double; *out_shape receives the result's shape.
std::vector<double> Reference(const runtime::Tensor& a, const runtime::Tensor& b, std::vector<int64_t>* out_shape) {
  std::vector<int64_t> as = a.shape(), bs = b.shape();
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  size_t batch = std::max(as.size(), bs.size()) - 2;
  std::vector<int64_t> ob(batch);
  for (size_t d = 0; d < batch; ++d) {
    int64_t x = d + as.size() - 2 >= batch ? as[d + as.size() - 2 - batch] : 1;
    int64_t y = d + bs.size() - 2 >= batch ? bs[d + bs.size() - 2 - batch] : 1;
    ob[d] = std::max(x, y);
  }
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  int64_t nb = 1;
  for (int64_t x : ob) nb *= x;
  std::vector<double> out(nb * m * n);
  for (int64_t t = 0; t < nb; ++t) {
    // Offsets of batch t in a and b (broadcast dims stay at 0).
    int64_t rem = t, ao = 0, bo = 0, astride = m * k, bstride = k * n;
    for (int d = static_cast<int>(batch) - 1; d >= 0; --d) {
      int64_t i = rem % ob[d];
      rem /= ob[d];
      int ad = d - static_cast<int>(batch) + static_cast<int>(as.size()) - 2;
      int bd = d - static_cast<int>(batch) + static_cast<int>(bs.size()) - 2;
      if (ad >= 0) {
        ao += (as[ad] == 1 ? 0 : i) * astride;
        astride *= as[ad];
      }
      if (bd >= 0) {
        bo += (bs[bd] == 1 ? 0 : i) * bstride;
        bstride *= bs[bd];
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t kk = 0; kk < k; ++kk) s += double{F(a)[ao + i * k + kk]} * F(b)[bo + kk * n + j];
        out[(t * m + i) * n + j] = s;
      }
    }
  }
  *out_shape = ob;
  if (!a_vec) out_shape->push_back(m);
  if (!b_vec) out_shape->push_back(n);
  return out;
}

// Large products run on LLVM only (the reference interpreter would take minutes).
void Check(const ir::PrimFunc& f, const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape,
           bool interp = true) {
  runtime::Tensor a = RandomF32(a_shape, 1), b = RandomF32(b_shape, 2);
  std::vector<int64_t> out_shape;
  std::vector<double> want = Reference(a, b, &out_shape);
  // The output starts as garbage: the kernel must write every element.
  runtime::Tensor c = RandomF32(out_shape, 3);
  for (auto target : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    if (target == driver::RunTarget::kInterp && !interp) continue;
    std::vector<runtime::Tensor> r = kernel_testing::Run(f, target, {a, b, c});
    kernel_testing::ExpectNear(r[2], want, 1e-5, driver::RunTargetName(target));
  }
}

void CheckStatic(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, bool interp = true) {
  SCOPED_TRACE(::testing::PrintToString(a_shape) + " @ " + ::testing::PrintToString(b_shape));
  absl::StatusOr<ir::PrimFunc> f =
      MatmulKernel({Dims(a_shape), DataType::Float(32)}, {Dims(b_shape), DataType::Float(32)}, DataType::Void());
  ASSERT_TRUE(f.ok()) << f.status();
  Check(*f, a_shape, b_shape, interp);
}

TEST(MatmulKernel, WholeTiles) { CheckStatic({8, 32}, {32, 48}); }
TEST(MatmulKernel, RowAndColumnTails) { CheckStatic({7, 13}, {13, 21}); }
TEST(MatmulKernel, NarrowerThanOnePanel) { CheckStatic({3, 5}, {5, 6}); }
TEST(MatmulKernel, SeveralKBlocks) { CheckStatic({5, 600}, {600, 17}); }
// 8 row blocks of 6: two whole groups of 4 tiles.
TEST(MatmulKernel, WholeRowGroups) { CheckStatic({48, 20}, {20, 32}); }
// 5 row blocks (a group of 4 and one of 1), a row tail, 2 k blocks (the last partial) and a
// column tail.
TEST(MatmulKernel, PartialRowGroupAndKBlocks) { CheckStatic({31, 130}, {130, 17}); }
// 33 row tiles in 9 groups x 2 column chunks of 16 panels (a's rows packed per task), 2 rows
// below the tiles, a partial panel, 2 equal k blocks.
TEST(MatmulKernel, PackedRowsInTwoDimensionalTasks) { CheckStatic({200, 130}, {130, 500}, /*interp=*/false); }
// At most 8 row tiles with whole panels: b is read in place, the tasks split the columns.
TEST(MatmulKernel, FewRowsReadBInPlace) { CheckStatic({20, 200}, {200, 64}); }
// k = 257: 3 blocks of 86, 86 and 85.
TEST(MatmulKernel, UnequalLastKBlock) { CheckStatic({7, 257}, {257, 33}); }
TEST(MatmulKernel, BroadcastBatchDims) { CheckStatic({2, 1, 6, 9}, {3, 9, 5}); }
TEST(MatmulKernel, BatchFoldsIntoRowsWhenWeightIs2D) { CheckStatic({2, 3, 5, 8}, {8, 18}); }
TEST(MatmulKernel, UnitBatchDimOnWeight) { CheckStatic({3, 5, 8}, {1, 8, 18}); }
TEST(MatmulKernel, VectorTimesBatchedMatrix) { CheckStatic({9}, {2, 9, 20}); }
TEST(MatmulKernel, MatrixTimesVector) { CheckStatic({4, 9}, {9}); }
TEST(MatmulKernel, VectorDotVector) { CheckStatic({9}, {9}); }

TEST(MatmulKernel, SymbolicRows) {
  ir::Var m("m", DataType::Int(64));
  absl::StatusOr<ir::PrimFunc> f =
      MatmulKernel({{m, Int64(20)}, DataType::Float(32)}, {Dims({20, 35}), DataType::Float(32)}, DataType::Void());
  ASSERT_TRUE(f.ok()) << f.status();
  for (int64_t rows : {9, 1, 0}) {
    SCOPED_TRACE(rows);
    Check(*f, {rows, 20}, {20, 35});
  }
}

TEST(MatmulKernel, SymbolicDepthAndColumns) {
  ir::Var k("k", DataType::Int(64)), n("n", DataType::Int(64));
  absl::StatusOr<ir::PrimFunc> f =
      MatmulKernel({{Int64(6), k}, DataType::Float(32)}, {{k, n}, DataType::Float(32)}, DataType::Void());
  ASSERT_TRUE(f.ok()) << f.status();
  Check(*f, {6, 300}, {300, 19});
  Check(*f, {6, 3}, {3, 32});
}

std::string Printed(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape) {
  absl::StatusOr<ir::PrimFunc> f =
      MatmulKernel({Dims(a_shape), DataType::Float(32)}, {Dims(b_shape), DataType::Float(32)}, DataType::Void());
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? script::printer::Print(*f) : "";
}

// A product under 2^18 multiply-adds runs on the calling thread; from there on, in parallel.
TEST(MatmulKernel, SmallProductsAreSerial) {
  std::string small = Printed({32, 128}, {128, 10}), big = Printed({64, 64}, {64, 64});
  EXPECT_EQ(small.find("T.parallel"), std::string::npos) << small;
  EXPECT_NE(big.find("T.parallel"), std::string::npos) << big;
}

TEST(MatmulKernel, IsScheduledAndOpaque) {
  absl::StatusOr<ir::PrimFunc> f =
      MatmulKernel({Dims({4, 4}), DataType::Float(32)}, {Dims({4, 4}), DataType::Float(32)}, DataType::Void());
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE((*f)->attrs.count(ir::String(kScheduledAttr)));
  const auto* pattern = (*f)->attrs.Get(ir::String("op_pattern")).as<ir::IntImmNode>();
  ASSERT_NE(pattern, nullptr);
  EXPECT_EQ(pattern->value, static_cast<int>(OpPatternKind::kOpaque));
}

TEST(MatmulKernel, RejectsScalars) {
  EXPECT_TRUE(IsInvalidArgument(MatmulKernel({{}, DataType::Float(32)}, {Dims({4}), DataType::Float(32)}, DataType::Void()),
                                "matmul: operands must have rank >= 1"));
}

}  // namespace
}  // namespace kiln::relax::legalize
