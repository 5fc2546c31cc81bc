// Vulkan device runtime: runs SPIR-V compute shaders through the Vulkan loader, on whatever device
// is installed (lavapipe, Mesa's CPU driver, on CPU-only machines). The loader is loaded with
// dlopen("libvulkan.so.1") at run time, so kiln links no Vulkan library and starts on a machine
// without one: no loader, no driver or no device is UNAVAILABLE ("device unavailable: ..."),
// never a crash.
//
// The shader interface it expects is the one compiler/target/spirv/codegen_spirv.h emits: storage
// buffers at bindings 0..n-1 of descriptor set 0, one push-constant block, the workgroup size as
// specialization constants 0, 1, 2. Kernels are created from SPIR-V words; a kernel keeps one
// pipeline per block size it has been launched with. A module declaring a capability the device
// lacks (Int64, Float64, 8/16-bit storage, ...) is refused with the missing feature's name.
//
// Memory is host-visible and coherent (lavapipe's only kind; on a discrete GPU it is system
// memory the device reads over the bus), mapped for the buffer's lifetime.
//
// Thread safety: a VulkanDevice and its kernels may be used from several threads; submissions are
// serialized on the device's one queue, and each Launch waits for its dispatch, so launches,
// copies and reads happen in the order they were issued.
#ifndef KILN_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H_
#define KILN_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H_

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kiln::runtime::vulkan {

struct Functions;  // the Vulkan entry points, loaded at run time (vulkan_device.cc)
class VulkanDevice;

// A device allocation; released when destroyed.
class VulkanBuffer {
 public:
  VulkanBuffer() = default;
  VulkanBuffer(VulkanBuffer&& other) noexcept { *this = std::move(other); }
  VulkanBuffer& operator=(VulkanBuffer&& other) noexcept;
  VulkanBuffer(const VulkanBuffer&) = delete;
  VulkanBuffer& operator=(const VulkanBuffer&) = delete;
  ~VulkanBuffer();

  VkBuffer buffer() const { return buffer_; }
  size_t bytes() const { return bytes_; }

 private:
  friend class VulkanDevice;
  void Release();
  const VulkanDevice* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  size_t bytes_ = 0;
};

// A buffer bound to a kernel from a byte offset on (a multiple of the device's
// minStorageBufferOffsetAlignment, which Launch checks).
struct BoundBuffer {
  const VulkanBuffer* buffer = nullptr;
  size_t offset = 0;
};

// What a kernel is made from.
struct KernelSpec {
  std::string entry;              // the entry point's name
  std::vector<uint32_t> spirv;    // the module
  uint32_t num_buffers = 0;       // storage buffers at bindings 0..num_buffers-1
  uint32_t push_constant_bytes = 0;
};

class VulkanKernel {
 public:
  ~VulkanKernel();
  VulkanKernel(const VulkanKernel&) = delete;
  VulkanKernel& operator=(const VulkanKernel&) = delete;

  // Dispatches `grid` workgroups of `block` invocations, with `buffers` bound in order (each
  // from its offset to its end) and
  // `push_constants` (push_constant_bytes of them) pushed, and waits for it. When `elapsed_ns` is
  // given it receives the dispatch's device time from timestamp queries (0 where the queue has no
  // timestamps). INVALID_ARGUMENT for a wrong argument count or a size beyond the device's limits.
  absl::Status Launch(const std::vector<BoundBuffer>& buffers, const std::vector<uint8_t>& push_constants,
                      std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block, uint64_t* elapsed_ns = nullptr) const;

 private:
  friend class VulkanDevice;
  VulkanKernel(const VulkanDevice* device, KernelSpec spec) : device_(device), spec_(std::move(spec)) {}
  absl::StatusOr<VkPipeline> Pipeline(std::array<uint32_t, 3> block) const;

  const VulkanDevice* device_;
  KernelSpec spec_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  mutable std::mutex mu_;
  mutable std::map<std::array<uint32_t, 3>, VkPipeline> pipelines_;  // by block size
};

class VulkanDevice {
 public:
  // The first device with a compute queue (a GPU before a CPU device). UNAVAILABLE when the loader,
  // a driver or a device is missing.
  static absl::StatusOr<std::unique_ptr<VulkanDevice>> Open();
  ~VulkanDevice();
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  // "<device name> (Vulkan <api version>)", for messages and logs.
  const std::string& description() const { return description_; }
  // Whether the compute queue writes timestamps (VulkanKernel::Launch's elapsed_ns).
  bool has_timestamps() const { return timestamps_; }

  // A kernel from SPIR-V. INVALID_ARGUMENT when the module needs a feature the device lacks or
  // the driver rejects it.
  absl::StatusOr<std::unique_ptr<VulkanKernel>> CreateKernel(KernelSpec spec) const;

  // A buffer of `bytes` bytes (at least 4 are allocated: Vulkan refuses empty buffers).
  absl::StatusOr<VulkanBuffer> Alloc(size_t bytes) const;
  // Copies between host memory and a buffer (at a byte offset), within the device, and zeroing.
  // No dispatch is in flight between launches, so these are plain copies of mapped memory.
  // OUT_OF_RANGE past the end of a buffer.
  absl::Status Write(const VulkanBuffer& dst, size_t offset, const void* src, size_t bytes) const;
  absl::Status Read(void* dst, const VulkanBuffer& src, size_t offset, size_t bytes) const;
  absl::Status Copy(const VulkanBuffer& dst, size_t dst_offset, const VulkanBuffer& src, size_t src_offset,
                    size_t bytes) const;
  absl::Status Zero(const VulkanBuffer& dst, size_t offset, size_t bytes) const;

 private:
  friend class VulkanBuffer;
  friend class VulkanKernel;
  VulkanDevice() = default;

  std::unique_ptr<Functions> fn_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t memory_type_ = 0;
  bool timestamps_ = false;
  float timestamp_period_ns_ = 1;
  VkPhysicalDeviceLimits limits_{};
  std::map<uint32_t, std::string> missing_;  // SPIR-V capability -> the device feature it lacks
  std::string description_;

  mutable std::mutex mu_;  // guards the queue and everything below
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

}  // namespace kiln::runtime::vulkan

#endif  // KILN_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H_
