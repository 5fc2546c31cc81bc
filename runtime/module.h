// Loading a kernel library (a shared object produced by the LLVM or C backend) and calling its
// kernels through the kernel ABI (kernel_abi.h). No LLVM and no compiler code here: this is what
// ships to devices.
#ifndef KILN_RUNTIME_MODULE_H_
#define KILN_RUNTIME_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_abi.h"

namespace kiln::runtime {

// Calls one kernel entry; a non-zero return becomes INVALID_ARGUMENT with the kernel's message, or
// OUT_OF_RANGE with a checked-mode kernel's failed check (kKilnErrorMessageOwned, freed here); a
// trap INTERNAL naming the kernel and the signal's likely cause.
absl::Status CallKernel(KilnKernelFn fn, const std::string& name, const KilnAny* args, int32_t num_args,
                        KilnAny* result, const KilnKernelEnv* env);

// The kernels of one compiled module, wherever their code lives: a loaded shared library
// (KernelLibrary) or code JIT-compiled in process (compiler/target/llvm/jit.h). Callers that only
// call kernels hold this interface and work with either.
class KernelModule {
 public:
  virtual ~KernelModule() = default;
  virtual const std::vector<std::string>& kernel_names() const = 0;
  // NOT_FOUND if the module has no such kernel.
  virtual absl::StatusOr<KilnKernelFn> GetKernel(const std::string& name) const = 0;

  // Calls a kernel. A non-zero return becomes an error status carrying the kernel's message
  // (e.g. "ValueError: Mismatched A.shape[0] on argument #0 ...").
  absl::Status Call(const std::string& name, const KilnAny* args, int32_t num_args, KilnAny* result,
                    const KilnKernelEnv* env = nullptr) const;
};

class KernelLibrary : public KernelModule {
 public:
  // dlopen()s `path` (RTLD_LOCAL: two libraries may export the same kernel names).
  static absl::StatusOr<std::unique_ptr<KernelLibrary>> Load(const std::string& path);
  // Loads a library from its bytes (an executable's library section), written to an anonymous
  // memory file, or without memfd to a private temporary file unlinked at once. `name` names it in
  // errors.
  static absl::StatusOr<std::unique_ptr<KernelLibrary>> LoadFromBytes(absl::string_view bytes,
                                                                      const std::string& name);
  ~KernelLibrary() override;
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  const std::vector<std::string>& kernel_names() const override { return names_; }
  // NOT_FOUND if the library does not export that kernel.
  absl::StatusOr<KilnKernelFn> GetKernel(const std::string& name) const override;

 private:
  KernelLibrary() = default;
  void* handle_ = nullptr;
  // The memory file of LoadFromBytes, open for as long as the library is loaded: dlopen returns an
  // already-loaded library whose path string matches, and a closed descriptor's number -- hence its
  // /proc/self/fd/N path -- is reused by the next memory file.
  int memfd_ = -1;
  std::string path_;
  std::vector<std::string> names_;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_MODULE_H_
