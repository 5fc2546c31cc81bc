// The cooperative reduction schedule (schedule_gpu_reduce.h) through LegalizeOps for a GPU target
// and ScheduleDefaultGPU: which stages take it (long sums, max, min; not short reductions), and
// results against numpy on opencl (PoCL) and vulkan (lavapipe), with reduction lengths that are
// and are not multiples of the thread count. A missing device is skipped with the reason.
// Multi-stage kernels (softmax, norms) need the VM's allocations: the Relax corpus runs those.
#include "compiler/relax/legalize/schedule_gpu_reduce.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

struct Case {
  std::vector<int64_t> in, out;
  std::string op, numpy;
};

std::string Shape(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) absl::StrAppend(&r, i ? ", " : "", s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

std::string Program(const Case& c, bool warp_shuffle = false) {
  std::string p = testing::Program(absl::StrCat("x: R.Tensor(", Shape(c.in), ", \"float32\")"),
                                   absl::StrCat("R.Tensor(", Shape(c.out), ", \"float32\")"),
                                   {absl::StrCat("gv: R.Tensor(", Shape(c.out), ", \"float32\") = ", c.op)});
  const std::string head = "class Module:\n";
  std::string attrs = absl::StrCat("\"", kGPUTargetAttr, "\": True");
  if (warp_shuffle) absl::StrAppend(&attrs, ", \"", kGPUWarpShuffleAttr, "\": True");
  return p.insert(p.find(head) + head.size(), absl::StrCat("    I.module_attrs({", attrs, "})\n"));
}

absl::StatusOr<ir::IRModule> Scheduled(const Case& c, bool warp_shuffle = false) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(Program(c, warp_shuffle), "schedule_gpu_reduce_test.py");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  if (!legal.ok()) return legal.status();
  return ScheduleDefaultGPU(*legal);
}

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {{5, 1000}, {5}, "R.sum(x, axis=[1])", "out = x.sum(axis=1)"},            // 256 threads, a tail
      {{3, 512}, {3}, "R.max(x, axis=[1])", "out = x.max(axis=1)"},             // 256 threads, no tail
      {{4, 70}, {4}, "R.min(x, axis=[1])", "out = x.min(axis=1)"},              // 64 threads, a tail
      {{2, 3, 100}, {2, 3}, "R.sum(x, axis=[2])", "out = x.sum(axis=2)"},       // two output dims
      {{600}, {}, "R.sum(x)", "out = x.sum()"},                                 // one output
  };
  return *cases;
}

TEST(ScheduleReductionStageTest, LongReductionsShareTheWork) {
  absl::StatusOr<ir::IRModule> m = Scheduled(Cases()[0]);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string out = script::printer::Print(*m);
  EXPECT_NE(out.find("red_shared = T.alloc_shared((T.int64(256),)"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(5), thread=\"blockIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.tvm_storage_sync(\"shared\")"), std::string::npos) << out;
  // A short reduction keeps one thread per output.
  absl::StatusOr<ir::IRModule> short_m = Scheduled({{100, 8}, {100}, "R.sum(x, axis=[1])", ""});
  ASSERT_TRUE(short_m.ok()) << short_m.status();
  std::string short_out = script::printer::Print(*short_m);
  EXPECT_EQ(short_out.find("shared"), std::string::npos) << short_out;
}

// With warp shuffles (cuda, nvptx): shuffles within each warp, one shared slot per warp (8 for
// 256 threads). Their numerics are checked on a GPU (tests/gpu/run_cuda.sh: the Relax corpus).
TEST(ScheduleReductionStageTest, WarpShufflesWhereTheTargetHasThem) {
  absl::StatusOr<ir::IRModule> m = Scheduled(Cases()[0], /*warp_shuffle=*/true);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string out = script::printer::Print(*m);
  EXPECT_NE(out.find("T.tvm_warp_shuffle_down("), std::string::npos) << out;
  EXPECT_NE(out.find("red_shared = T.alloc_shared((T.int64(8),)"), std::string::npos) << out;
}

void CheckTarget(driver::RunTarget target) {
  int skipped = 0;
  for (const Case& c : Cases()) {
    absl::StatusOr<ir::IRModule> m = Scheduled(c);
    ASSERT_TRUE(m.ok()) << c.op << ": " << m.status();
    std::vector<runtime::Tensor> in = {testing::Random(c.in, "float32", 3)};
    absl::StatusOr<std::vector<runtime::Tensor>> got = testing::RunRelax(*m, "main", in, target);
    if (absl::IsUnavailable(got.status())) {
      ++skipped;
      continue;
    }
    ASSERT_TRUE(got.ok()) << c.op << ": " << got.status();
    absl::StatusOr<std::vector<runtime::Tensor>> want = testing::Numpy(c.numpy, {"x"}, in);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(testing::Compare((*got)[0], (*want)[0], 1e-4, 1e-4), "") << driver::RunTargetName(target) << ": " << c.op;
  }
  if (skipped == static_cast<int>(Cases().size())) GTEST_SKIP() << driver::RunTargetName(target) << " is unavailable";
}

TEST(ScheduleReductionStageTest, MatchesNumpyOnOpenCL) { CheckTarget(driver::RunTarget::kOpenCL); }
TEST(ScheduleReductionStageTest, MatchesNumpyOnVulkan) { CheckTarget(driver::RunTarget::kVulkan); }

}  // namespace
}  // namespace kiln::relax::legalize
