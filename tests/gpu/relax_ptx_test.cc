// Relax models built for "cuda -arch=sm_90" (NVRTC) and "nvptx -mcpu=sm_90" (LLVM) through the
// whole pipeline (GPU legalization, ScheduleDefaultGPU with its shared-memory tiles, host/device
// split): the executable's device library is PTX whose kernels use shared memory and barriers
// where the default schedule tiled a matmul or a convolution and warp shuffles in the row sum, and
// `ptxas -arch=sm_90` accepts it
// (skipped with a message when ptxas or NVRTC is missing); and a 4096^3 matmul's kernel (the large
// GEMM tile) without register spills. tests/gpu/run_cuda.sh runs the same models on a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "compiler/relax/legalize/schedule_gpu_gemm_mma.h"
#include "compiler/script/script.h"
#include "compiler/target/testing/tools.h"
#include "runtime/device/device_module.h"

namespace kiln {
namespace {

using codegen::testing::kPtxas;
using codegen::testing::RunCommand;
using codegen::testing::WriteTemp;

// A matmul with partial tiles, a batched matmul, a padded conv2d, and a row-sum reduction.
constexpr char kModel[] = R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((70, 37), "float32"), y: R.Tensor((37, 90), "float32"), p: R.Tensor((2, 30, 17), "float32"), q: R.Tensor((2, 17, 50), "float32"), d: R.Tensor((2, 8, 12, 12), "float32"), w: R.Tensor((16, 8, 3, 3), "float32")) -> R.Tuple(R.Tensor((70, 90), "float32"), R.Tensor((2, 30, 50), "float32"), R.Tensor((2, 16, 12, 12), "float32"), R.Tensor((70,), "float32")):
        with R.dataflow():
            mm: R.Tensor((70, 90), "float32") = R.matmul(x, y)
            bmm: R.Tensor((2, 30, 50), "float32") = R.matmul(p, q)
            conv: R.Tensor((2, 16, 12, 12), "float32") = R.nn.conv2d(d, w, padding=[1, 1, 1, 1])
            s: R.Tensor((70,), "float32") = R.sum(mm, axis=[1])
            gv = (mm, bmm, conv, s)
            R.output(gv)
        return gv
)PY";

// The PTX device library of `model` built for `target`; a skip reason in *skip when the toolkit
// is missing.
absl::StatusOr<runtime::DeviceBlob> BuildPtx(const char* model, const std::string& target, std::string* skip) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(model, "relax_ptx_test.py");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<vm::Executable> exe = driver::BuildExecutable(script::AsModule(*parsed), target);
  if (absl::IsFailedPrecondition(exe.status())) *skip = absl::StrCat(target, ": ", exe.status().ToString());
  if (!exe.ok()) return exe.status();
  for (const vm::LibraryBlob& lib : exe->libraries) {
    if (lib.kind == "device") return runtime::DeviceBlob::Deserialize(lib.bytes);
  }
  return absl::NotFoundError(absl::StrCat(target, ": no device library"));
}

void CheckTarget(const std::string& target) {
  std::string skip;
  absl::StatusOr<runtime::DeviceBlob> blob = BuildPtx(kModel, target, &skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_TRUE(blob.ok()) << target << ": " << blob.status();
  ASSERT_EQ(blob->format, "ptx");
  const std::string& ptx = blob->code;
  EXPECT_NE(ptx.find(".shared"), std::string::npos) << target << ": no shared-memory tile\n" << ptx;
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos) << target << ": no barrier\n" << ptx;
  EXPECT_NE(ptx.find("shfl.sync.down"), std::string::npos) << target << ": the reduction uses no warp shuffle\n" << ptx;
  if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "ptxas check: " << kPtxas << " not found (no CUDA toolkit)";
  std::string log;
  int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90 -v -o /dev/null ", WriteTemp("model.ptx", ptx)), &log);
  EXPECT_EQ(rc, 0) << target << ": ptxas rejected the PTX:\n" << log;
  std::printf("ptxas -arch=sm_90 (%s, %zu kernels): %s\n", target.c_str(), blob->kernels.size(), rc == 0 ? "ok" : "REJECTED");
}

TEST(RelaxPtxTest, CudaModelPassesPtxas) { CheckTarget("cuda -arch=sm_90"); }
TEST(RelaxPtxTest, NvptxModelPassesPtxas) { CheckTarget("nvptx -mcpu=sm_90"); }

// A 4096^3 matmul (the issue's benchmark size) gets the default schedule's large GEMM tile: its
// kernel keeps the 8 x 8 accumulators of a thread in registers (ptxas reports no spills), reads
// the shared tiles as 16-byte vectors and multiplies with fused multiply-adds.
constexpr char kLargeMatmul[] = R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4096, 4096), "DT"), y: R.Tensor((4096, 4096), "DT")) -> R.Tensor((4096, 4096), "DT"):
        with R.dataflow():
            gv: R.Tensor((4096, 4096), "DT") = R.matmul(x, y)
            R.output(gv)
        return gv
)PY";

void CheckLargeMatmul(const std::string& target, const std::string& dtype) {
  std::string model = kLargeMatmul;
  for (size_t at; (at = model.find("DT")) != std::string::npos;) model.replace(at, 2, dtype);
  std::string skip;
  absl::StatusOr<runtime::DeviceBlob> blob = BuildPtx(model.c_str(), target, &skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_TRUE(blob.ok()) << target << ": " << blob.status();
  const std::string& ptx = blob->code;
  EXPECT_NE(ptx.find("ld.shared.v4"), std::string::npos) << target << " " << dtype << ": no vector shared reads\n" << ptx;
  EXPECT_NE(ptx.find("fma.rn.f32"), std::string::npos) << target << " " << dtype << ": no fused multiply-add\n" << ptx;
  EXPECT_EQ(ptx.find("div.s64"), std::string::npos) << target << " " << dtype << ": a 64-bit division\n" << ptx;
  if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "ptxas check: " << kPtxas << " not found (no CUDA toolkit)";
  std::string log;
  int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90 -v -o /dev/null ", WriteTemp("matmul.ptx", ptx)), &log);
  ASSERT_EQ(rc, 0) << target << ": ptxas rejected the PTX:\n" << log;
  // One kernel: no local memory at all (a stack frame would hold spilled or indexed accumulators).
  EXPECT_NE(log.find("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
      << target << " " << dtype << ":\n" << log;
  std::printf("ptxas -arch=sm_90 -v, 4096^3 %s matmul (%s):\n%s", dtype.c_str(), target.c_str(), log.c_str());
}

TEST(RelaxPtxTest, LargeMatmulKernelsKeepAccumulatorsInRegisters) {
  // float16 before sm_80 has no tensor-core schedule: the SIMT tile as for float32.
  for (const char* target : {"cuda -arch=sm_90", "nvptx -mcpu=sm_90"}) CheckLargeMatmul(target, "float32");
  for (const char* target : {"cuda -arch=sm_75", "nvptx -mcpu=sm_75"}) CheckLargeMatmul(target, "float16");
}

// On sm_80 and newer a 4096^3 float16 matmul runs on tensor cores (schedule_gpu_gemm_mma.h): the
// PTX has the mma.sync instruction, ptxas accepts it, and the fragments and accumulators stay in
// registers (no stack frame, no spills).
std::string Float16Matmul(const std::string& out) {
  return absl::StrCat(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4096, 4096), "float16"), y: R.Tensor((4096, 4096), "float16")) -> R.Tensor((4096, 4096), ")PY",
                                         out, R"PY("):
        with R.dataflow():
            gv: R.Tensor((4096, 4096), ")PY", out, R"PY(") = R.matmul(x, y, out_dtype=")PY", out, R"PY(")
            R.output(gv)
        return gv
)PY");
}

void CheckMmaMatmul(const std::string& target, const std::string& out_dtype) {
  const std::string& out = out_dtype;
  const std::string model = Float16Matmul(out);
  std::string skip;
  absl::StatusOr<runtime::DeviceBlob> blob = BuildPtx(model.c_str(), target, &skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_TRUE(blob.ok()) << target << ": " << blob.status() << "\n" << model;
  const std::string& ptx = blob->code;
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos)
      << target << " " << out_dtype << ": no tensor-core mma\n" << ptx;
  EXPECT_EQ(ptx.find("fma.rn.f32"), std::string::npos) << target << " " << out_dtype << ": SIMT multiply-adds\n" << ptx;
  if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "ptxas check: " << kPtxas << " not found (no CUDA toolkit)";
  std::string log;
  int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90 -v -o /dev/null ", WriteTemp(absl::StrCat("matmul_mma_", target.substr(0, target.find(' ')), "_", target.substr(target.find("sm_")), "_", out, ".ptx"), ptx)), &log);
  ASSERT_EQ(rc, 0) << target << ": ptxas rejected the PTX:\n" << log;
  EXPECT_NE(log.find("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"), std::string::npos)
      << target << " " << out_dtype << ":\n" << log;
  std::printf("ptxas -arch=sm_90 -v, 4096^3 float16 -> %s tensor-core matmul (%s):\n%s", out_dtype.c_str(),
              target.c_str(), log.c_str());
}

TEST(RelaxPtxTest, Float16MatmulUsesTensorCoresOnSm80AndNewer) {
  if (!relax::legalize::kGemmTensorCores) {
    // Switched off: float16 keeps the SIMT tile everywhere.
    for (const char* target : {"cuda -arch=sm_90", "nvptx -mcpu=sm_90"}) CheckLargeMatmul(target, "float16");
    return;
  }
  for (const char* target : {"cuda -arch=sm_90", "nvptx -mcpu=sm_90", "cuda -arch=sm_80", "nvptx -mcpu=sm_80"}) {
    for (const char* out : {"float16", "float32"}) CheckMmaMatmul(target, out);
  }
}

// With cuda -arch=sm_90a the same matmuls take the Hopper schedule (schedule_gpu_gemm_wgmma.h):
// wgmma.mma_async over cp.async-filled tiles in 192 KiB of dynamic shared memory, which the
// kernel's launch params ask for, and bulk copies of the output tile's rows. ptxas must accept it for sm_90a with the accumulators in
// registers and without serializing the wgmma instructions (it warns when it has to).
TEST(RelaxPtxTest, Float16MatmulUsesWgmmaOnSm90a) {
  for (const char* out : {"float16", "float32"}) {
    std::string skip;
    absl::StatusOr<runtime::DeviceBlob> blob = BuildPtx(Float16Matmul(out).c_str(), "cuda -arch=sm_90a", &skip);
    if (!skip.empty()) GTEST_SKIP() << skip;
    ASSERT_TRUE(blob.ok()) << blob.status();
    const std::string& ptx = blob->code;
    EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos) << ptx.substr(0, 400);
    EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"), std::string::npos) << out;
    EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos) << out;
    EXPECT_NE(ptx.find("cp.async.bulk.global.shared::cta.bulk_group"), std::string::npos) << out;
    EXPECT_EQ(ptx.find("mma.sync"), std::string::npos) << out;
    ASSERT_EQ(blob->kernels.size(), 1u);
    EXPECT_EQ(blob->kernels[0].launch_params.back(), "tir.use_dyn_shared_memory");
    if (access(kPtxas, X_OK) != 0) GTEST_SKIP() << "ptxas check: " << kPtxas << " not found (no CUDA toolkit)";
    std::string log;
    int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90a -v -o /dev/null ",
                                     WriteTemp(absl::StrCat("matmul_wgmma_", out, ".ptx"), ptx)),
                        &log);
    ASSERT_EQ(rc, 0) << "ptxas rejected the PTX:\n" << log;
    EXPECT_NE(log.find("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"), std::string::npos) << log;
    EXPECT_EQ(log.find("serialized"), std::string::npos) << log;
    std::printf("ptxas -arch=sm_90a -v, 4096^3 float16 -> %s wgmma matmul:\n%s", out, log.c_str());
  }
}

}  // namespace
}  // namespace kiln
