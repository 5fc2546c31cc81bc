#include "compiler/target/llvm/codegen_gpu.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "compiler/script/script.h"
#include "compiler/target/testing/gpu_kernels.h"
#include "compiler/target/testing/tools.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
namespace t = tir::transform;

std::vector<PrimFunc> Kernels(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  EXPECT_TRUE(r.ok()) << r.status();
  absl::StatusOr<PrimFunc> f = t::LowerSBlocks(Downcast<PrimFunc>(*r), "main");
  EXPECT_TRUE(f.ok()) << f.status();
  absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), "main", "cuda");
  EXPECT_TRUE(split.ok()) << split.status();
  return split.ok() ? split->kernels : std::vector<PrimFunc>{};
}

using testing::kPtxas;
using testing::MmaKernel;
using testing::RunCommand;
using testing::WriteTemp;

// ptxas -arch=sm_90 accepts the PTX (skipped with a message where the toolkit is missing).
void ExpectPtxasAccepts(const std::string& ptx) {
  if (access(kPtxas, X_OK) != 0) {
    std::printf("ptxas check skipped: %s not found\n", kPtxas);
    return;
  }
  std::string path = WriteTemp("k.ptx", ptx), log;
  int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90 -o /dev/null ", path), &log);
  EXPECT_EQ(rc, 0) << log << "\n" << ptx;
}

constexpr char kSharedTile[] = R"(
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tile = T.alloc_shared((64,))
    tx = T.launch_thread("threadIdx.x", 64)
    tile[tx] = A[bx * 64 + tx]
    T.tvm_storage_sync("shared")
    B[bx * 64 + tx] = tile[63 - tx]
)";

TEST(GPUTargetTest, ParsesAndValidatesCPUs) {
  absl::StatusOr<GPUTarget> n = ParseGPUTarget("nvptx -mcpu=sm_80");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->ToString(), "nvptx -mcpu=sm_80");
  EXPECT_EQ(n->triple(), "nvptx64-nvidia-cuda");
  absl::StatusOr<GPUTarget> r = ParseGPUTarget("rocm");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToString(), "rocm -mcpu=gfx90a");
  EXPECT_FALSE(ParseGPUTarget("nvptx -mcpu=gfx90a").ok());
  EXPECT_FALSE(ParseGPUTarget("nvptx -arch=sm_90").ok());
  EXPECT_FALSE(ParseGPUTarget("cuda").ok());
}

TEST(CodegenNVPTXTest, SharedTileKernel) {
  std::vector<PrimFunc> kernels = Kernels(kSharedTile);
  ASSERT_EQ(kernels.size(), 1u);
  GPUTarget target = *ParseGPUTarget("nvptx -mcpu=sm_90");
  absl::StatusOr<std::string> ir = EmitGPULLVMAssembly(kernels, target);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("!\"kernel\", i32 1"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("llvm.nvvm.read.ptx.sreg.tid.x"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("addrspace(3)"), std::string::npos) << *ir;
  absl::StatusOr<std::string> ptx = CompileGPUKernels(kernels, target);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".entry main_kernel"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".maxntid 64"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".shared"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("bar.sync"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("%ctaid.x"), std::string::npos) << *ptx;
  ExpectPtxasAccepts(*ptx);
}

TEST(CodegenNVPTXTest, MathGoesThroughLibdevice) {
  std::vector<PrimFunc> kernels = Kernels(R"(
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding((n + 31) // 32, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            if bx * 32 + tx < n:
                B[bx * 32 + tx] = T.exp(A[bx * 32 + tx]) + T.tanh(A[bx * 32 + tx]) + T.sqrt(A[bx * 32 + tx])
)");
  ASSERT_EQ(kernels.size(), 1u);
  absl::StatusOr<std::string> ptx = CompileGPUKernels(kernels, *ParseGPUTarget("nvptx"));
  if (absl::IsFailedPrecondition(ptx.status())) GTEST_SKIP() << ptx.status();
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_EQ(ptx->find("expf"), std::string::npos) << "no libm call may remain\n" << *ptx;
  EXPECT_EQ(ptx->find(".extern"), std::string::npos) << *ptx;
  ExpectPtxasAccepts(*ptx);
}

// A multiply feeding an add becomes one fma, as NVRTC compiles the same CUDA source.
TEST(CodegenNVPTXTest, MultiplyAddContractsToFma) {
  std::vector<PrimFunc> kernels = Kernels(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    tx = T.launch_thread("threadIdx.x", 64)
    C[tx] = A[tx] * B[tx] + C[tx]
)");
  ASSERT_EQ(kernels.size(), 1u);
  absl::StatusOr<std::string> ptx = CompileGPUKernels(kernels, *ParseGPUTarget("nvptx -mcpu=sm_90"));
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find("fma.rn.f32"), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find("mul.f32"), std::string::npos) << *ptx;
  ExpectPtxasAccepts(*ptx);
}

TEST(CodegenROCmTest, SharedTileCodeObject) {
  std::vector<PrimFunc> kernels = Kernels(kSharedTile);
  ASSERT_EQ(kernels.size(), 1u);
  GPUTarget target = *ParseGPUTarget("rocm -mcpu=gfx90a");
  absl::StatusOr<std::string> ir = EmitGPULLVMAssembly(kernels, target);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("amdgpu_kernel void @main_kernel"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("llvm.amdgcn.s.barrier"), std::string::npos) << *ir;
  absl::StatusOr<std::string> hsaco = CompileGPUKernels(kernels, target);
  if (absl::IsFailedPrecondition(hsaco.status())) GTEST_SKIP() << hsaco.status();
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  ASSERT_GE(hsaco->size(), 4u);
  EXPECT_EQ(hsaco->substr(0, 4), "\x7f" "ELF");
  if (access("/usr/bin/llvm-readobj-16", X_OK) != 0) GTEST_SKIP() << "llvm-readobj-16 not found";
  std::string path = WriteTemp("k.hsaco", *hsaco), log;
  ASSERT_EQ(RunCommand("/usr/bin/llvm-readobj-16 --file-headers --symbols " + path, &log), 0) << log;
  EXPECT_NE(log.find("EF_AMDGPU_MACH_AMDGCN_GFX90A"), std::string::npos) << log;
  EXPECT_NE(log.find("Type: SharedObject"), std::string::npos) << log;
  EXPECT_NE(log.find("main_kernel.kd"), std::string::npos) << log;
}


TEST(CodegenNVPTXTest, TensorCoreMma) {
  std::vector<PrimFunc> kernels = Kernels(MmaKernel("m16n8k16"));
  ASSERT_EQ(kernels.size(), 1u);
  GPUTarget target = *ParseGPUTarget("nvptx -mcpu=sm_80");
  absl::StatusOr<std::string> ir = EmitGPULLVMAssembly(kernels, target);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("@llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half>"), std::string::npos) << *ir;
  absl::StatusOr<std::string> ptx = CompileGPUKernels(kernels, target);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find(".local"), std::string::npos) << "the fragments stay in registers\n" << *ptx;
  ExpectPtxasAccepts(*ptx);
}

TEST(CodegenGPUTest, MmaIsRejectedWhereUnsupported) {
  // Another shape on nvptx, and any mma on rocm.
  absl::StatusOr<std::string> shape = CompileGPUKernels(Kernels(MmaKernel("m16n8k8")), *ParseGPUTarget("nvptx"));
  ASSERT_FALSE(shape.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(shape.status())) << shape.status();
  EXPECT_NE(shape.status().message().find("T.ptx_legacy.mma"), std::string::npos) << shape.status();
  absl::StatusOr<std::string> ir = EmitGPULLVMAssembly(Kernels(MmaKernel("m16n8k16")), *ParseGPUTarget("rocm"));
  ASSERT_FALSE(ir.ok());
  EXPECT_NE(ir.status().message().find("T.ptx_legacy.mma needs nvptx"), std::string::npos) << ir.status();
}

TEST(CodegenGPUTest, UnsupportedConstructsAreInvalidArgument) {
  std::vector<PrimFunc> kernels = Kernels(R"(
@T.prim_func
def main(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        tile = T.alloc_shared((n,))
        tile[tx] = A[tx]
        A[tx] = tile[tx]
)");
  ASSERT_EQ(kernels.size(), 1u);
  absl::StatusOr<std::string> ptx = CompileGPUKernels(kernels, *ParseGPUTarget("nvptx"));
  ASSERT_FALSE(ptx.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(ptx.status())) << ptx.status();
  EXPECT_NE(ptx.status().message().find("non-constant size"), std::string::npos) << ptx.status();
}

}  // namespace
}  // namespace kiln::codegen
