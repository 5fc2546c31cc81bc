// ScheduleDefaultCPU on s_tir stages as LegalizeOps writes them: the loops it makes (checked in
// the printed TVMScript), and numerics unchanged (the scheduled function on LLVM, with a thread
// pool, against the unscheduled one on the reference interpreter).
#include "compiler/relax/legalize/schedule.h"

#include "compiler/relax/legalize/kernel_testing.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using kernel_testing::F;
using kernel_testing::RandomF32;

constexpr char kSource[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add2d(var_x: T.handle, var_y: T.handle, var_z: T.handle):
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(37)))
        y = T.match_buffer(var_y, (n, T.int64(37)))
        z = T.match_buffer(var_z, (n, T.int64(37)))
        for ax0, ax1 in T.grid(n, T.int64(37)):
            with T.sblock("T_add"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v0, v1], y[v0, v1])
                T.writes(z[v0, v1])
                z[v0, v1] = x[v0, v1] + y[v0, v1]

    @T.prim_func(s_tir=True)
    def add1d(x: T.Buffer((T.int64(1000),), "float32"), y: T.Buffer((T.int64(1000),), "float32"), z: T.Buffer((T.int64(1000),), "float32")):
        for ax0 in range(T.int64(1000)):
            with T.sblock("T_add"):
                v0 = T.axis.spatial(T.int64(1000), ax0)
                T.reads(x[v0], y[v0])
                T.writes(z[v0])
                z[v0] = x[v0] + y[v0]

    @T.prim_func(s_tir=True)
    def add1d_big(x: T.Buffer((T.int64(65601),), "float32"), y: T.Buffer((T.int64(65601),), "float32"), z: T.Buffer((T.int64(65601),), "float32")):
        for ax0 in range(T.int64(65601)):
            with T.sblock("T_add"):
                v0 = T.axis.spatial(T.int64(65601), ax0)
                T.reads(x[v0], y[v0])
                T.writes(z[v0])
                z[v0] = x[v0] + y[v0]

    @T.prim_func(s_tir=True)
    def relu4d(x: T.Buffer((T.int64(1), T.int64(64), T.int64(64), T.int64(16)), "float32"), z: T.Buffer((T.int64(1), T.int64(64), T.int64(64), T.int64(16)), "float32")):
        for a, b, c, d in T.grid(T.int64(1), T.int64(64), T.int64(64), T.int64(16)):
            with T.sblock("relu"):
                v0, v1, v2, v3 = T.axis.remap("SSSS", [a, b, c, d])
                T.reads(x[v0, v1, v2, v3])
                T.writes(z[v0, v1, v2, v3])
                z[v0, v1, v2, v3] = T.max(x[v0, v1, v2, v3], T.float32(0.0))

    @T.prim_func(s_tir=True)
    def transpose(x: T.Buffer((T.int64(9), T.int64(20)), "float32"), z: T.Buffer((T.int64(20), T.int64(9)), "float32")):
        for a, b in T.grid(T.int64(20), T.int64(9)):
            with T.sblock("T_transpose"):
                v0, v1 = T.axis.remap("SS", [a, b])
                T.reads(x[v1, v0])
                T.writes(z[v0, v1])
                z[v0, v1] = x[v1, v0]

    @T.prim_func(s_tir=True)
    def rowsum(x: T.Buffer((T.int64(2000), T.int64(33)), "float32"), z: T.Buffer((T.int64(2000),), "float32")):
        for a, k in T.grid(T.int64(2000), T.int64(33)):
            with T.sblock("sum"):
                v0, vk = T.axis.remap("SR", [a, k])
                T.reads(x[v0, vk])
                T.writes(z[v0])
                with T.init():
                    z[v0] = T.float32(0.0)
                z[v0] = z[v0] + x[v0, vk]

    @T.prim_func(s_tir=True)
    def two_stages(x: T.Buffer((T.int64(4), T.int64(24)), "float32"), z: T.Buffer((T.int64(4), T.int64(24)), "float32")):
        t = T.sblock_alloc_buffer((T.int64(4), T.int64(24)))
        for a, b in T.grid(T.int64(4), T.int64(24)):
            with T.sblock("exp"):
                v0, v1 = T.axis.remap("SS", [a, b])
                T.reads(x[v0, v1])
                T.writes(t[v0, v1])
                t[v0, v1] = T.exp(x[v0, v1])
        for a, b in T.grid(T.int64(4), T.int64(24)):
            with T.sblock("mul"):
                v0, v1 = T.axis.remap("SS", [a, b])
                T.reads(t[v0, v1], x[v0, v1])
                T.writes(z[v0, v1])
                z[v0, v1] = t[v0, v1] * x[v0, v1]

    @T.prim_func
    def plain(x: T.Buffer((T.int64(8),), "float32")):
        for i in range(T.int64(8)):
            x[i] = T.float32(1.0)
)PY";

class ScheduleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kSource, "schedule_test.py");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    before_ = script::AsModule(*parsed);
    absl::StatusOr<ir::IRModule> after = ScheduleDefaultCPU(before_);
    ASSERT_TRUE(after.ok()) << after.status();
    after_ = *after;
  }
  ir::PrimFunc Before(const std::string& name) { return ir::Downcast<ir::PrimFunc>(before_.Lookup(name)); }
  ir::PrimFunc After(const std::string& name) { return ir::Downcast<ir::PrimFunc>(after_.Lookup(name)); }
  std::string Text(const std::string& name) { return script::printer::Print(After(name)); }

  // The scheduled function on LLVM gives exactly what the original gives on the interpreter.
  void ExpectSameResults(const std::string& name, const std::vector<std::vector<int64_t>>& shapes) {
    std::vector<runtime::Tensor> args;
    for (size_t i = 0; i < shapes.size(); ++i) args.push_back(RandomF32(shapes[i], static_cast<uint32_t>(i + 1)));
    std::vector<runtime::Tensor> want = kernel_testing::Run(Before(name), driver::RunTarget::kInterp, args);
    std::vector<runtime::Tensor> got = kernel_testing::Run(After(name), driver::RunTarget::kLLVM, args);
    std::vector<runtime::Tensor> got_interp = kernel_testing::Run(After(name), driver::RunTarget::kInterp, args);
    const runtime::Tensor &w = want.back(), &g = got.back(), &gi = got_interp.back();
    for (int64_t i = 0; i < w.numel(); ++i) {
      ASSERT_EQ(F(g)[i], F(w)[i]) << name << " element " << i << " (llvm)";
      ASSERT_EQ(F(gi)[i], F(w)[i]) << name << " element " << i << " (interp)";
    }
  }

  ir::IRModule before_, after_;
};

bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST_F(ScheduleTest, SymbolicRowsParallelOddColumnsVectorizedWithTail) {
  std::string t = Text("add2d");
  EXPECT_TRUE(Has(t, "T.parallel(n)")) << t;
  EXPECT_TRUE(Has(t, "T.vectorized(T.int64(16))")) << t;
  EXPECT_TRUE(Has(t, "T_add_tail")) << t;
  ExpectSameResults("add2d", {{5, 37}, {5, 37}, {5, 37}});
}

TEST_F(ScheduleTest, SingleLoopChunksAreTheParallelLoop) {
  std::string t = Text("add1d_big");
  EXPECT_TRUE(Has(t, "T.parallel(T.int64(4100))")) << t;
  EXPECT_TRUE(Has(t, "T.vectorized(T.int64(16))")) << t;
  ExpectSameResults("add1d_big", {{65601}, {65601}, {65601}});
}

// Under 2^16 iterations a stage is vectorized but stays on the calling thread.
TEST_F(ScheduleTest, SmallStagesAreNotParallel) {
  std::string t = Text("add1d");
  EXPECT_FALSE(Has(t, "T.parallel")) << t;
  EXPECT_TRUE(Has(t, "T.vectorized(T.int64(16))")) << t;
  ExpectSameResults("add1d", {{1000}, {1000}, {1000}});
  for (const char* name : {"transpose", "two_stages"}) EXPECT_FALSE(Has(Text(name), "T.parallel")) << Text(name);
}

TEST_F(ScheduleTest, OuterLoopsFuseExactInnerNeedsNoTail) {
  std::string t = Text("relu4d");
  EXPECT_TRUE(Has(t, "T.parallel(T.int64(4096))")) << t;
  EXPECT_TRUE(Has(t, "T.vectorized(T.int64(16))")) << t;
  EXPECT_FALSE(Has(t, "_tail")) << t;
  ExpectSameResults("relu4d", {{1, 64, 64, 16}, {1, 64, 64, 16}});
}

TEST_F(ScheduleTest, ShortInnerLoopVectorizedWhole) {
  std::string t = Text("transpose");
  EXPECT_TRUE(Has(t, "T.vectorized(T.int64(9))")) << t;
  ExpectSameResults("transpose", {{9, 20}, {20, 9}});
}

TEST_F(ScheduleTest, ReductionGetsParallelSpatialLoopOnly) {
  std::string t = Text("rowsum");
  EXPECT_TRUE(Has(t, "T.parallel(T.int64(2000))")) << t;
  EXPECT_FALSE(Has(t, "T.vectorized")) << t;
  ExpectSameResults("rowsum", {{2000, 33}, {2000}});
}

TEST_F(ScheduleTest, EveryStageOfAFusedFunction) {
  std::string t = Text("two_stages");
  EXPECT_EQ(Count(t, "T.vectorized"), 2) << t;  // both stages
  ExpectSameResults("two_stages", {{4, 24}, {4, 24}});
}

TEST_F(ScheduleTest, MarksScheduledAndLeavesOthersAlone) {
  EXPECT_TRUE(After("add2d")->attrs.count(ir::String(kScheduledAttr)));
  EXPECT_TRUE(After("plain").same_as(Before("plain")));
  // Running it again changes nothing.
  absl::StatusOr<ir::IRModule> again = ScheduleDefaultCPU(after_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(ir::Downcast<ir::PrimFunc>(again->Lookup("add2d")).same_as(After("add2d")));
}

}  // namespace
}  // namespace kiln::relax::legalize
