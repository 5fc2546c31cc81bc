// In-process JIT for the LLVM CPU backend (ORC LLJIT): compiles a lowered module for the host and
// serves its kernels through runtime::KernelModule, the interface a loaded kernel library also
// implements, so callers may use either. Used where writing and loading a .so is not worth it
// (tests, interactive use, the reference runs of the differential tests).
#ifndef KILN_COMPILER_TARGET_LLVM_JIT_H_
#define KILN_COMPILER_TARGET_LLVM_JIT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "runtime/module.h"

namespace llvm::orc {
class LLJIT;
}  // namespace llvm::orc

namespace kiln::codegen {

class JitModule : public runtime::KernelModule {
 public:
  // Compiles `lowered` for `target` (which must describe the host: the code runs here). Every
  // kernel is resolved up front, so GetKernel/Call are lock-free and safe from any thread.
  static absl::StatusOr<std::unique_ptr<JitModule>> Create(const ir::IRModule& lowered,
                                                           const std::string& target = "llvm");
  ~JitModule() override;
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  const std::vector<std::string>& kernel_names() const override { return names_; }
  absl::StatusOr<KilnKernelFn> GetKernel(const std::string& name) const override;

 private:
  JitModule() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<std::string> names_;
  std::map<std::string, KilnKernelFn> kernels_;
};

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_LLVM_JIT_H_
