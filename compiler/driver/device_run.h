// Running PrimFuncs with GPU thread bindings on any device target with a backend and a runtime
// (device_build.h; runtime/device/device_module.h), the host part on the reference interpreter:
// the "opencl", "vulkan", "cuda" and "nvptx" targets of driver/run.h (PoCL and lavapipe on
// CPU-only machines), and the reference for the compiled path (host code compiled by the LLVM/C
// backend, relax_build.h).
//
// Lowering is LowerForDevice; the blob is loaded through the device registry, so this runs
// exactly the kernels an executable would carry.
//
// Host part: the host functions SplitHostDevice leaves (argument binding, launch sizes computed
// from shapes and scalars, one T.call_packed per kernel) run on the reference interpreter, whose
// call_packed hook launches the kernels through DeviceModule::Launch. So the host checks the
// arguments exactly as the interpreter and compiled CPU kernels do. CPU tensors are copied to
// device memory before the host part runs and read back after it (every buffer argument, since
// which ones a kernel writes is not tracked); the host passes host data pointers, which the hook
// maps to the device copies.
#ifndef KILN_COMPILER_DRIVER_DEVICE_RUN_H_
#define KILN_COMPILER_DRIVER_DEVICE_RUN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/device_build.h"
#include "compiler/ir/ir.h"
#include "compiler/tir/interp/interp.h"
#include "runtime/device/device_module.h"
#include "runtime/kernel_abi.h"
#include "runtime/tensor.h"

namespace kiln::driver {

class DeviceRunner {
 public:
  // Lowers the module for device target `target` ("vulkan", ...), opens its runtime (UNAVAILABLE:
  // "device unavailable: ...") and loads the kernels on it (the device's rejection is the error).
  static absl::StatusOr<std::unique_ptr<DeviceRunner>> Create(const ir::IRModule& module, const std::string& target);

  // Calls `entry` with `packed` (the kernel ABI arguments built from `tensors`, one per param;
  // tensors of buffer params must be compact CPU tensors). Buffers are updated in place.
  absl::StatusOr<KilnAny> Call(const std::string& entry, const std::vector<KilnAny>& packed,
                               const std::vector<runtime::Tensor>& tensors, const tir::InterpOptions& interp) const;

  const runtime::DeviceBlob& blob() const { return lowered_.blob; }

 private:
  DeviceRunner() = default;
  std::string target_;
  DeviceLowered lowered_;
  runtime::DeviceRuntime* runtime_ = nullptr;
  std::unique_ptr<runtime::DeviceModule> module_;
};

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_DEVICE_RUN_H_
