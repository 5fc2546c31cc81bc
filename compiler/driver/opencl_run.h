// Running PrimFuncs with GPU thread bindings on an OpenCL device (PoCL on CPU-only machines) with
// the host part on the reference interpreter: the "opencl" target of driver/run.h, and the
// reference for the compiled path (host code compiled by the LLVM/C backend, relax_build.h).
//
// Lowering is LowerForDevice (device_build.h); the blob is loaded through the device registry
// (runtime/device/device_module.h), so this runs exactly the kernels an executable would carry.
//
// Host part: the host functions SplitHostDevice leaves (argument binding, launch sizes computed
// from shapes and scalars, one T.call_packed per kernel) run on the reference interpreter, whose
// call_packed hook launches the kernels through DeviceModule::Launch. So the host checks the
// arguments exactly as the interpreter and compiled CPU kernels do. CPU tensors are copied to
// device memory before the host part runs and read back after it (every buffer argument, since
// which ones a kernel writes is not tracked); the host passes host data pointers, which the hook
// maps to the device copies.
#ifndef KILN_COMPILER_DRIVER_OPENCL_RUN_H_
#define KILN_COMPILER_DRIVER_OPENCL_RUN_H_

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

class OpenCLRunner {
 public:
  // Lowers the module, opens the OpenCL runtime (UNAVAILABLE: "device unavailable: ...") and
  // loads the kernels on it (a failed build returns the platform's build log).
  static absl::StatusOr<std::unique_ptr<OpenCLRunner>> Create(const ir::IRModule& module);

  // Calls `entry` with `packed` (the kernel ABI arguments built from `tensors`, one per param;
  // tensors of buffer params must be compact CPU tensors). Buffers are updated in place.
  absl::StatusOr<KilnAny> Call(const std::string& entry, const std::vector<KilnAny>& packed,
                               const std::vector<runtime::Tensor>& tensors, const tir::InterpOptions& interp) const;

  const std::string& source() const { return lowered_.blob.code; }

 private:
  OpenCLRunner() = default;
  DeviceLowered lowered_;
  runtime::DeviceRuntime* runtime_ = nullptr;
  std::unique_ptr<runtime::DeviceModule> module_;
};

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_OPENCL_RUN_H_
