// Running PrimFuncs with GPU thread bindings on an OpenCL device (PoCL on CPU-only machines): the
// "opencl" target of driver/run.h.
//
// Lowering (LowerForOpenCL): LowerSBlocks, FlattenBuffer, Simplify, then SplitHostDevice; the
// device kernels go to the OpenCL C backend (compiler/target/source/opencl) and the program is
// built by the platform when the runner is created (a failed build returns the build log).
//
// Host part: the host functions SplitHostDevice leaves (argument binding, launch sizes computed
// from shapes and scalars, one T.call_packed per kernel) run on the reference interpreter, whose
// call_packed hook launches the kernels. So the host checks the arguments exactly as the
// interpreter and compiled CPU kernels do, and symbolic shapes need no host codegen yet. Buffers
// are copied to the device before the host part runs and read back after it (every buffer
// argument, since which ones a kernel writes is not tracked); host code that touches buffer
// contents itself would see the stale host copy, so the slice assumes hosts only launch.
#ifndef KILN_COMPILER_DRIVER_OPENCL_RUN_H_
#define KILN_COMPILER_DRIVER_OPENCL_RUN_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/target/source/opencl/codegen_opencl.h"
#include "compiler/tir/interp/interp.h"
#include "runtime/device/opencl/opencl_device.h"
#include "runtime/kernel_abi.h"
#include "runtime/tensor.h"

namespace kiln::driver {

struct OpenCLLowered {
  ir::IRModule host;                   // the module's PrimFuncs with their kernels launched
  codegen::OpenCLProgramSource device;  // OpenCL C for every kernel
};

// Lowers every PrimFunc of `module` for OpenCL. Errors are the passes' and the backend's.
absl::StatusOr<OpenCLLowered> LowerForOpenCL(const ir::IRModule& module);

class OpenCLRunner {
 public:
  // Lowers the module, opens the first OpenCL device (UNAVAILABLE: "device unavailable: ...")
  // and builds the program on it.
  static absl::StatusOr<std::unique_ptr<OpenCLRunner>> Create(const ir::IRModule& module);

  // Calls `entry` with `packed` (the kernel ABI arguments built from `tensors`, one per param;
  // tensors of buffer params must be compact CPU tensors). Buffers are updated in place.
  absl::StatusOr<KilnAny> Call(const std::string& entry, const std::vector<KilnAny>& packed,
                               const std::vector<runtime::Tensor>& tensors, const tir::InterpOptions& interp) const;

  const std::string& source() const { return lowered_.device.source; }

 private:
  OpenCLRunner() = default;
  OpenCLLowered lowered_;
  std::map<std::string, codegen::OpenCLKernelInfo> kernels_;
  std::unique_ptr<runtime::opencl::OpenCLDevice> device_;
  std::unique_ptr<runtime::opencl::OpenCLProgram> program_;
};

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_OPENCL_RUN_H_
