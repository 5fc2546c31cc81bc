// How kiln's Vulkan kernels take their arguments, and how a "spirv" device blob holds its code:
// the contract between the SPIR-V backend (compiler/target/spirv, which lays out its shader
// interface with ArgLayoutOf) and the Vulkan runtime (which binds and pushes arguments with the
// same function). No Vulkan dependency: the compiler links it on machines without Vulkan.
//
// Arguments of a kernel with params p0..pn-1 (buffers kDeviceHandleType, scalars their dtype):
//   * buffer params -> storage buffers at bindings 0, 1, ... of descriptor set 0, in param order;
//   * scalar params -> one push-constant block, in param order; each travels as a 32- or 64-bit
//     type (bool/int8/int16 as int32, uint8/uint16 as uint32, float16 as float32: push constants of
//     narrower types need device features) at an offset aligned to its size;
//   * the workgroup size is specialization constants 0, 1, 2 (x, y, z).
//
// Code of a "spirv" blob: one SPIR-V module per kernel, in kernel-table order, each as
//   u64 word count | words (u32, little-endian)
// The runtime checks the counts against the bytes and each module's magic number.
#ifndef KILN_RUNTIME_DEVICE_VULKAN_VULKAN_ABI_H_
#define KILN_RUNTIME_DEVICE_VULKAN_VULKAN_ABI_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_abi.h"

namespace kiln::runtime::vulkan {

struct ArgLayout {
  // Per param: a buffer's binding, or a scalar's byte offset in the push constants.
  std::vector<uint32_t> slots;
  // Per param: the type a scalar travels as (unused for buffers).
  std::vector<DLDataType> push_types;
  uint32_t num_buffers = 0;
  uint32_t push_constant_bytes = 0;
};

// The layout of `params`. INVALID_ARGUMENT for a vector or a type with no push-constant form.
absl::StatusOr<ArgLayout> ArgLayoutOf(const std::vector<DLDataType>& params);

// The push constants of one launch: the scalar `args` (kernel ABI values at their param positions;
// buffer positions are skipped) converted to their push types at their offsets.
std::vector<uint8_t> PackPushConstants(const std::vector<DLDataType>& params, const ArgLayout& layout,
                                       const KilnAny* args);

// The code of a "spirv" blob from one module per kernel, and back. Unpack: INVALID_ARGUMENT for
// a truncated container or a module without the SPIR-V magic number.
std::string PackModules(const std::vector<std::vector<uint32_t>>& modules);
absl::StatusOr<std::vector<std::vector<uint32_t>>> UnpackModules(absl::string_view code);

}  // namespace kiln::runtime::vulkan

#endif  // KILN_RUNTIME_DEVICE_VULKAN_VULKAN_ABI_H_
