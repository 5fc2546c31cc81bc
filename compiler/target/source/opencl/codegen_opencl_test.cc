#include "compiler/target/source/opencl/codegen_opencl.h"

#include <gtest/gtest.h>

#include "compiler/script/script.h"
#include "compiler/tir/transform/passes.h"
#include "runtime/device/opencl/opencl_device.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
namespace t = tir::transform;

// TVMScript -> the kernels SplitHostDevice outlines -> OpenCL C.
absl::StatusOr<OpenCLProgramSource> Generate(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  if (!r.ok()) return r.status();
  absl::StatusOr<PrimFunc> f = t::LowerSBlocks(Downcast<PrimFunc>(*r), "main");
  if (!f.ok()) return f.status();
  absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), "main", "opencl");
  if (!split.ok()) return split.status();
  return GenerateOpenCL(split->kernels);
}

// The platform's compiler accepts the program (skipped where no OpenCL platform exists).
void ExpectBuilds(const std::string& source) {
  auto dev = runtime::opencl::OpenCLDevice::Open();
  if (!dev.ok()) {
    EXPECT_TRUE(absl::IsUnavailable(dev.status())) << dev.status();
    return;
  }
  auto prog = (*dev)->Build(source);
  EXPECT_TRUE(prog.ok()) << prog.status() << "\n" << source;
}

TEST(CodegenOpenCLTest, SharedMemoryAndBarrier) {
  auto p = Generate(R"(
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tile = T.alloc_shared((64,))
    tx = T.launch_thread("threadIdx.x", 64)
    tile[tx] = A[bx * 64 + tx]
    T.tvm_storage_sync("shared")
    B[bx * 64 + tx] = tile[63 - tx]
)");
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string& s = p->source;
  EXPECT_NE(s.find("__kernel void main_kernel(__global float* A, __global float* B)"), std::string::npos) << s;
  EXPECT_NE(s.find("get_group_id(0)"), std::string::npos) << s;
  EXPECT_NE(s.find("get_local_id(0)"), std::string::npos) << s;
  EXPECT_NE(s.find("__local float tile"), std::string::npos) << s;
  EXPECT_NE(s.find("barrier(CLK_LOCAL_MEM_FENCE)"), std::string::npos) << s;
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].launch_tags, (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
  ExpectBuilds(s);
}

TEST(CodegenOpenCLTest, ScalarParamsMathAndFloorDiv) {
  auto p = Generate(R"(
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding((n + 31) // 32, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            if bx * 32 + tx < n:
                B[bx * 32 + tx] = T.fma(T.exp(A[bx * 32 + tx]), A[bx * 32 + tx], T.Cast("float32", (bx * 32 + tx) // 3))
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->kernels.size(), 1u);
  ASSERT_EQ(p->kernels[0].params.size(), 3u);
  EXPECT_TRUE(p->kernels[0].params[2].is_int());
  EXPECT_NE(p->source.find(", int32_t n"), std::string::npos) << p->source;  // a scalar by value
  ExpectBuilds(p->source);
}

TEST(CodegenOpenCLTest, DynamicSharedAllocationIsRejected) {
  auto p = Generate(R"(
@T.prim_func
def main(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        tile = T.alloc_shared((n,))
        tile[tx] = A[tx]
        A[tx] = tile[tx]
)");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("non-constant size"), std::string::npos) << p.status();
}

// OpenCL sizes local memory in the kernel; a "shared.dyn" allocation is refused, not printed.
TEST(CodegenOpenCLTest, DynamicSharedScopeIsRefused) {
  auto p = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        S = T.alloc_buffer((32,), "float32", scope="shared.dyn")
        S[tx] = A[tx]
        A[tx] = S[31 - tx]
)");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("in scope shared.dyn: the dialect has no dynamic shared memory"), std::string::npos)
      << p.status();
}

}  // namespace
}  // namespace kiln::codegen
