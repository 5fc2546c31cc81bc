// GPU builds: LowerForDevice's split and kernel table, its rejection of host code that touches
// buffers, and the whole real path on OpenCL (PoCL in CI): a Relax module built for "opencl" is an
// executable with LLVM host code plus a device library, serialized and loaded back, and the VM
// runs it on the device with results equal to the llvm build's. Without an OpenCL platform the
// device runs are skipped with the reason.
#include "compiler/driver/device_build.h"

#include <cstring>
#include <random>

#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/device/device_module.h"
#include "runtime/vm/vm.h"

namespace kiln::driver {
namespace {

ir::IRModule Parse(const char* src) {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(src, "device_build_test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? script::AsModule(*r) : ir::IRModule();
}

constexpr char kKernels[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func
    def scale(a: T.handle, b: T.handle, alpha: T.float32):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for bx in T.thread_binding((n + 63) // 64, thread="blockIdx.x"):
            for tx in T.thread_binding(64, thread="threadIdx.x"):
                if bx * 64 + tx < n:
                    B[bx * 64 + tx] = A[bx * 64 + tx] * alpha

    @T.prim_func
    def on_host(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)
)PY";

TEST(DeviceBuildTest, SplitsKernelsIntoABlobWithTheirTable) {
  ir::IRModule m = Parse(kKernels);
  ir::IRModule only_scale = ir::IRModule::Make();
  for (const auto& [gv, f] : m.Functions()) {
    if (gv->name == "scale") only_scale.Add(gv, f);
  }
  absl::StatusOr<DeviceLowered> lowered = LowerForDevice(only_scale, "opencl");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(lowered->blob.format, "opencl");
  ASSERT_EQ(lowered->blob.kernels.size(), 1u);
  const runtime::DeviceKernelInfo& k = lowered->blob.kernels[0];
  EXPECT_EQ(k.name, "scale_kernel");
  EXPECT_EQ(k.launch_params, (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
  // Buffers first (A, B data), then the scalars (alpha, n).
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].code, kDLOpaqueHandle);
  EXPECT_EQ(k.params[1].code, kDLOpaqueHandle);
  EXPECT_NE(lowered->blob.code.find("__kernel void scale_kernel"), std::string::npos) << lowered->blob.code;
  EXPECT_EQ(*DeviceTypeOfTarget("opencl"), kDLOpenCL);
  EXPECT_FALSE(IsDeviceTarget("llvm -mcpu=skylake"));
}

TEST(DeviceBuildTest, HostCodeThatTouchesBuffersIsRejected) {
  absl::StatusOr<DeviceLowered> lowered = LowerForDevice(Parse(kKernels), "opencl");
  ASSERT_TRUE(absl::IsInvalidArgument(lowered.status())) << lowered.status();
  EXPECT_NE(lowered.status().message().find("on_host"), std::string::npos) << lowered.status();
}

// Softmax: a fused kernel with intermediates (device workspace from the host code), a reduction
// (one thread per row), and a symbolic row count (shape functions on the host).
constexpr char kRelax[] = R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 37), dtype="float32")) -> R.Tensor(("n", 37), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y: R.Tensor((n, 37), dtype="float32") = R.nn.softmax(x, axis=-1)
            z: R.Tensor((n, 37), dtype="float32") = R.add(y, x)
            R.output(z)
        return z
)PY";

std::vector<float> BuildAndRun(const std::string& target, const runtime::Tensor& input, absl::Status* skip) {
  absl::StatusOr<vm::Executable> built = BuildExecutable(Parse(kRelax), target);
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return {};
  if (target == "opencl") {
    // LLVM host code first, then the kernels.
    EXPECT_EQ(built->libraries.size(), 2u);
    if (built->libraries.size() == 2) {
      EXPECT_EQ(built->libraries[0].kind, "host-so");
      EXPECT_EQ(built->libraries[1].kind, vm::kDeviceLibraryKind);
      EXPECT_EQ(built->libraries[1].name, "opencl");
      EXPECT_EQ(built->libraries[1].target, "opencl");
    }
  }
  absl::StatusOr<vm::Executable> loaded = vm::Executable::Deserialize(built->Serialize());
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(loaded)));
  if (!machine.ok()) {
    *skip = machine.status();
    return {};
  }
  if (target == "opencl") {
    EXPECT_EQ((*machine)->devices()[0].device_type, kDLOpenCL);
  }
  absl::StatusOr<vm::Value> out = (*machine)->Invoke("main", {vm::Value::Tensor(input)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || !out->is_tensor()) return {};
  EXPECT_EQ(out->as_tensor().device().device_type, kDLCPU);  // results come back to the host
  // The stateful API gives the same.
  EXPECT_TRUE((*machine)->SetInput("main", {vm::Value::Tensor(input)}).ok());
  EXPECT_TRUE((*machine)->InvokeStateful("main").ok());
  absl::StatusOr<std::vector<vm::Value>> outs = (*machine)->GetOutputs("main");
  EXPECT_TRUE(outs.ok() && outs->size() == 1 && (*outs)[0].as_tensor().device().device_type == kDLCPU);
  const runtime::Tensor& t = out->as_tensor();
  std::vector<float> v(t.numel());
  std::memcpy(v.data(), t.data(), t.nbytes());
  return v;
}

TEST(DeviceBuildTest, RelaxOnOpenCLMatchesLLVM) {
  runtime::Tensor x = *runtime::Tensor::Empty({300, 37}, DLDataType{kDLFloat, 32, 1});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-4, 4);
  for (int64_t i = 0; i < x.numel(); ++i) static_cast<float*>(x.data())[i] = d(rng);
  absl::Status skip;
  std::vector<float> want = BuildAndRun("llvm", x, &skip);
  ASSERT_TRUE(skip.ok()) << skip;
  std::vector<float> got = BuildAndRun("opencl", x, &skip);
  if (!skip.ok()) {
    ASSERT_TRUE(absl::IsUnavailable(skip)) << skip;
    GTEST_SKIP() << skip.message();
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << i;
}

}  // namespace
}  // namespace kiln::driver
