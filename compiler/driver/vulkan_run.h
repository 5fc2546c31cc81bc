// Running PrimFuncs with GPU thread bindings on a Vulkan device (lavapipe on CPU-only machines):
// the "vulkan" target of driver/run.h.
//
// Lowering (LowerForVulkan): LowerSBlocks, FlattenBuffer, Simplify, then SplitHostDevice; each
// device kernel becomes a SPIR-V module (compiler/target/spirv), validated and optimized, and a
// Vulkan kernel is created from it when the runner is created.
//
// Host part: as for OpenCL (opencl_run.h), the host functions SplitHostDevice leaves (argument
// binding, launch sizes from shapes and scalars, one T.call_packed per kernel) run on the reference
// interpreter, whose call_packed hook launches the kernels: buffers go to the device before the
// host part runs and come back after it, scalars travel as push constants, and the block size
// specializes the kernel's pipeline.
#ifndef KILN_COMPILER_DRIVER_VULKAN_RUN_H_
#define KILN_COMPILER_DRIVER_VULKAN_RUN_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/target/spirv/codegen_spirv.h"
#include "compiler/tir/interp/interp.h"
#include "runtime/device/vulkan/vulkan_device.h"
#include "runtime/kernel_abi.h"
#include "runtime/tensor.h"

namespace kiln::driver {

struct VulkanLowered {
  ir::IRModule host;                         // the module's PrimFuncs with their kernels launched
  std::vector<codegen::SPIRVKernel> kernels;  // one SPIR-V module per kernel
};

// Lowers every PrimFunc of `module` for Vulkan. Errors are the passes' and the backend's.
absl::StatusOr<VulkanLowered> LowerForVulkan(const ir::IRModule& module);

// The push constants of one launch: `args` (the kernel's scalar arguments in kernel ABI form, at
// their parameter positions) written at `kernel`'s offsets in the types the shader reads.
absl::StatusOr<std::vector<uint8_t>> PackPushConstants(const codegen::SPIRVKernel& kernel,
                                                        const std::vector<KilnAny>& args);

class VulkanRunner {
 public:
  // Lowers the module, opens the Vulkan device (UNAVAILABLE: "device unavailable: ...") and
  // creates a kernel for each SPIR-V module.
  static absl::StatusOr<std::unique_ptr<VulkanRunner>> Create(const ir::IRModule& module);

  // Calls `entry` with `packed` (the kernel ABI arguments built from `tensors`, one per param;
  // tensors of buffer params must be compact CPU tensors). Buffers are updated in place.
  absl::StatusOr<KilnAny> Call(const std::string& entry, const std::vector<KilnAny>& packed,
                               const std::vector<runtime::Tensor>& tensors, const tir::InterpOptions& interp) const;

  const std::vector<codegen::SPIRVKernel>& kernels() const { return lowered_.kernels; }

 private:
  VulkanRunner() = default;
  struct Kernel {
    const codegen::SPIRVKernel* info;
    std::unique_ptr<runtime::vulkan::VulkanKernel> kernel;
  };
  VulkanLowered lowered_;
  std::unique_ptr<runtime::vulkan::VulkanDevice> device_;
  std::map<std::string, Kernel> kernels_;  // by name; destroyed before the device
};

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_VULKAN_RUN_H_
