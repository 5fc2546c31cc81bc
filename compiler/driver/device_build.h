// GPU targets: the device half of a build. The module's PrimFuncs are lowered (LowerSBlocks,
// FlattenBuffer, Simplify), split by SplitHostDevice into host functions (argument binding,
// launch sizes, one T.call_packed per kernel) and device kernels, and the kernels go to the
// target's device backend (TVM's "target.build.<kind>" dispatch; the table is in device_build.cc:
// one row per backend). The result is a runtime::DeviceBlob (runtime/device/device_module.h) —
// code plus kernel table — and the host module, which the caller either interprets (device_run.h,
// the reference path) or compiles for the CPU with the LLVM or C backend (kernel_build.h), whose
// T.call_packed becomes a call of KilnKernelEnv::device_launch (runtime/kernel_abi.h).
//
// Buffers the host allocates (a fused kernel's intermediates, shared by its kernels) are device
// memory: LowerForDevice annotates their AllocBuffer with kDeviceAllocAttr, and the LLVM host
// codegen allocates them through KilnKernelEnv::device_alloc.
//
// Host functions must only launch: a host function that still loads or stores buffer elements
// (a loop nest no thread is bound to) would read device memory on the CPU, so it is rejected
// with an error naming the function (the Relax pipeline's GPU default schedule binds every
// legalized PrimFunc; hand-written TIR must bind its own).
#ifndef KILN_COMPILER_DRIVER_DEVICE_BUILD_H_
#define KILN_COMPILER_DRIVER_DEVICE_BUILD_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/ir.h"
#include "runtime/device/device_module.h"

namespace kiln::driver {

// True when the first word of `target` names a device backend ("opencl", ...).
bool IsDeviceTarget(const std::string& target);

// The NVIDIA compute capability (major * 10 + minor) a cuda (-arch) or nvptx (-mcpu) target
// compiles for, with those targets' default sm_90 when unnamed; 0 for any other or a bad target.
int NvidiaComputeCapability(const std::string& target);
// True for a cuda target whose -arch names an arch-specific feature set (sm_90a, ...).
bool NvidiaArchSpecific(const std::string& target);

// The DLPack device type tensors of `target` live on (kDLOpenCL for "opencl"). INVALID_ARGUMENT
// for a target that is not a device target.
absl::StatusOr<DLDeviceType> DeviceTypeOfTarget(const std::string& target);

struct DeviceLowered {
  ir::IRModule host;         // every PrimFunc of the module, its thread-bound regions launched
  runtime::DeviceBlob blob;  // the kernels in the backend's format, with their kernel table
};

// Lowers and splits every PrimFunc of `module` for device target `target` (Relax functions are
// left out). Errors are the passes', the backend's, or the host-touches-memory check above.
absl::StatusOr<DeviceLowered> LowerForDevice(const ir::IRModule& module, const std::string& target);

// A PrimFunc marked "tir.is_host_func" (the shape functions of VMShapeLower and ComputePrimValue):
// it runs on the host even in a GPU build (its buffers are host memory), so LowerForDevice keeps
// it whole in the host module and its argument checks expect CPU tensors.
bool IsHostFunc(const ir::PrimFuncNode* f);

// The kernel table entry of one SplitHostDevice kernel: its global_symbol, its params' dtypes
// (buffers as runtime::kDeviceHandleType) and its "tir.kernel_launch_params".
runtime::DeviceKernelInfo KernelInfoOf(const ir::PrimFunc& kernel);

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_DEVICE_BUILD_H_
