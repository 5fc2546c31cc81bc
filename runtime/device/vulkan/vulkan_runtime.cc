#include "runtime/device/vulkan/vulkan_runtime.h"

#include "absl/strings/str_cat.h"
#include "runtime/device/vulkan/vulkan_abi.h"
#include "runtime/device/vulkan/vulkan_device.h"

namespace kiln::runtime::vulkan {
namespace {

const VulkanBuffer* Buffer(const void* p) { return static_cast<const VulkanBuffer*>(p); }

class VulkanModule final : public DeviceModule {
 public:
  struct Kernel {
    ArgLayout layout;
    std::unique_ptr<VulkanKernel> kernel;
  };
  VulkanModule(std::vector<DeviceKernelInfo> infos, std::vector<Kernel> kernels)
      : DeviceModule(std::move(infos)), kernels_(std::move(kernels)) {}

 protected:
  absl::Status LaunchKernel(const DeviceKernelInfo& info, absl::Span<const KilnAny> params,
                            const LaunchDims& dims) const override {
    const Kernel& k = kernels_[static_cast<size_t>(&info - kernels().data())];
    std::vector<const VulkanBuffer*> buffers;
    for (size_t i = 0; i < params.size(); ++i) {
      if (info.params[i].code != kDLOpaqueHandle) continue;
      if (params[i].type_index == kKilnNone || params[i].v_ptr == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("Vulkan: argument #", i, " of ", info.name, " is a null buffer"));
      }
      buffers.push_back(Buffer(params[i].v_ptr));
    }
    std::array<uint32_t, 3> grid, block;
    for (int d = 0; d < 3; ++d) {
      if (dims.grid[d] > int64_t{UINT32_MAX} || dims.block[d] > int64_t{UINT32_MAX}) {
        return absl::InvalidArgumentError(absl::StrCat("Vulkan: launch of ", info.name, " with ", dims.grid[d],
                                                       " blocks of ", dims.block[d], " threads"));
      }
      grid[d] = static_cast<uint32_t>(dims.grid[d]);
      block[d] = static_cast<uint32_t>(dims.block[d]);
    }
    return k.kernel->Launch(buffers, PackPushConstants(info.params, k.layout, params.data()), grid, block);
  }

 private:
  std::vector<Kernel> kernels_;  // parallel to kernels()
};

class VulkanRuntime final : public DeviceRuntime, public DeviceAPI {
 public:
  explicit VulkanRuntime(std::unique_ptr<VulkanDevice> device) : device_(std::move(device)) {}

  // DeviceRuntime.
  DLDeviceType device_type() const override { return kDLVulkan; }
  const std::string& description() const override { return device_->description(); }
  DeviceAPI* api() override { return this; }
  absl::StatusOr<std::unique_ptr<DeviceModule>> Load(const DeviceBlob& blob) override {
    if (blob.format != "spirv") {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan loads \"spirv\" blobs, not \"", blob.format, "\""));
    }
    absl::StatusOr<std::vector<std::vector<uint32_t>>> modules = UnpackModules(blob.code);
    if (!modules.ok()) return modules.status();
    if (modules->size() != blob.kernels.size()) {
      return absl::InvalidArgumentError(absl::StrCat("spirv blob: ", modules->size(), " modules for ",
                                                     blob.kernels.size(), " kernels"));
    }
    std::vector<VulkanModule::Kernel> kernels;
    for (size_t i = 0; i < blob.kernels.size(); ++i) {
      const DeviceKernelInfo& info = blob.kernels[i];
      absl::StatusOr<ArgLayout> layout = ArgLayoutOf(info.params);
      if (!layout.ok()) return layout.status();
      absl::StatusOr<std::unique_ptr<VulkanKernel>> k = device_->CreateKernel(
          {info.name, std::move((*modules)[i]), layout->num_buffers, layout->push_constant_bytes});
      if (!k.ok()) return k.status();
      kernels.push_back({*std::move(layout), *std::move(k)});
    }
    return std::unique_ptr<DeviceModule>(new VulkanModule(blob.kernels, std::move(kernels)));
  }

  // DeviceAPI. Storage buffers are bound at offset 0, so any `alignment` holds.
  absl::StatusOr<void*> AllocDataSpace(size_t nbytes, size_t /*alignment*/) override {
    absl::StatusOr<VulkanBuffer> b = device_->Alloc(nbytes);
    if (!b.ok()) return b.status();
    return static_cast<void*>(new VulkanBuffer(*std::move(b)));
  }
  void FreeDataSpace(void* ptr) override { delete static_cast<VulkanBuffer*>(ptr); }
  absl::Status CopyFromHost(void* dev, size_t dev_offset, const void* host, size_t nbytes) override {
    return device_->Write(*Buffer(dev), dev_offset, host, nbytes);
  }
  absl::Status CopyToHost(void* host, const void* dev, size_t dev_offset, size_t nbytes) override {
    return device_->Read(host, *Buffer(dev), dev_offset, nbytes);
  }
  absl::Status CopyWithinDevice(void* dst, size_t dst_offset, const void* src, size_t src_offset,
                                size_t nbytes) override {
    return device_->Copy(*Buffer(dst), dst_offset, *Buffer(src), src_offset, nbytes);
  }
  absl::Status Zero(void* dev, size_t dev_offset, size_t nbytes) override {
    return device_->Zero(*Buffer(dev), dev_offset, nbytes);
  }
  // Every launch has finished when it returns.
  absl::Status Synchronize() override { return absl::OkStatus(); }

 private:
  std::unique_ptr<VulkanDevice> device_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceRuntime>> OpenVulkanRuntime() {
  absl::StatusOr<std::unique_ptr<VulkanDevice>> device = VulkanDevice::Open();
  if (!device.ok()) return device.status();
  return std::unique_ptr<DeviceRuntime>(new VulkanRuntime(*std::move(device)));
}

}  // namespace kiln::runtime::vulkan
