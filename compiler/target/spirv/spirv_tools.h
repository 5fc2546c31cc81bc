// SPIRV-Tools (Debian's static libSPIRV-Tools{,-opt}) behind absl::Status: every module kiln
// emits is validated for the Vulkan environment it targets, optimized with the performance
// recipe, and validated again, so a codegen bug surfaces as a clear INTERNAL error at compile time
// rather than as undefined behaviour in a driver.
#ifndef KILN_COMPILER_TARGET_SPIRV_SPIRV_TOOLS_H_
#define KILN_COMPILER_TARGET_SPIRV_SPIRV_TOOLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kiln::codegen::spirv {

// The Vulkan environment kiln targets: Vulkan 1.1 (SPIR-V 1.3).
inline constexpr uint32_t kSpirvVersion = 0x00010300;

// OK, or INTERNAL with the validator's messages (prefixed with `what`).
absl::Status Validate(const std::vector<uint32_t>& words, const std::string& what);

// Validate, run the performance passes, validate the result.
absl::StatusOr<std::vector<uint32_t>> ValidateAndOptimize(const std::vector<uint32_t>& words, const std::string& what);

// The module as SPIR-V assembly text (spirv-dis), for debugging and `kiln build` listings.
absl::StatusOr<std::string> Disassemble(const std::vector<uint32_t>& words);

}  // namespace kiln::codegen::spirv

#endif  // KILN_COMPILER_TARGET_SPIRV_SPIRV_TOOLS_H_
