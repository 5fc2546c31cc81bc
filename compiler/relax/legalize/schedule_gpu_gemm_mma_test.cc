// The tensor-core GEMM schedule (schedule_gpu_gemm_mma.h). No device runs here, so: (1) the
// fragment layout the schedule loads and stores by (MmaFragmentA/B/C) is checked against a CPU
// model of mma.sync.m16n8k16 written from the PTX ISA's fragment tables, on whole 16 x 8 products
// (and a K of 32 as two accumulating instructions); (2) which stages the schedule takes through
// LegalizeOps and ScheduleDefaultGPU. tests/gpu/relax_ptx_test.cc checks that the PTX of a
// scheduled 4096^3 matmul passes ptxas without spills; tests/gpu/run_cuda.sh runs it on a GPU.
#include "compiler/relax/legalize/schedule_gpu_gemm_mma.h"

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

// ---- The PTX ISA's "Matrix Fragments for mma.m16n8k16 with floating point type", as it states
// them: groupID = %laneid >> 2, threadID_in_group = %laneid % 4; (row, col) of element i of a lane.
std::pair<int, int> IsaA(int lane, int i) {  // a0..a7 of the 16 x 16 A (M x K)
  int group = lane >> 2, tig = lane % 4;
  int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
  int col = i < 4 ? tig * 2 + (i & 0x1) : tig * 2 + (i & 0x1) + 8;
  return {row, col};
}
std::pair<int, int> IsaB(int lane, int i) {  // b0..b3 of the 16 x 8 B (K x N)
  int group = lane >> 2, tig = lane % 4;
  int row = i < 2 ? tig * 2 + (i & 0x1) : tig * 2 + (i & 0x1) + 8;
  return {row, group};
}
std::pair<int, int> IsaC(int lane, int i) {  // c0..c3 / d0..d3 of the 16 x 8 C and D (M x N)
  int group = lane >> 2, tig = lane % 4;
  int row = i < 2 ? group : group + 8;
  return {row, tig * 2 + (i & 0x1)};
}

// What one mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 leaves in the 32 lanes' d registers
// (accumulated over c, in place), from the lanes' a, b and c registers.
void MmaSync(const float a[32][8], const float b[32][4], float c[32][4]) {
  float A[16][16], B[16][8], C[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 8; ++i) A[IsaA(lane, i).first][IsaA(lane, i).second] = a[lane][i];
    for (int i = 0; i < 4; ++i) B[IsaB(lane, i).first][IsaB(lane, i).second] = b[lane][i];
    for (int i = 0; i < 4; ++i) C[IsaC(lane, i).first][IsaC(lane, i).second] = c[lane][i];
  }
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      auto [m, n] = IsaC(lane, i);
      float d = C[m][n];
      for (int k = 0; k < 16; ++k) d += A[m][k] * B[k][n];
      c[lane][i] = d;
    }
  }
}

// The schedule's layout at a lane, as constants.
std::pair<int64_t, int64_t> At(MmaElement (*layout)(const ir::PrimExpr&, const ir::PrimExpr&, int), int lane, int r) {
  MmaElement e = layout(Int64(lane / 4), Int64(lane % 4), r);
  return {ConstOr(e.row, -1), ConstOr(e.col, -1)};
}

// A 16 x 8 output over a K of `k` (a multiple of 16): per 16 of K the lanes load their A and B
// registers where the schedule's layout says, mma.sync accumulates, and the lanes store their C
// registers where the layout says; the result must be the plain product (exact: small integers).
TEST(MmaFragmentLayoutTest, LanesLoadAndStoreWhatMmaSyncComputes) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-8, 8);
  for (int k : {16, 32}) {
    std::vector<std::vector<float>> x(16, std::vector<float>(k)), y(k, std::vector<float>(8));
    for (auto& row : x) {
      for (float& v : row) v = static_cast<float>(d(rng));
    }
    for (auto& row : y) {
      for (float& v : row) v = static_cast<float>(d(rng));
    }
    float c[32][4] = {};
    for (int k0 = 0; k0 < k; k0 += 16) {
      float a[32][8], b[32][4];
      for (int lane = 0; lane < 32; ++lane) {
        for (int r = 0; r < 8; ++r) {
          auto [m, kk] = At(MmaFragmentA, lane, r);
          ASSERT_TRUE(m >= 0 && m < 16 && kk >= 0 && kk < 16) << "A lane " << lane << " r " << r;
          a[lane][r] = x[m][k0 + kk];
        }
        for (int r = 0; r < 4; ++r) {
          auto [kk, n] = At(MmaFragmentB, lane, r);
          ASSERT_TRUE(kk >= 0 && kk < 16 && n >= 0 && n < 8) << "B lane " << lane << " r " << r;
          b[lane][r] = y[k0 + kk][n];
        }
      }
      MmaSync(a, b, c);
    }
    std::vector<std::vector<float>> out(16, std::vector<float>(8, NAN));
    for (int lane = 0; lane < 32; ++lane) {
      for (int r = 0; r < 4; ++r) {
        auto [m, n] = At(MmaFragmentC, lane, r);
        ASSERT_TRUE(m >= 0 && m < 16 && n >= 0 && n < 8) << "C lane " << lane << " r " << r;
        out[m][n] = c[lane][r];
      }
    }
    for (int m = 0; m < 16; ++m) {
      for (int n = 0; n < 8; ++n) {
        float want = 0;
        for (int kk = 0; kk < k; ++kk) want += x[m][kk] * y[kk][n];
        EXPECT_EQ(out[m][n], want) << "K " << k << " at (" << m << ", " << n << ")";
      }
    }
  }
}

// Register j of an operand packs elements 2j and 2j + 1: they are neighbours along K, which the
// schedule's shared tiles keep adjacent (A as [m][k], B as [n][k]).
TEST(MmaFragmentLayoutTest, RegisterPairsAreNeighboursAlongK) {
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(At(MmaFragmentA, lane, 2 * j).first, At(MmaFragmentA, lane, 2 * j + 1).first);
      EXPECT_EQ(At(MmaFragmentA, lane, 2 * j).second + 1, At(MmaFragmentA, lane, 2 * j + 1).second);
    }
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(At(MmaFragmentB, lane, 2 * j).first + 1, At(MmaFragmentB, lane, 2 * j + 1).first);
      EXPECT_EQ(At(MmaFragmentB, lane, 2 * j).second, At(MmaFragmentB, lane, 2 * j + 1).second);
    }
  }
}

// ---- Stage selection through LegalizeOps and ScheduleDefaultGPU.

std::string Shape(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) absl::StrAppend(&r, i ? ", " : "", s[i]);
  return r + ")";
}

// R.matmul(x, y) of `in` operands to an `out` result, scheduled for a GPU with (or without)
// tensor cores; the printed module.
std::string Scheduled(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, const std::vector<int64_t>& os,
                      const std::string& in, const std::string& out, bool tensor_cores = true) {
  std::string p = testing::Program(
      absl::StrCat("x: R.Tensor(", Shape(xs), ", \"", in, "\"), y: R.Tensor(", Shape(ys), ", \"", in, "\")"),
      absl::StrCat("R.Tensor(", Shape(os), ", \"", out, "\")"),
      {absl::StrCat("gv: R.Tensor(", Shape(os), ", \"", out, "\") = R.matmul(x, y, out_dtype=\"", out, "\")")});
  const std::string head = "class Module:\n";
  p.insert(p.find(head) + head.size(),
           absl::StrCat("    I.module_attrs({\"", kGPUTargetAttr, "\": True",
                        tensor_cores ? absl::StrCat(", \"", kGPUTensorCoreAttr, "\": True") : "", "})\n"));
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(p, "schedule_gpu_gemm_mma_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << p;
  if (!parsed.ok()) return "";
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  EXPECT_TRUE(legal.ok()) << legal.status();
  if (!legal.ok()) return "";
  absl::StatusOr<ir::IRModule> m = ScheduleDefaultGPU(*legal);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? script::printer::Print(*m) : "";
}

bool UsesMma(const std::string& printed) { return printed.find("T.ptx_legacy.mma(") != std::string::npos; }

TEST(ScheduleGemmMmaStageTest, Float16MatmulsTheTilesDivideUseTensorCores) {
  std::string out = Scheduled({256, 64}, {64, 384}, {256, 384}, "float16", "float16");
  ASSERT_EQ(UsesMma(out), kGemmTensorCores) << out;
  if (!kGemmTensorCores) return;
  EXPECT_NE(out.find("T.ptx_legacy.mma(\"m16n8k16\", \"row\", \"col\", \"fp16\", \"fp16\", \"fp32\""), std::string::npos)
      << out;
  // 2 x 3 blocks of 8 warps of 32 lanes; float16 shared tiles, float32 accumulators.
  EXPECT_NE(out.find("T.thread_binding(T.int64(2), thread=\"blockIdx.y\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(3), thread=\"blockIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(8), thread=\"threadIdx.y\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(32), thread=\"threadIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.alloc_shared((T.int64(5120),), \"float16\""), std::string::npos) << out;
  EXPECT_NE(out.find("T.alloc_local((T.int64(64),))"), std::string::npos) << out;
  // A float32 result of float16 operands, and a batch as the grid's z.
  EXPECT_TRUE(UsesMma(Scheduled({128, 32}, {32, 128}, {128, 128}, "float16", "float32")));
  std::string batched = Scheduled({3, 128, 32}, {3, 32, 128}, {3, 128, 128}, "float16", "float16");
  EXPECT_TRUE(UsesMma(batched)) << batched;
  EXPECT_NE(batched.find("T.thread_binding(T.int64(3), thread=\"blockIdx.z\")"), std::string::npos) << batched;
}

TEST(ScheduleGemmMmaStageTest, OtherStagesKeepTheSimtSchedule) {
  // No tensor cores on the target, float32 operands, or sizes the tiles do not divide.
  EXPECT_FALSE(UsesMma(Scheduled({256, 64}, {64, 256}, {256, 256}, "float16", "float16", /*tensor_cores=*/false)));
  EXPECT_FALSE(UsesMma(Scheduled({256, 64}, {64, 256}, {256, 256}, "float32", "float32")));
  EXPECT_FALSE(UsesMma(Scheduled({200, 64}, {64, 256}, {200, 256}, "float16", "float16")));
  EXPECT_FALSE(UsesMma(Scheduled({256, 64}, {64, 100}, {256, 100}, "float16", "float16")));
  std::string k = Scheduled({256, 40}, {40, 256}, {256, 256}, "float16", "float16");
  EXPECT_FALSE(UsesMma(k));
  EXPECT_NE(k.find("T.alloc_shared("), std::string::npos) << "the SIMT tile\n" << k;
}

}  // namespace
}  // namespace kiln::relax::legalize
