// Running a PrimFunc of a module on tensors, on one of three CPU targets or on OpenCL or Vulkan:
//   "interp"  the reference interpreter (compiler/tir/interp), no compilation;
//   "llvm"    LowerTIR + the LLVM backend, JIT-compiled in process;
//   "c"       LowerTIR + the C backend, built into a kernel library with the system C compiler and
//             loaded (the library file is deleted once loaded);
//   "opencl"  GPU-style kernels (thread bindings) split into host and device parts, the host part
//             interpreted, the device part as OpenCL C built by the OpenCL platform (PoCL here);
//   "vulkan"  the same, the device part as SPIR-V run through the Vulkan loader (lavapipe here);
//   "cuda -arch=sm_XY", "nvptx -mcpu=sm_XY"  the same on CUDA device 0. See device_run.h.
// Every target takes the same arguments (runtime::Tensor, one per PrimFunc parameter) and checks
// them with the same rules (the kernel ABI's), so callers compare targets by swapping one enum.
// This is the library behind `kiln run`; the corpus and differential tests and the server's local
// runs use it the same way.
//
// Arguments. A buffer parameter takes a tensor (any strides; the kernel checks them against the
// buffer). A scalar parameter takes a one-element tensor (0-d, as numpy saves a scalar): an int or
// uint param accepts an integer or bool tensor, a bool param a bool or integer tensor, a float
// param any numeric tensor (converted). A T.handle parameter that no match_buffer binds cannot be
// passed from tensors and is rejected.
#ifndef KILN_COMPILER_DRIVER_RUN_H_
#define KILN_COMPILER_DRIVER_RUN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"
#include "compiler/tir/interp/interp.h"
#include "runtime/kernel_abi.h"
#include "runtime/module.h"
#include "runtime/tensor.h"

namespace kiln::driver {

class DeviceRunner;

// kVulkan: the same as SPIR-V on the first Vulkan device. kDevice: another GPU target of
// device_build.h ("cuda -arch=sm_90", "nvptx -mcpu=sm_90"), run the same way on that device's runtime.
enum class RunTarget { kInterp, kLLVM, kC, kOpenCL, kVulkan, kDevice };

// "interp", "llvm" (optionally with LLVM options: "llvm -mcpu=..."), "c", "opencl", "vulkan".
absl::StatusOr<RunTarget> ParseRunTarget(absl::string_view target);
const char* RunTargetName(RunTarget target);

// OK when code built for `target` ("llvm ..." or "c") can execute on this machine: for LLVM
// targets codegen::CheckRunsOnHost (the host's architecture, and every ISA feature the target's
// CPU and -mattr enable); "c" always builds for the host. Runner::Create checks it for llvm.
absl::Status CheckRunsHere(const std::string& target);

// One parameter of a PrimFunc as a caller must supply it.
struct ParamInfo {
  std::string name;      // the buffer's name for a buffer param, else the variable's
  bool is_buffer = false;
  ir::DataType dtype;    // the buffer's element type, or the scalar's type
  std::vector<std::string> shape;  // buffer dims as text ("16", "n"), for messages and tools
};

// The PrimFunc a caller means by `entry`: the one whose global_symbol is `entry`, else the one
// named `entry` in the module. NOT_FOUND / INVALID_ARGUMENT (a Relax function, a private one).
absl::StatusOr<ir::PrimFunc> FindEntry(const ir::IRModule& module, const std::string& entry);
std::vector<ParamInfo> DescribeParams(const ir::PrimFunc& func);

// A PrimFunc's return value (kKilnNone when it returns nothing) as text: an integer, a float with
// enough digits to round-trip, or True/False.
std::string FormatReturn(const KilnAny& value);

struct RunOptions {
  RunTarget target = RunTarget::kLLVM;
  // For kLLVM: the full target string ("llvm", "llvm -mcpu=skylake", ...).
  std::string llvm_target = "llvm";
  // For kDevice: the full device target string.
  std::string device_target;
  // For kC: where the kernel library is built ("" = $TMPDIR, else /tmp).
  std::string work_dir;
  // Lent to kernels for their parallel loops (runtime/thread_pool.h); null runs them serially.
  const KilnKernelEnv* env = nullptr;
  tir::InterpOptions interp;
  // For kLLVM and kC: checked mode (PipelineOptions::checked).
  bool checked = false;
};

// A module made ready to run on one target: compiled once (for llvm and c), then callable any
// number of times, from any thread.
class Runner {
 public:
  // Lowers and compiles the module's PrimFuncs for the target (nothing for interp). Errors are the
  // pipeline's or the backend's.
  // For opencl: UNAVAILABLE ("device unavailable: ...") without an OpenCL platform, and the
  // platform's build log when it rejects the generated program. For vulkan: UNAVAILABLE without a
  // Vulkan loader, driver or device.
  static absl::StatusOr<std::unique_ptr<Runner>> Create(const ir::IRModule& module, const RunOptions& options);
  ~Runner();

  // Calls `entry` with one tensor per parameter (see the header comment); buffers are written in
  // place. Returns the PrimFunc's return value (kKilnNone if it returns nothing). Errors: NOT_FOUND
  // for an unknown entry; INVALID_ARGUMENT for a wrong argument count or kind, a failed argument
  // check or AssertStmt (the kernel's message, followed by a description of the arguments given);
  // OUT_OF_RANGE for a failed check of checked mode (worded as the interpreter's fault); the
  // interpreter's own errors on "interp".
  absl::StatusOr<KilnAny> Call(const std::string& entry, const std::vector<runtime::Tensor>& args) const;

  RunTarget target() const { return options_.target; }

 private:
  Runner(ir::IRModule module, RunOptions options);  // out of line: the GPU runners are incomplete here
  ir::IRModule module_;
  RunOptions options_;
  std::unique_ptr<runtime::KernelModule> kernels_;  // null for interp, opencl and vulkan
  std::unique_ptr<DeviceRunner> device_;            // opencl, vulkan and kDevice
};

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_RUN_H_
