// kiln's Relax virtual machine: runs an Executable's bytecode (bytecode.h), calling builtins
// (builtins.h) and the compiled kernels of the executable's library section through the kernel
// ABI (runtime/kernel_abi.h). No compiler and no LLVM in here: this is what kiln-agent links.
//
// TVM's VirtualMachine API (tvm-reference.md §3.2) as C++:
//   Invoke(func, args)                          call a function (or a SaveFunction'd name)
//   SetInput / InvokeStateful / GetOutput(s)    the RPC-friendly stateful form
//   SaveFunction                                pre-bind arguments under a new name for timing
//   SetInstrument                               a callback around every Call (SKIP_RUN skips it)
//   EnableProfiling / ProfileReport             per-callee counts and times
//   TimeEvaluator                               TVM's time_evaluator over Invoke/InvokeStateful
// GPU executables (a "device" library beside the host code: runtime/vm/executable.h) run on the
// device of that library: Create loads its kernels through the device registry
// (runtime/device/device_module.h; UNAVAILABLE when the machine lacks the device) and lends the
// host code a device launcher (KilnKernelEnv::device_launch). Tensors live on devices[0]: CPU
// inputs and constants are copied there, and what Invoke and GetOutput(s) return is copied back
// to the CPU, so callers see host tensors whatever the device.
//
// Errors are absl::Status: a bad executable fails Create, a bad argument or a failing kernel fails
// the call (INVALID_ARGUMENT with the kernel's or builtin's message), recursion deeper than
// VMOptions::max_call_depth is RESOURCE_EXHAUSTED. The VM never aborts on user input.
//
// Thread-safety: a VirtualMachine is used by one thread at a time (it holds registers, inputs and
// outputs). Many VMs may share one Executable and run concurrently.
#ifndef KILN_RUNTIME_VM_VM_H_
#define KILN_RUNTIME_VM_VM_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/device/device_module.h"
#include "runtime/kernel_abi.h"
#include "runtime/module.h"
#include "runtime/profiling/time_evaluator.h"
#include "runtime/thread_pool.h"
#include "runtime/vm/allocator.h"
#include "runtime/vm/builtins.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/value.h"

namespace kiln::vm {

struct VMOptions {
  // The devices functions run on; devices[0] receives inputs and constants. The host CPU is
  // appended when absent (the last device does shape work, as in TVM). Empty: the device of the
  // executable's device library (a GPU build), else the CPU alone.
  std::vector<DLDevice> devices;
  // One allocator kind for every device.
  AllocatorKind allocator = AllocatorKind::kPooled;
  // Services for the kernels' parallel loops. nullptr: the VM owns a ThreadPool of num_threads
  // threads (<= 0: hardware concurrency; 1: kernels run serially, no pool).
  const KilnKernelEnv* kernel_env = nullptr;
  int num_threads = 0;
  // Extra kernel modules searched before the executable's own libraries (kernels JIT-compiled in
  // process by tests and the CLI). Not owned; they must outlive the VM.
  std::vector<const runtime::KernelModule*> extra_modules;
  // Nested VM function calls beyond this depth fail instead of overflowing the native stack.
  int max_call_depth = 512;
};

// set_instrument's callback, called before (before_run) and after every Call instruction with the
// callee's symbol and arguments (ret is None before the call). Returning kSkipRun before a call
// skips it (its destination register keeps its old value, and no after-call callback follows).
// Arguments are passed as Values (TVM converts dtypes to strings for Python's sake).
enum class InstrumentAction : int { kNoOp = 0, kSkipRun = 1 };
using Instrument = std::function<InstrumentAction(absl::string_view func_symbol, bool before_run,
                                                  const Value& ret, absl::Span<const Value> args)>;

// Per-callee profile: counts and wall time of every Call (kernels, builtins and VM functions; a VM
// function's time includes its callees).
struct ProfileEntry {
  std::string name;
  int64_t count = 0;
  double total_seconds = 0;
};
struct ProfileReport {
  std::vector<ProfileEntry> entries;  // by descending total time
  double total_seconds = 0;           // top-level invocations while profiling was on
  std::string ToString() const;       // a table, one callee per line
};

class VirtualMachine : private BuiltinContext {
 public:
  // Loads `exec`: validates it, creates the allocators, writes each "host-so" library to an
  // anonymous memory file (or a private temporary file, deleted at once) and dlopens it, and
  // resolves every packed function (extra modules, then the executable's libraries, then the
  // builtins). An unresolved name fails here (NOT_FOUND, naming it). Loading a library runs its
  // code: the bytecode is validated, but a library is only as trustworthy as its source (kilnd
  // serves executables by digest; the checksum catches corruption, not malice).
  static absl::StatusOr<std::unique_ptr<VirtualMachine>> Create(std::shared_ptr<const Executable> exec,
                                                                const VMOptions& options = {});
  ~VirtualMachine() override;
  VirtualMachine(const VirtualMachine&) = delete;
  VirtualMachine& operator=(const VirtualMachine&) = delete;

  const Executable& executable() const { return *exec_; }
  const std::vector<DLDevice>& devices() const { return devices_; }

  // Calls a VM function (or a packed function of the table, or a SaveFunction'd name) by name.
  // Argument count is checked against the function's num_args.
  absl::StatusOr<Value> Invoke(const std::string& func_name, std::vector<Value> args);

  // Stateful API. SetInput checks the count, and tensors' ndim/shape/dtype against the function's
  // parameter checks where the executable states them; it stores the inputs (on devices[0]).
  absl::Status SetInput(const std::string& func_name, std::vector<Value> args);
  absl::Status InvokeStateful(const std::string& func_name);
  // The last InvokeStateful result: GetOutput walks nested tuples by `indices` (empty: the whole
  // result); GetOutputArity is the tuple size there (-1 for a non-tuple); GetOutputs flattens the
  // result depth-first. Unlike TVM's get_output, GetOutput may return a tuple (TVM refuses for
  // RPC's sake; an RPC layer over this API decides for itself).
  absl::StatusOr<Value> GetOutput(const std::string& func_name, absl::Span<const int64_t> indices = {}) const;
  absl::StatusOr<int64_t> GetOutputArity(const std::string& func_name,
                                         absl::Span<const int64_t> indices = {}) const;
  absl::StatusOr<std::vector<Value>> GetOutputs(const std::string& func_name) const;

  // Binds `args` to `func_name` under `saved_name`; Invoke(saved_name, {}) then calls it, returning
  // None unless include_return.
  absl::Status SaveFunction(const std::string& func_name, const std::string& saved_name,
                            std::vector<Value> args, bool include_return);

  absl::StatusOr<int64_t> GetFunctionArity(const std::string& func_name) const;
  absl::StatusOr<std::string> GetFunctionParamName(const std::string& func_name, int64_t index) const;

  // nullptr removes the instrument.
  void SetInstrument(Instrument instrument);

  // Per-callee profiling (off by default: it costs two clock reads per Call).
  void EnableProfiling(bool on);
  ProfileReport GetProfileReport() const;
  void ResetProfile();

  // time_evaluator: seconds per call for each repeat, timing Invoke(func_name, args). An
  // executable with a device library is timed by the device (DeviceRuntime::StartTimer: CUDA
  // events, OpenCL profiling, Vulkan timestamps), else by the host's steady clock.
  absl::StatusOr<std::vector<double>> TimeEvaluator(const std::string& func_name, std::vector<Value> args,
                                                    const profiling::TimeEvalOptions& options = {});
  // ... timing InvokeStateful(func_name) after SetInput (TVM's time_evaluator("invoke_stateful")).
  absl::StatusOr<std::vector<double>> TimeEvaluatorStateful(const std::string& func_name,
                                                            const profiling::TimeEvalOptions& options = {});

  // vm.builtin.memory_manager.clear.
  void ClearAllocatorCaches() override;
  // The allocator of devices[i] (tests and stats).
  const Allocator& allocator_at(size_t i) const { return *allocators_[i]; }

 private:
  struct Callee;
  struct Frame;

  VirtualMachine();

  // BuiltinContext.
  int num_devices() const override { return static_cast<int>(devices_.size()); }
  absl::StatusOr<Allocator*> allocator(int64_t device_index) override;
  absl::StatusOr<Value> InvokeClosure(const Value& closure, absl::Span<const Value> args) override;

  absl::Status Init(const VMOptions& options);
  absl::StatusOr<int64_t> FindFunction(const std::string& name) const;
  absl::StatusOr<Value> CallFunction(int64_t func_index, absl::Span<const Value> args);
  absl::StatusOr<Value> RunVMFunction(int64_t func_index, absl::Span<const Value> args);
  absl::StatusOr<Value> CallKernel(const Callee& callee, absl::Span<const Value> args);
  absl::StatusOr<Value> ConvertInput(Value v) const;
  // `v` with every tensor on the CPU (results handed to callers).
  absl::StatusOr<Value> ToHost(Value v) const;
  // TimeEvaluate of `fn`, timed by the device when the executable has a device library.
  absl::StatusOr<std::vector<double>> TimeDevice(const std::function<absl::Status()>& fn,
                                                 const profiling::TimeEvalOptions& options);
  absl::Status LoadDeviceLibrary(const LibraryBlob& blob);
  // KilnKernelEnv::device_launch: `launcher` is the VM.
  static int32_t DeviceLaunch(void* launcher, const char* kernel, const KilnAny* args, int32_t num_args,
                              KilnAny* result);
  // KilnKernelEnv::device_alloc / device_free: device workspace of host code, on devices[0].
  static void* DeviceAlloc(void* launcher, int64_t nbytes, KilnAny* result);
  static void DeviceFree(void* launcher, void* ptr);

  std::shared_ptr<const Executable> exec_;
  std::vector<DLDevice> devices_;
  std::vector<std::unique_ptr<Allocator>> allocators_;
  std::unique_ptr<runtime::ThreadPool> own_pool_;
  const KilnKernelEnv* kernel_env_ = nullptr;
  std::vector<std::unique_ptr<runtime::KernelLibrary>> libraries_;
  // Device kernels of the executable's device libraries, and the env lent to host code (the
  // caller's or the pool's services plus the device launcher).
  std::vector<std::unique_ptr<runtime::DeviceModule>> device_modules_;
  std::unordered_map<std::string, const runtime::DeviceModule*> device_kernels_;
  KilnKernelEnv device_env_{};
  std::string launch_error_;  // the message of the last failed launch (the result slot points here)
  std::vector<void*> workspace_;  // live device workspace; what a failed kernel call left is freed
  std::vector<Callee> callees_;     // one per func_table entry
  std::vector<Value> constants_;    // the constant pool as Values
  std::vector<KilnAny> kernel_args_;  // scratch for kernel calls (kernels never re-enter the VM)
  int max_call_depth_ = 0;
  int depth_ = 0;

  std::unordered_map<std::string, std::vector<Value>> inputs_;
  std::unordered_map<std::string, Value> outputs_;
  struct Saved {
    int64_t func_index;
    std::vector<Value> args;
    bool include_return;
  };
  std::unordered_map<std::string, Saved> saved_;

  Instrument instrument_;
  bool profiling_ = false;
  std::map<int64_t, ProfileEntry> profile_;  // by func index
  double profile_total_seconds_ = 0;
};

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_VM_H_
