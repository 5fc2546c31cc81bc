#include "compiler/target/spirv/codegen_spirv.h"

#include <gtest/gtest.h>

#include "compiler/script/script.h"
#include "compiler/target/spirv/spirv_tools.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
namespace t = tir::transform;

// TVMScript -> the kernels SplitHostDevice outlines -> SPIR-V (validated and optimized inside).
absl::StatusOr<std::vector<SPIRVKernel>> Generate(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  if (!r.ok()) return r.status();
  absl::StatusOr<PrimFunc> f = t::LowerSBlocks(Downcast<PrimFunc>(*r), "main");
  if (!f.ok()) return f.status();
  absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), "main", "vulkan");
  if (!split.ok()) return split.status();
  std::vector<PrimFunc> kernels;
  for (const PrimFunc& k : split->kernels) kernels.push_back(t::Simplify(k));
  return GenerateSPIRV(kernels);
}

std::string Text(const SPIRVKernel& k) {
  absl::StatusOr<std::string> text = spirv::Disassemble(k.words);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(CodegenSPIRVTest, SharedMemoryBarrierAndTheLaunchInterface) {
  auto k = Generate(R"(
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), s: T.float32):
    bx = T.launch_thread("blockIdx.x", 4)
    tile = T.alloc_shared((64,))
    tx = T.launch_thread("threadIdx.x", 64)
    tile[tx] = A[bx * 64 + tx]
    T.tvm_storage_sync("shared")
    B[bx * 64 + tx] = tile[63 - tx] * s
)");
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->size(), 1u);
  EXPECT_EQ((*k)[0].name, "main_kernel");
  std::string s = Text((*k)[0]);
  EXPECT_TRUE(Has(s, "OpEntryPoint GLCompute")) << s;
  EXPECT_TRUE(Has(s, "\"main_kernel\"")) << s;
  EXPECT_TRUE(Has(s, "OpControlBarrier")) << s;
  EXPECT_TRUE(Has(s, "Workgroup")) << s;
  EXPECT_TRUE(Has(s, "BuiltIn WorkgroupSize")) << s;
  EXPECT_TRUE(Has(s, "SpecId 0")) << s;
  EXPECT_TRUE(Has(s, "BuiltIn LocalInvocationId")) << s;
  EXPECT_TRUE(Has(s, "BuiltIn WorkgroupId")) << s;
  EXPECT_TRUE(Has(s, "Binding 1")) << s;
  EXPECT_TRUE(Has(s, "PushConstant")) << s;
}

TEST(CodegenSPIRVTest, NarrowAndWideTypesDeclareTheirCapabilities) {
  auto k = Generate(R"(
@T.prim_func
def main(A: T.Buffer((32,), "int8"), B: T.Buffer((32,), "float16"), C: T.Buffer((32,), "int64"), M: T.Buffer((32,), "bool")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        C[tx] = T.Cast("int64", A[tx]) + T.Cast("int64", B[tx])
        M[tx] = A[tx] > T.int8(0)
)");
  ASSERT_TRUE(k.ok()) << k.status();
  std::string s = Text((*k)[0]);
  for (const char* cap : {"Capability Int8", "Capability Float16", "Capability Int64", "Capability StorageBuffer8BitAccess",
                          "Capability StorageBuffer16BitAccess"}) {
    EXPECT_TRUE(Has(s, cap)) << cap << "\n" << s;
  }
  EXPECT_TRUE(Has(s, "SPV_KHR_8bit_storage")) << s;
  EXPECT_FALSE(Has(s, "Capability Float64")) << s;
}

TEST(CodegenSPIRVTest, LoopsWhileLoopsAndGuardedLoadsAreStructured) {
  // The validator (run inside GenerateSPIRV) checks the structured control flow; this only needs
  // the constructs to appear.
  auto k = Generate(R"(
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "int32")):
    for i in T.thread_binding(16, thread="threadIdx.x"):
        acc = T.alloc_local((1,))
        acc[0] = T.float32(0)
        for j in range(16):
            acc[0] = acc[0] + T.if_then_else(j < i and A[i, j] > T.float32(0), A[i, j], T.float32(0))
        B[i] = T.exp(acc[0]) + T.sigmoid(acc[0])
        n: T.int32
        n = i
        while n > 1:
            n = n // 2
        C[i] = n
)");
  ASSERT_TRUE(k.ok()) << k.status();
  std::string s = Text((*k)[0]);
  EXPECT_TRUE(Has(s, "OpLoopMerge")) << s;
  EXPECT_TRUE(Has(s, "GLSL.std.450")) << s;
}

TEST(CodegenSPIRVTest, UnsupportedConstructsAreNamed) {
  auto vec = Generate(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        A[T.Ramp(tx * 4, 1, 4)] = T.Broadcast(T.float32(1), 4)
)");
  ASSERT_FALSE(vec.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(vec.status())) << vec.status();
  EXPECT_TRUE(Has(std::string(vec.status().message()), "SPIR-V codegen (main_kernel)")) << vec.status();

  auto f64 = Generate(R"(
@T.prim_func
def main(A: T.Buffer((16,), "float64")):
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        A[tx] = T.exp(A[tx])
)");
  ASSERT_FALSE(f64.ok());
  EXPECT_TRUE(Has(std::string(f64.status().message()), "float64 exp")) << f64.status();
}

}  // namespace
}  // namespace kiln::codegen
