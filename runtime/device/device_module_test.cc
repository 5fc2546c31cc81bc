#include "runtime/device/device_module.h"

#include <gtest/gtest.h>

namespace kiln::runtime {
namespace {

DeviceBlob Sample() {
  DeviceBlob b;
  b.format = "opencl";
  b.code = "__kernel void k(__global float* a, int n) {}";
  b.kernels.push_back({"k", {kDeviceHandleType, DLDataType{kDLInt, 32, 1}}, {"blockIdx.x", "threadIdx.x"}});
  b.kernels.push_back({"empty", {}, {}});
  return b;
}

TEST(DeviceBlobTest, RoundTrips) {
  DeviceBlob b = Sample();
  absl::StatusOr<DeviceBlob> back = DeviceBlob::Deserialize(b.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->format, "opencl");
  EXPECT_EQ(back->code, b.code);
  ASSERT_EQ(back->kernels.size(), 2u);
  EXPECT_EQ(back->kernels[0].name, "k");
  ASSERT_EQ(back->kernels[0].params.size(), 2u);
  EXPECT_EQ(back->kernels[0].params[0].code, kDLOpaqueHandle);
  EXPECT_EQ(back->kernels[0].params[1].bits, 32);
  EXPECT_EQ(back->kernels[0].launch_params, (std::vector<std::string>{"blockIdx.x", "threadIdx.x"}));
  EXPECT_TRUE(back->kernels[1].params.empty());
}

TEST(DeviceBlobTest, EveryTruncationIsRejected) {
  std::string bytes = Sample().Serialize();
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<DeviceBlob> b = DeviceBlob::Deserialize(bytes.substr(0, n));
    EXPECT_TRUE(absl::IsInvalidArgument(b.status())) << n;
  }
  EXPECT_FALSE(DeviceBlob::Deserialize(bytes + "x").ok());  // trailing bytes
}

TEST(DeviceBlobTest, HugeCountAndBadLaunchTagAreRejected) {
  DeviceBlob b = Sample();
  b.kernels[0].launch_params[0] = "warpIdx.x";
  absl::StatusOr<DeviceBlob> bad = DeviceBlob::Deserialize(b.Serialize());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("warpIdx.x"), std::string::npos) << bad.status();

  std::string bytes = Sample().Serialize();
  // The kernel count follows magic, format and code; make it enormous.
  size_t count_at = 8 + 8 + 6 + 8 + Sample().code.size();
  for (int i = 0; i < 8; ++i) bytes[count_at + i] = '\xff';
  EXPECT_TRUE(absl::IsInvalidArgument(DeviceBlob::Deserialize(bytes).status()));
}

// A module that records the dimensions the generic launch path computes.
class RecordingModule final : public DeviceModule {
 public:
  RecordingModule(std::vector<DeviceKernelInfo> kernels, bool dynamic_shared)
      : DeviceModule(std::move(kernels)), dynamic_shared_(dynamic_shared) {}
  mutable LaunchDims last;

 protected:
  bool GivesDynamicSharedMemory() const override { return dynamic_shared_; }
  absl::Status LaunchKernel(const DeviceKernelInfo&, absl::Span<const KilnAny>, const LaunchDims& dims) const override {
    last = dims;
    return absl::OkStatus();
  }

 private:
  bool dynamic_shared_;
};

// tir.use_dyn_shared_memory (SplitHostDevice's tag for a "shared.dyn" allocation) reads back and
// becomes the launch's dynamic shared bytes, not a grid or block extent.
TEST(DeviceBlobTest, DynamicSharedMemoryTagIsTheLaunchsSharedBytes) {
  DeviceBlob b = Sample();
  b.kernels[0].launch_params.push_back("tir.use_dyn_shared_memory");
  absl::StatusOr<DeviceBlob> back = DeviceBlob::Deserialize(b.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  RecordingModule m(back->kernels, /*dynamic_shared=*/true);
  KilnAny args[5] = {};
  args[0].type_index = kKilnOpaquePtr;
  args[1].type_index = kKilnInt;
  args[1].v_int64 = 7;
  int64_t extents[3] = {4, 128, 197632};
  for (int i = 0; i < 3; ++i) {
    args[2 + i].type_index = kKilnInt;
    args[2 + i].v_int64 = extents[i];
  }
  ASSERT_TRUE(m.Launch("k", args, 5).ok());
  EXPECT_EQ(m.last.grid[0], 4);
  EXPECT_EQ(m.last.block[0], 128);
  EXPECT_EQ(m.last.dynamic_shared_bytes, 197632);
  EXPECT_EQ(m.last.grid[1], 1);
  // A runtime without dynamic shared memory refuses the launch before it reaches the device.
  RecordingModule without(back->kernels, /*dynamic_shared=*/false);
  absl::Status st = without.Launch("k", args, 5);
  EXPECT_TRUE(absl::IsUnimplemented(st)) << st;
  EXPECT_NE(st.message().find("dynamic shared memory"), std::string::npos) << st;
  EXPECT_EQ(without.last.grid[0], 1) << "nothing was launched";
}

TEST(DeviceBlobTest, FormatsMapToDeviceTypes) {
  EXPECT_EQ(*DeviceTypeOfFormat("opencl"), kDLOpenCL);
  EXPECT_EQ(*DeviceTypeOfFormat("spirv"), kDLVulkan);
  EXPECT_EQ(*DeviceTypeOfFormat("ptx"), kDLCUDA);
  EXPECT_EQ(*DeviceTypeOfFormat("cubin"), kDLCUDA);
  EXPECT_EQ(*DeviceTypeOfFormat("hsaco"), kDLROCM);
  EXPECT_TRUE(absl::IsInvalidArgument(DeviceTypeOfFormat("metal").status()));
}

}  // namespace
}  // namespace kiln::runtime
