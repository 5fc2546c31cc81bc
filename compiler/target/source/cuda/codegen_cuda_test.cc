#include "compiler/target/source/cuda/codegen_cuda.h"

#include <gtest/gtest.h>

#include "compiler/script/script.h"
#include "compiler/target/source/cuda/nvrtc_compile.h"
#include "compiler/target/testing/gpu_kernels.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
namespace t = tir::transform;

// TVMScript -> the kernels SplitHostDevice outlines -> CUDA C++.
absl::StatusOr<CUDAProgramSource> Generate(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  if (!r.ok()) return r.status();
  absl::StatusOr<PrimFunc> f = t::LowerSBlocks(Downcast<PrimFunc>(*r), "main");
  if (!f.ok()) return f.status();
  absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), "main", "cuda");
  if (!split.ok()) return split.status();
  return GenerateCUDA(split->kernels);
}

// NVRTC accepts the program and returns PTX for sm_90 (skipped where NVRTC is missing).
void ExpectCompiles(const std::string& source, bool fast_math = false) {
  CUDATarget target;
  target.fast_math = fast_math;
  absl::StatusOr<std::string> ptx = CompileWithNVRTC(source, target);
  if (absl::IsFailedPrecondition(ptx.status())) {
    std::printf("NVRTC check skipped: %s\n", std::string(ptx.status().message()).c_str());
    return;
  }
  ASSERT_TRUE(ptx.ok()) << ptx.status() << "\n" << source;
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
}

TEST(CodegenCUDATest, SharedMemoryBarrierAndLaunchBounds) {
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
  EXPECT_NE(s.find("extern \"C\" __global__ void __launch_bounds__(64) main_kernel(float* A, float* B)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("blockIdx.x;"), std::string::npos) << s;
  EXPECT_NE(s.find("threadIdx.x;"), std::string::npos) << s;
  EXPECT_NE(s.find("__shared__ __align__(16) float tile[64];"), std::string::npos) << s;
  EXPECT_NE(s.find("__syncthreads()"), std::string::npos) << s;
  EXPECT_EQ(s.find("cuda_fp16.h"), std::string::npos) << "float32-only programs need no toolkit header";
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].launch_tags, (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
  ExpectCompiles(s);
}

TEST(CodegenCUDATest, ScalarParamsMathFloorDivAndFastMath) {
  auto p = Generate(R"(
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding((n + 31) // 32, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            if bx * 32 + tx < n:
                B[bx * 32 + tx] = T.exp(A[bx * 32 + tx]) + T.Cast("float32", (bx * 32 + tx) // 3)
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->kernels.size(), 1u);
  ASSERT_EQ(p->kernels[0].params.size(), 3u);
  EXPECT_TRUE(p->kernels[0].params[2].is_int());
  EXPECT_NE(p->source.find(", int32_t n"), std::string::npos) << p->source;  // a scalar by value
  EXPECT_NE(p->source.find("expf("), std::string::npos) << p->source;
  ExpectCompiles(p->source);
  ExpectCompiles(p->source, /*fast_math=*/true);
}

TEST(CodegenCUDATest, HalfAndBFloat16UseTheToolkitTypes) {
  auto p = Generate(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "bfloat16"), C: T.Buffer((64,), "float16")):
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        C[tx] = A[tx] * A[tx] + T.Cast("float16", B[tx] + T.bfloat16(1.0))
)");
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string& s = p->source;
  EXPECT_NE(s.find("#include <cuda_fp16.h>"), std::string::npos) << s;
  EXPECT_NE(s.find("#include <cuda_bf16.h>"), std::string::npos) << s;
  EXPECT_NE(s.find("kiln_half* A"), std::string::npos) << s;
  EXPECT_NE(s.find("uint16_t* B"), std::string::npos) << s;
  ExpectCompiles(s);
}

TEST(CodegenCUDATest, DynamicSharedAllocationIsRejected) {
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

// CUDA has no scalable vectors: the kernel is refused before any of it is printed.
TEST(CodegenCUDATest, ScalableVectorIsRejected) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(R"(
@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "k"})
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        A[0:T.vscale() * 4] = T.Broadcast(T.float32(0), T.vscale() * 4)
)", "t.py");
  ASSERT_TRUE(r.ok()) << r.status();
  auto p = GenerateCUDA({Downcast<PrimFunc>(*r)});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(p.status().message().find("the CUDA backend does not support scalable vectors"), std::string::npos)
      << p.status();
  EXPECT_NE(p.status().message().find("in function 'k' at t.py:6:"), std::string::npos) << p.status();
}

TEST(CodegenCUDATest, CPlusPlusKeywordsAreRenamed) {
  auto p = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        new: T.float32 = A[tx]
        A[tx] = new * T.float32(2)
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->source.find(" new "), std::string::npos) << p->source;
  ExpectCompiles(p->source);
}

using testing::MmaKernel;

TEST(CodegenCUDATest, TensorCoreMmaIsInlinePtx) {
  auto p = Generate(MmaKernel("m16n8k16"));
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string& s = p->source;
  EXPECT_NE(s.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos) << s;
  EXPECT_NE(s.find("(void)(kiln_mma_m16n8k16_f32_f16((a + ("), std::string::npos) << s;
  CUDATarget target;
  target.arch = "sm_80";
  absl::StatusOr<std::string> ptx = CompileWithNVRTC(s, target);
  if (absl::IsFailedPrecondition(ptx.status())) GTEST_SKIP() << ptx.status();
  ASSERT_TRUE(ptx.ok()) << ptx.status() << "\n" << s;
  EXPECT_NE(ptx->find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find(".local"), std::string::npos) << "the fragments stay in registers\n" << *ptx;
  // Programs without mma do not carry the helper.
  auto plain = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "float16")):
    tx = T.launch_thread("threadIdx.x", 32)
    A[tx] = A[tx] + A[tx]
)");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->source.find("kiln_mma"), std::string::npos) << plain->source;
}

TEST(CodegenCUDATest, UnsupportedMmaFormIsInvalidArgument) {
  auto p = Generate(MmaKernel("m16n8k8"));
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(p.status())) << p.status();
  EXPECT_NE(p.status().message().find("T.ptx_legacy.mma: only m16n8k16"), std::string::npos) << p.status();
}

// The Hopper schedule's ops (schedule_gpu_gemm_wgmma.h) in a kernel of their own: cp.async copies
// into a dynamic shared buffer, the proxy fence, one wgmma group and its wait. The dynamic buffer
// is the extern array, launched with its size (the last launch param); NVRTC builds it for sm_90a.
constexpr char kWgmmaKernel[] = R"(
@T.prim_func
def main(A: T.Buffer((8192,), "float16"), C: T.Buffer((16384,), "float32")):
    for tid in T.thread_binding(128, thread="threadIdx.x"):
        S = T.alloc_buffer((32768,), "float16", scope="shared.dyn")
        acc = T.alloc_buffer((128,), "float32", scope="local")
        T.ptx_cp_async("float16", S.data, tid * 8, A.data, tid * 8, 16)
        T.ptx_commit_group()
        T.ptx_wait_group(0)
        T.cuda.fence_proxy_async_shared()
        T.tvm_storage_sync("shared")
        T.cuda.wgmma_fence_operand(acc.data, 0, 128)
        T.cuda.wgmma_fence()
        T.cuda.wgmma_mma_async("SHAPE", "f32", "f16", "f16", acc.data, 0, T.Cast("uint64", T.cuda.cvta_generic_to_shared(S.data)) // T.uint64(16), T.uint64(4611686293338849280), 0, 1)
        T.cuda.wgmma_commit_group()
        T.cuda.wgmma_wait_group(0)
        T.cuda.wgmma_fence_operand(acc.data, 0, 128)
        for i in range(128):
            C[tid * 128 + i] = acc[i]
)";

std::string WgmmaKernel(const std::string& shape) {
  std::string k = kWgmmaKernel;
  k.replace(k.find("SHAPE"), 5, shape);
  return k;
}

TEST(CodegenCUDATest, AsyncCopiesAndWgmmaArePtxInDynamicSharedMemory) {
  auto p = Generate(WgmmaKernel("m64n256k16"));
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string& s = p->source;
  EXPECT_NE(s.find("extern __shared__ __align__(1024) uint8_t kiln_dynamic_shared[];"), std::string::npos) << s;
  EXPECT_NE(s.find("kiln_cp_async_16("), std::string::npos) << s;
  EXPECT_NE(s.find("kiln_wgmma_m64n256k16_f32_f16<0, 1>("), std::string::npos) << s;
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].launch_tags, (std::vector<std::string>{"threadIdx.x", "tir.use_dyn_shared_memory"}));
  CUDATarget target;
  target.arch = "sm_90a";
  absl::StatusOr<std::string> ptx = CompileWithNVRTC(s, target);
  if (absl::IsFailedPrecondition(ptx.status())) GTEST_SKIP() << ptx.status();
  ASSERT_TRUE(ptx.ok()) << ptx.status() << "\n" << s;
  for (const char* inst : {"cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 0",
                           "fence.proxy.async.shared::cta", "wgmma.fence.sync.aligned",
                           "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "wgmma.commit_group.sync.aligned",
                           "wgmma.wait_group.sync.aligned 0"}) {
    EXPECT_NE(ptx->find(inst), std::string::npos) << inst << "\n" << *ptx;
  }
  EXPECT_EQ(ptx->find(".local"), std::string::npos) << "the accumulators stay in registers\n" << *ptx;
  // Programs without them carry none of the helpers.
  auto plain = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    tx = T.launch_thread("threadIdx.x", 32)
    A[tx] = A[tx] + A[tx]
)");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->source.find("kiln_wgmma"), std::string::npos) << plain->source;
  EXPECT_EQ(plain->source.find("kiln_cp_async"), std::string::npos) << plain->source;
  EXPECT_EQ(plain->source.find("kiln_dynamic_shared"), std::string::npos) << plain->source;
}

TEST(CodegenCUDATest, UnsupportedWgmmaCopyAndSharedFormsAreInvalidArgument) {
  auto shape = Generate(WgmmaKernel("m64n256k8"));
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("T.cuda.wgmma_mma_async: only m64nNk16"), std::string::npos) << shape.status();
  std::string twelve = WgmmaKernel("m64n256k16");
  twelve.replace(twelve.find("tid * 8, 16)"), 12, "tid * 8, 12)");
  auto copy = Generate(twelve);
  ASSERT_FALSE(copy.ok());
  EXPECT_NE(copy.status().message().find("T.ptx_cp_async copies 4, 8 or 16 bytes"), std::string::npos) << copy.status();
  auto two = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        S = T.alloc_buffer((32,), "float32", scope="shared.dyn")
        R = T.alloc_buffer((32,), "float32", scope="shared.dyn")
        S[tx] = A[tx]
        R[tx] = S[tx]
        A[tx] = R[tx]
)");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("one dynamic shared allocation"), std::string::npos) << two.status();
}

}  // namespace
}  // namespace kiln::codegen
