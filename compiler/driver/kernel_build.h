// Building the PrimFuncs of a module into a kernel library for a CPU target: LowerTIR, then the C
// backend (system C compiler) or the LLVM backend (object + lld). What `kiln build` does, and what
// driver/run.h uses for its "c" target. Relax functions in the module are ignored here.
//
// Target strings: "c", or "llvm" with LLVM options ("llvm -mcpu=skylake -opt-level=2"; see
// compiler/target/llvm/target.h).
#ifndef KILN_COMPILER_DRIVER_KERNEL_BUILD_H_
#define KILN_COMPILER_DRIVER_KERNEL_BUILD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/pass_instrument.h"
#include "compiler/ir/ir.h"
#include "runtime/device/device_module.h"

namespace kiln::driver {

// "llvm" or "c": the first word of `target`. INVALID_ARGUMENT for anything else, and for "c" with
// options ("c -mcpu=x": the C compiler builds for this host; -mcpu belongs to llvm targets).
absl::StatusOr<std::string> KernelTargetKind(const std::string& target);

// The module's PrimFuncs lowered for `target` (INVALID_ARGUMENT if it has none). `hooks` go to
// the TIR pipeline (tir_pipeline.h).
// `checked`: checked mode (PipelineOptions::checked), every function below takes it too.
absl::StatusOr<ir::IRModule> LowerKernels(const ir::IRModule& module, const std::string& target,
                                          const PassHooks& hooks = {}, bool checked = false);

// The exported kernels (packed entries) of a lowered module, in module order.
std::vector<std::string> KernelNames(const ir::IRModule& lowered);

// Lowers and compiles the module's PrimFuncs into the shared library `out_path` (loadable with
// runtime::KernelLibrary::Load). On success `kernels` (optional) receives the exported names.
absl::Status BuildKernelLibrary(const ir::IRModule& module, const std::string& target, const std::string& out_path,
                                std::vector<std::string>* kernels = nullptr, const PassHooks& hooks = {},
                                bool checked = false);

// GPU targets (device_build.h: "opencl", ...): the module's PrimFuncs split into host and device
// code (LowerForDevice). The host part goes through the TIR pipeline for an LLVM host (its argument
// checks require tensors on the target's device) and is built into the shared library `out_path`;
// its T.call_packed launches call KilnKernelEnv::device_launch. Returns the device blob.
absl::StatusOr<runtime::DeviceBlob> BuildDeviceKernelLibrary(const ir::IRModule& module, const std::string& target,
                                                             const std::string& out_path,
                                                             std::vector<std::string>* kernels = nullptr,
                                                             const PassHooks& hooks = {});

// The generated code as text: C source for "c", optimized LLVM assembly for "llvm ...", the device
// code (e.g. OpenCL C) for a GPU target.
absl::StatusOr<std::string> EmitKernelSource(const ir::IRModule& module, const std::string& target,
                                             const PassHooks& hooks = {}, bool checked = false);

// The kernels as a relocatable object file for an "llvm ..." target (any -mtriple: nothing is
// linked, so no library of this host is needed). INVALID_ARGUMENT for "c".
absl::StatusOr<std::string> EmitKernelObject(const ir::IRModule& module, const std::string& target,
                                             const PassHooks& hooks = {}, bool checked = false);

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_KERNEL_BUILD_H_
