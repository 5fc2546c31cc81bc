// The tiled GEMM schedule (schedule_gpu_gemm.h) through LegalizeOps for a GPU target and
// ScheduleDefaultGPU: which stages it takes (matmuls, batched and broadcast; not elementwise ops or
// tiny problems), which tile configuration a problem gets, and matmul results (float32, and
// float16 with float32 accumulation) against numpy on opencl (PoCL) and vulkan (lavapipe) for both
// configurations, for sizes that leave partial tiles in M, N and K and for sizes the tiles divide.
// The interpreter cannot run these kernels (barriers inside loops), so the devices are the check;
// a missing device is skipped with the reason.
#include "compiler/relax/legalize/schedule_gpu_gemm.h"

#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/legalize/te.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

std::string Shape(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) absl::StrAppend(&r, i ? ", " : "", s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

// `program` (testing::Program's form) marked for a GPU target.
std::string ForGPU(std::string p) {
  const std::string head = "class Module:\n";
  return p.insert(p.find(head) + head.size(), absl::StrCat("    I.module_attrs({\"", kGPUTargetAttr, "\": True})\n"));
}

// R.matmul(x, y) (or `op`), for a GPU target.
std::string Program(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, const std::vector<int64_t>& out,
                    const std::string& op = "R.matmul(x, y)", const std::string& dtype = "float32") {
  return ForGPU(testing::Program(
      absl::StrCat("x: R.Tensor(", Shape(xs), ", \"", dtype, "\"), y: R.Tensor(", Shape(ys), ", \"", dtype, "\")"),
      absl::StrCat("R.Tensor(", Shape(out), ", \"", dtype, "\")"),
      {absl::StrCat("gv: R.Tensor(", Shape(out), ", \"", dtype, "\") = ", op)}));
}

absl::StatusOr<ir::IRModule> Scheduled(const std::string& src) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(src, "schedule_gpu_gemm_test.py");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  if (!legal.ok()) return legal.status();
  return ScheduleDefaultGPU(*legal);
}

std::string Printed(const std::string& src) {
  absl::StatusOr<ir::IRModule> m = Scheduled(src);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? script::printer::Print(*m) : "";
}

TEST(ScheduleGemmStageTest, TilesMatmulsInSharedMemory) {
  std::string out = Printed(Program({70, 37}, {37, 90}, {70, 90}));
  EXPECT_NE(out.find("T.alloc_shared("), std::string::npos) << out;
  EXPECT_NE(out.find("T.tvm_storage_sync(\"shared\")"), std::string::npos) << out;
  EXPECT_NE(out.find("thread=\"blockIdx.y\""), std::string::npos) << out;
  EXPECT_NE(out.find("thread=\"threadIdx.y\""), std::string::npos) << out;
  EXPECT_EQ(out.find("T.sblock(\"T_matmul\")"), std::string::npos) << "the stage is rebuilt without its block\n" << out;
  // A batch shared by both operands is the grid's z.
  std::string batched = Printed(Program({2, 30, 17}, {2, 17, 50}, {2, 30, 50}));
  EXPECT_NE(batched.find("T.thread_binding(T.int64(2), thread=\"blockIdx.z\")"), std::string::npos) << batched;
}

TEST(ScheduleGemmStageTest, ChoosesTheLargeTileWhenMAndNAreLarge) {
  EXPECT_EQ(&ChooseGemmConfig(Int64(512), Int64(512)), &kGemmLarge);
  EXPECT_EQ(&ChooseGemmConfig(Int64(4096), Int64(511)), &kGemmSmall);
  EXPECT_EQ(&ChooseGemmConfig(Int64(100), Int64(4096)), &kGemmSmall);
  // A symbolic extent may be large; the other decides.
  ir::Var n("n", ir::DataType::Int(64));
  EXPECT_EQ(&ChooseGemmConfig(n, Int64(1024)), &kGemmLarge);
  EXPECT_EQ(&ChooseGemmConfig(n, Int64(64)), &kGemmSmall);
}

TEST(ScheduleGemmStageTest, LargeMatmulsUseTheLargeTileWithFusedMultiplyAdds) {
  // 520 x 600: ceil(520 / 128) x ceil(600 / 128) blocks of 16 x 16 threads, double-buffered tiles.
  std::string out = Printed(Program({520, 45}, {45, 600}, {520, 600}));
  EXPECT_NE(out.find("T.thread_binding(T.int64(5), thread=\"blockIdx.y\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(5), thread=\"blockIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.alloc_shared((T.int64(2), T.int64(8), T.int64(132)))"), std::string::npos) << out;
  EXPECT_NE(out.find("T.fma("), std::string::npos) << out;
  // float16: the accumulators and the shared tiles are float32 (converted once, on the way in).
  std::string half = Printed(Program({512, 64}, {64, 512}, {512, 512}, "R.matmul(x, y)", "float16"));
  EXPECT_NE(half.find("acc = T.alloc_local((T.int64(64),))"), std::string::npos) << half;
  EXPECT_NE(half.find("T.alloc_shared((T.int64(2), T.int64(8), T.int64(128)))"), std::string::npos) << half;
  // Small problems keep the 64 x 64 tile: 70 x 90 is 2 x 2 blocks.
  std::string small = Printed(Program({70, 37}, {37, 90}, {70, 90}));
  EXPECT_NE(small.find("T.thread_binding(T.int64(2), thread=\"blockIdx.y\")"), std::string::npos) << small;
  EXPECT_NE(small.find("acc = T.alloc_local((T.int64(16),))"), std::string::npos) << small;
}

TEST(ScheduleGemmStageTest, LeavesOtherStagesToTheDefaultSchedule) {
  // Elementwise: no reduction.
  std::string add = Printed(Program({64, 64}, {64, 64}, {64, 64}, "R.add(x, y)"));
  EXPECT_EQ(add.find("shared"), std::string::npos) << add;
  // Too few outputs to be worth a tile.
  std::string small = Printed(Program({4, 32}, {32, 4}, {4, 4}));
  EXPECT_EQ(small.find("shared"), std::string::npos) << small;
  EXPECT_NE(small.find("T.sblock(\"T_matmul\")"), std::string::npos) << small;
}

// Runs the scheduled matmul on `target` against numpy: "" when equal, "skip: ..." when the
// device is missing, else the difference.
// float16 is compared with numpy's float32 product rounded to float16 (the schedule accumulates
// in float32).
std::string RunSource(const std::string& src, const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                      driver::RunTarget target, const std::string& dtype = "float32") {
  absl::StatusOr<ir::IRModule> m = Scheduled(src);
  if (!m.ok()) return m.status().ToString();
  std::vector<runtime::Tensor> in = {testing::Random(xs, dtype, 1), testing::Random(ys, dtype, 2)};
  absl::StatusOr<std::vector<runtime::Tensor>> got = testing::RunRelax(*m, "main", in, target);
  if (absl::IsUnavailable(got.status())) return "skip: " + got.status().ToString();
  if (!got.ok()) return got.status().ToString();
  absl::StatusOr<std::vector<runtime::Tensor>> want = testing::Numpy(
      absl::StrCat("out = np.matmul(x.astype(np.float32), y.astype(np.float32)).astype(np.", dtype, ")"), {"x", "y"},
      in);
  if (!want.ok()) return want.status().ToString();
  double tol = dtype == "float16" ? 2e-3 : 1e-4;
  return testing::Compare((*got)[0], (*want)[0], tol, tol);
}

std::string RunMatmul(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, const std::vector<int64_t>& out,
                      driver::RunTarget target, const std::string& dtype = "float32") {
  return RunSource(Program(xs, ys, out, "R.matmul(x, y)", dtype), xs, ys, target, dtype);
}

void CheckTarget(driver::RunTarget target) {
  struct Case {
    std::vector<int64_t> x, y, out;
  };
  const std::vector<Case> cases = {
      {{70, 37}, {37, 90}, {70, 90}},           // partial tiles in M, N and K
      {{128, 64}, {64, 128}, {128, 128}},       // tiles divide every dim: no guards
      {{3, 33, 20}, {20, 40}, {3, 33, 40}},     // x's batch folds into M
      {{2, 30, 17}, {2, 17, 50}, {2, 30, 50}},  // a shared batch: blockIdx.z
      {{1, 40}, {40, 300}, {1, 300}},           // one row
      // The large tile (M and N >= 512):
      {{520, 45}, {45, 600}, {520, 600}},           // partial tiles in M, N and K
      {{512, 64}, {64, 512}, {512, 512}},           // tiles divide every dim
      {{2, 515, 21}, {2, 21, 517}, {2, 515, 517}},  // a shared batch, partial tiles
      {{3, 200, 19}, {19, 530}, {3, 200, 530}},     // x's batch folds into M = 600
  };
  int skipped = 0;
  for (const Case& c : cases) {
    std::string r = RunMatmul(c.x, c.y, c.out, target);
    if (r.rfind("skip: ", 0) == 0) {
      ++skipped;
      continue;
    }
    EXPECT_EQ(r, "") << driver::RunTargetName(target) << ": " << Shape(c.x) << " x " << Shape(c.y);
  }
  if (skipped == static_cast<int>(cases.size())) GTEST_SKIP() << driver::RunTargetName(target) << " is unavailable";
}

TEST(ScheduleGemmStageTest, MatmulsMatchNumpyOnOpenCL) { CheckTarget(driver::RunTarget::kOpenCL); }
TEST(ScheduleGemmStageTest, MatmulsMatchNumpyOnVulkan) { CheckTarget(driver::RunTarget::kVulkan); }

// A symbolic M counts as large: the large tile, its row count known only at run time (here
// smaller than one tile, and a symbolic batch folded into M).
void CheckSymbolic(driver::RunTarget target) {
  const std::string plain = ForGPU(testing::Program(
      "x: R.Tensor((\"n\", 37), \"float32\"), y: R.Tensor((37, 600), \"float32\")", "R.Tensor((\"n\", 600), \"float32\")",
      {"gv: R.Tensor((n, 600), \"float32\") = R.matmul(x, y)"}));
  const std::string batched = ForGPU(testing::Program(
      "x: R.Tensor((\"n\", 40, 24), \"float32\"), y: R.Tensor((24, 520), \"float32\")",
      "R.Tensor((\"n\", 40, 520), \"float32\")", {"gv: R.Tensor((n, 40, 520), \"float32\") = R.matmul(x, y)"}));
  absl::StatusOr<ir::IRModule> m = Scheduled(plain);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string printed = script::printer::Print(*m);
  EXPECT_NE(printed.find("T.alloc_shared((T.int64(2), T.int64(8), T.int64(132)))"), std::string::npos) << printed;
  for (const auto& [src, x, y] : {std::make_tuple(plain, std::vector<int64_t>{130, 37}, std::vector<int64_t>{37, 600}),
                                  std::make_tuple(plain, std::vector<int64_t>{3, 37}, std::vector<int64_t>{37, 600}),
                                  std::make_tuple(batched, std::vector<int64_t>{3, 40, 24},
                                                  std::vector<int64_t>{24, 520})}) {
    std::string r = RunSource(src, x, y, target);
    if (r.rfind("skip: ", 0) == 0) GTEST_SKIP() << r;
    EXPECT_EQ(r, "") << driver::RunTargetName(target) << ": " << Shape(x) << " x " << Shape(y);
  }
}

TEST(ScheduleGemmStageTest, SymbolicMatmulsMatchNumpyOnOpenCL) { CheckSymbolic(driver::RunTarget::kOpenCL); }
TEST(ScheduleGemmStageTest, SymbolicMatmulsMatchNumpyOnVulkan) { CheckSymbolic(driver::RunTarget::kVulkan); }

// float16 operands with float32 accumulation, on both tile sizes.
void CheckHalf(driver::RunTarget target) {
  for (const auto& [x, y, out] : {std::make_tuple(std::vector<int64_t>{70, 37}, std::vector<int64_t>{37, 90},
                                                  std::vector<int64_t>{70, 90}),
                                  std::make_tuple(std::vector<int64_t>{520, 45}, std::vector<int64_t>{45, 600},
                                                  std::vector<int64_t>{520, 600})}) {
    std::string r = RunMatmul(x, y, out, target, "float16");
    if (r.rfind("skip: ", 0) == 0) GTEST_SKIP() << r;
    EXPECT_EQ(r, "") << driver::RunTargetName(target) << ": " << Shape(x) << " x " << Shape(y);
  }
}

// (Not on opencl: its backend has no float16 type.)
TEST(ScheduleGemmStageTest, HalfMatmulsMatchNumpyOnVulkan) { CheckHalf(driver::RunTarget::kVulkan); }

}  // namespace
}  // namespace kiln::relax::legalize
