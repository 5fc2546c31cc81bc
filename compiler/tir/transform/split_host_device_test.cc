#include "gtest/gtest.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// Parsed, then LowerSBlocks + FlattenBuffer + Simplify: the form SplitHostDevice runs on.
PrimFunc Flat(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || !r->as<PrimFuncNode>()) return PrimFunc();
  absl::StatusOr<PrimFunc> lowered = LowerSBlocks(Downcast<PrimFunc>(*r), "f");
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  return lowered.ok() ? Simplify(FlattenBuffer(*lowered)) : PrimFunc();
}

std::string Print(const PrimFunc& f) { return script::printer::Print(f); }

TEST(SplitHostDeviceTest, LaunchThreadBecomesKernelAndHostLaunch) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    bx = T.launch_thread("blockIdx.x", 8)
    tx = T.launch_thread("threadIdx.x", 128)
    B[bx * 128 + tx] = A[bx * 128 + tx] * T.float32(2)
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "opencl");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->kernels.size(), 1u);
  const PrimFunc& k = s->kernels[0];
  EXPECT_EQ(k->GetGlobalSymbol(), "main_kernel");
  ASSERT_EQ(k->params.size(), 2u);  // the two data handles
  EXPECT_TRUE(k->params[0].dtype().is_handle());
  std::string kernel = Print(k);
  EXPECT_NE(kernel.find("blockIdx.x"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("threadIdx.x"), std::string::npos) << kernel;
  std::string host = Print(s->host);
  // The host launches the kernel with the handles and the extents in launch order.
  EXPECT_NE(host.find("T.call_packed(\"main_kernel\""), std::string::npos) << host;
  EXPECT_NE(host.find(", 8, 128)"), std::string::npos) << host;
  EXPECT_EQ(host.find("threadIdx"), std::string::npos) << host;
  // Buffers stay the host's argument contract.
  EXPECT_EQ(s->host->buffer_map.size(), 2u);
}

TEST(SplitHostDeviceTest, SymbolicExtentIsAKernelParamAndComputedOnHost) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n * 64,), "float32")
    B = T.match_buffer(b, (n * 64,), "float32")
    for bx in T.thread_binding(n, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            B[bx * 64 + tx] = A[bx * 64 + tx]
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "opencl");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->kernels.size(), 1u);
  const PrimFunc& k = s->kernels[0];
  ASSERT_EQ(k->params.size(), 3u);  // handles first, then n
  EXPECT_TRUE(k->params[0].dtype().is_handle());
  EXPECT_TRUE(k->params[1].dtype().is_handle());
  EXPECT_EQ(k->params[2]->name, "n");
  std::string host = Print(s->host);
  EXPECT_NE(host.find(", n, n, 64)"), std::string::npos) << host;
  // Thread-bound loops became thread_extent attributes in the kernel.
  std::string kernel = Print(k);
  EXPECT_EQ(kernel.find("T.thread_binding"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("T.launch_thread"), std::string::npos) << kernel;
}

TEST(SplitHostDeviceTest, TwoRegionsTwoKernels) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        B[tx] = A[tx]
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        A[tx] = B[tx] + T.float32(1)
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "opencl");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->kernels.size(), 2u);
  EXPECT_EQ(s->kernels[1]->GetGlobalSymbol(), "main_kernel_1");
}

TEST(SplitHostDeviceTest, ExtentDefinedInsideTheKernelIsRejected) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(A: T.Buffer((64, 64), "float32")):
    for bx in T.thread_binding(64, thread="blockIdx.x"):
        for tx in T.thread_binding(bx, thread="threadIdx.x"):
            A[bx, tx] = T.float32(0)
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "opencl");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("threadIdx.x"), std::string::npos) << s.status();
}

// A "shared.dyn" allocation is sized at launch: its bytes follow the thread extents, under TVM's
// tag tir.use_dyn_shared_memory.
TEST(SplitHostDeviceTest, DynamicSharedBytesArePassedAtLaunch) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(A: T.Buffer((1024,), "float32")):
    for bx in T.thread_binding(8, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S = T.alloc_buffer((16384,), "float32", scope="shared.dyn")
            S[tx] = A[bx * 128 + tx]
            A[bx * 128 + tx] = S[127 - tx]
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "cuda");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->kernels.size(), 1u);
  std::string kernel = Print(s->kernels[0]);
  EXPECT_NE(kernel.find("\"tir.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\", \"tir.use_dyn_shared_memory\"]"),
            std::string::npos)
      << kernel;
  std::string host = Print(s->host);
  EXPECT_NE(host.find(", 8, 128, T.int64(65536))"), std::string::npos) << host;
}

TEST(SplitHostDeviceTest, NoThreadsNoKernels) {
  PrimFunc f = Flat(R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
)");
  ASSERT_TRUE(f.defined());
  absl::StatusOr<SplitFunctions> s = SplitHostDevice(f, "main", "opencl");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->kernels.empty());
  EXPECT_TRUE(s->host.same_as(f));
}

}  // namespace
}  // namespace kiln::tir::transform
