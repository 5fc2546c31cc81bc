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
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "runtime/device/device_module.h"

namespace kiln {
namespace {

constexpr char kPtxas[] = "/usr/local/cuda/bin/ptxas";

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

std::string WriteTemp(const std::string& name, const std::string& data) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

int RunCommand(const std::string& cmd, std::string* out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  return pclose(p);
}

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
  for (const char* target : {"cuda -arch=sm_90", "nvptx -mcpu=sm_90"}) {
    for (const char* dtype : {"float32", "float16"}) CheckLargeMatmul(target, dtype);
  }
}

}  // namespace
}  // namespace kiln
