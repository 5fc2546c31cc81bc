// ScheduleDefaultGPU: legalized stages get blockIdx.x/threadIdx.x bindings (spatial loops fused,
// reductions one thread per output), other functions one thread; numerics are checked end to end
// on OpenCL by //tests/corpus:relax_corpus_opencl_test.
#include "compiler/relax/legalize/schedule_gpu.h"

#include <gtest/gtest.h>

#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"

namespace kiln::relax::legalize {
namespace {

ir::IRModule Parse(const char* src) {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(src, "schedule_gpu_test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ir::Downcast<ir::IRModule>(*r) : ir::IRModule();
}

std::string Scheduled(const char* src) {
  absl::StatusOr<ir::IRModule> m = ScheduleDefaultGPU(Parse(src));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? script::printer::Print(*m) : "";
}

constexpr char kStages[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add_sum(A: T.Buffer((T.int64(1000), T.int64(3)), "float32"), B: T.Buffer((T.int64(1000), T.int64(3)), "float32"), S: T.Buffer((T.int64(1000),), "float32")):
        for i, j in T.grid(T.int64(1000), T.int64(3)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, k in T.grid(T.int64(1000), T.int64(3)):
            with T.sblock("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + B[vi, vk]

    @T.prim_func
    def plain(A: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            A[i] = A[i] * T.float32(2)

    @T.prim_func(s_tir=True)
    def bound(A: T.Buffer((T.int64(4),), "float32")):
        for i in T.thread_binding(T.int64(4), thread="threadIdx.x"):
            with T.sblock("b"):
                vi = T.axis.spatial(T.int64(4), i)
                A[vi] = T.float32(0)
)PY";

TEST(ScheduleDefaultGPUTest, FusesSpatialLoopsAndBindsThreads) {
  std::string out = Scheduled(kStages);
  // add: 3000 iterations fused, 12 blocks of 256 threads, the last one guarded.
  EXPECT_NE(out.find("T.thread_binding(T.int64(12), thread=\"blockIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("T.thread_binding(T.int64(256), thread=\"threadIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("< T.int64(3000)"), std::string::npos) << out;
  // sum: one thread per output row (1000 -> 4 blocks), the reduction loop stays serial inside.
  EXPECT_NE(out.find("T.thread_binding(T.int64(4), thread=\"blockIdx.x\")"), std::string::npos) << out;
  EXPECT_NE(out.find("for k in range(T.int64(3))"), std::string::npos) << out;
  EXPECT_NE(out.find("\"kiln.scheduled\": True"), std::string::npos) << out;
}

TEST(ScheduleDefaultGPUTest, PlainTIRRunsInOneThreadAndBoundFunctionsStay) {
  std::string out = Scheduled(kStages);
  size_t plain = out.find("def plain");
  ASSERT_NE(plain, std::string::npos) << out;
  std::string plain_text = out.substr(plain, out.find("@T.prim_func", plain) - plain);
  EXPECT_NE(plain_text.find("T.thread_binding(T.int64(1), thread=\"blockIdx.x\")"), std::string::npos) << plain_text;
  EXPECT_NE(plain_text.find("T.thread_binding(T.int64(1), thread=\"threadIdx.x\")"), std::string::npos) << plain_text;
  size_t bound = out.find("def bound");
  ASSERT_NE(bound, std::string::npos);
  EXPECT_EQ(out.find("kiln.scheduled", bound), std::string::npos) << out.substr(bound);
}

}  // namespace
}  // namespace kiln::relax::legalize
