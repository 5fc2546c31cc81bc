// The compiled path on Vulkan: corpus Relax modules built for "vulkan" (the Relax pipeline with the
// GPU default schedule, host code compiled by LLVM, kernels as SPIR-V in the executable's device
// library), serialized and loaded back, then run on the VM, which loads the SPIR-V through the
// device registry and launches it from the compiled host code. Results are checked against values
// computed here. Skipped, with the reason, where no Vulkan device exists.
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/relax_build.h"
#include "gtest/gtest.h"
#include "runtime/device/device_module.h"
#include "runtime/tensor.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/value.h"
#include "runtime/vm/vm.h"
#include "tests/util/shared_dir.h"

namespace kiln::driver {
namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

runtime::Tensor Make(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, kF32);
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

std::vector<float> Values(const vm::Value& v) {
  EXPECT_TRUE(v.is_tensor()) << v.DebugString();
  if (!v.is_tensor()) return {};
  const runtime::Tensor& t = v.as_tensor();
  EXPECT_EQ(t.device().device_type, kDLCPU);  // results come back to the host
  std::vector<float> out(t.numel());
  std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

class VulkanVMTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<runtime::DeviceRuntime*> rt = runtime::GetDeviceRuntime(kDLVulkan);
    if (!rt.ok()) {
      ASSERT_TRUE(absl::IsUnavailable(rt.status())) << rt.status();
      GTEST_SKIP() << rt.status();
    }
  }

  // Builds corpus file `name` for vulkan, round-trips it through its bytes and starts a VM on it.
  std::unique_ptr<vm::VirtualMachine> Load(const std::string& name) {
    absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
    EXPECT_TRUE(shared.ok()) << shared.status();
    if (!shared.ok()) return nullptr;
    absl::StatusOr<vm::Executable> built = LoadOrBuildExecutable(*shared + "/corpus/relax/" + name, "vulkan");
    EXPECT_TRUE(built.ok()) << built.status();
    if (!built.ok()) return nullptr;
    bool has_spirv = false;
    for (const vm::LibraryBlob& lib : built->libraries) has_spirv |= lib.kind == vm::kDeviceLibraryKind && lib.name == "spirv";
    EXPECT_TRUE(has_spirv) << "no spirv device library in the executable";
    absl::StatusOr<vm::Executable> loaded = vm::Executable::Deserialize(built->Serialize());
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok()) return nullptr;
    vm::VMOptions options;
    options.num_threads = 1;
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
        vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(loaded)), options);
    EXPECT_TRUE(machine.ok()) << machine.status();
    return machine.ok() ? *std::move(machine) : nullptr;
  }
};

TEST_F(VulkanVMTest, ElementwiseChain) {
  std::unique_ptr<vm::VirtualMachine> m = Load("001_add_multiply.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(32), y(32);
  for (int i = 0; i < 32; ++i) x[i] = 0.25f * i - 3, y[i] = 1.5f - 0.125f * i;
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(Make({4, 8}, x)), vm::Value::Tensor(Make({4, 8}, y))});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<float> got = Values(*r);
  ASSERT_EQ(got.size(), 32u);
  for (int i = 0; i < 32; ++i) EXPECT_FLOAT_EQ(got[i], (x[i] + y[i]) * x[i]) << i;
}

// time_evaluator on a device executable reads the device's timer (Vulkan timestamps around each
// dispatch): positive, and within the host time the whole evaluation took.
TEST_F(VulkanVMTest, TimeEvaluatorReadsTheDeviceTimer) {
  std::unique_ptr<vm::VirtualMachine> m = Load("001_add_multiply.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(32, 1.0f);
  profiling::TimeEvalOptions o;
  o.number = 5;
  o.repeat = 3;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<double>> r =
      m->TimeEvaluator("main", {vm::Value::Tensor(Make({4, 8}, x)), vm::Value::Tensor(Make({4, 8}, x))}, o);
  double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  double total = 0;
  for (double v : *r) {
    EXPECT_GT(v, 0);
    total += v * o.number;
  }
  EXPECT_LT(total, host_s);
}

TEST_F(VulkanVMTest, MathFunctionsIntoATuple) {
  std::unique_ptr<vm::VirtualMachine> m = Load("020_unary_math.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = 0.5f * i - 2.75f;
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(Make({12}, x))});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->is_tuple()) << r->DebugString();
  ASSERT_EQ(r->as_tuple().size(), 3u);
  std::vector<float> a = Values(r->as_tuple()[0]), b = Values(r->as_tuple()[1]), c = Values(r->as_tuple()[2]);
  for (int i = 0; i < 12; ++i) {
    double v = x[i];
    EXPECT_NEAR(a[i], std::exp(v), 1e-5 * std::exp(v)) << i;
    EXPECT_NEAR(b[i], std::sqrt(std::abs(v)), 1e-6) << i;
    EXPECT_NEAR(c[i], 1 / (1 + std::exp(-v)), 1e-6) << i;
  }
}

}  // namespace
}  // namespace kiln::driver
