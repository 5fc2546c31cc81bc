// Loading a kernel library (a shared object produced by the LLVM or C backend) and calling its
// kernels through the kernel ABI (kernel_abi.h). No LLVM and no compiler code here: this is what
// ships to devices.
#ifndef KILN_RUNTIME_MODULE_H_
#define KILN_RUNTIME_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/kernel_abi.h"

namespace kiln::runtime {

// Calls one kernel entry; a non-zero return becomes INVALID_ARGUMENT with the kernel's message.
absl::Status CallKernel(KilnKernelFn fn, const std::string& name, const KilnAny* args, int32_t num_args,
                        KilnAny* result, const KilnKernelEnv* env);

class KernelLibrary {
 public:
  // dlopen()s `path` (RTLD_LOCAL: two libraries may export the same kernel names).
  static absl::StatusOr<std::unique_ptr<KernelLibrary>> Load(const std::string& path);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const std::vector<std::string>& kernel_names() const { return names_; }
  // NOT_FOUND if the library does not export that kernel.
  absl::StatusOr<KilnKernelFn> GetKernel(const std::string& name) const;

  // Calls a kernel. A non-zero return becomes an error status carrying the kernel's message
  // (e.g. "ValueError: Mismatched A.shape[0] on argument #0 ...").
  absl::Status Call(const std::string& name, const KilnAny* args, int32_t num_args, KilnAny* result,
                    const KilnKernelEnv* env = nullptr) const;

 private:
  KernelLibrary() = default;
  void* handle_ = nullptr;
  std::string path_;
  std::vector<std::string> names_;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_MODULE_H_
