// LLVM CPU backend: lowered TIR (the form runtime/kernel_abi.h and compiler/driver/lowered_form.h
// document, which the C backend also consumes) -> LLVM IR -> optimized machine code, delivered as
// a shared kernel library (BuildSharedLibrary) or JIT-compiled in process (jit.h).
//
// Every compile owns its LLVMContext and TargetMachine, so compiles may run concurrently on any
// threads of the daemon; the only process-wide step, target registration, is a thread-safe once.
#ifndef KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_H_
#define KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/target/llvm/target.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace kiln::codegen {

// An LLVM module with the context that owns it (declared first, so it outlives the module).
struct LLVMModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::vector<std::string> kernel_names;  // the packed entries (calling_conv=1), in module order
};

// Emits every PrimFunc of `lowered` for `tm`'s triple and data layout, unoptimized and verified.
// Packed entries get the kernel ABI signature and external linkage under their global_symbol; other
// PrimFuncs are internal helpers. The module also defines `kiln_kernel_names`.
// Unsupported input (unflattened buffers, GPU thread bindings, unknown intrinsics) is
// INVALID_ARGUMENT naming the function and the construct.
absl::StatusOr<LLVMModule> GenerateLLVM(const ir::IRModule& lowered, llvm::TargetMachine* tm);

// Runs the IR optimization pipeline of `opt_level` (0..3, see LLVMTarget::opt_level) tuned for `tm`.
void OptimizeLLVM(llvm::Module* module, llvm::TargetMachine* tm, int opt_level);

// GenerateLLVM + OptimizeLLVM for a parsed target.
absl::StatusOr<LLVMModule> CompileToLLVM(const ir::IRModule& lowered, const LLVMTarget& target);

// The optimized module as LLVM assembly text (for inspection, dumps and tests).
absl::StatusOr<std::string> EmitLLVMAssembly(const ir::IRModule& lowered, const std::string& target);

// The optimized module as a relocatable (PIC) object file, in memory.
absl::StatusOr<std::string> EmitObjectFile(const ir::IRModule& lowered, const std::string& target);

struct LinkOptions {
  // The ELF linker; "" = $KILN_LLD if set, else for the host's architecture the system "ld" (GNU
  // binutils, the quickest to start) then "ld.lld-16" and "ld.lld" from PATH; for other
  // architectures "ld.lld-16" then "ld.lld".
  std::string linker;
};

// Links the relocatable object `object` (EmitObjectFile's output for `triple`) into the shared
// library `out_path`, a kernel library that runtime::KernelLibrary::Load opens. The library needs
// only libc and libm. Linker diagnostics come back in the error.
absl::Status LinkSharedLibrary(const std::string& object, const std::string& triple, const std::string& out_path,
                               const LinkOptions& options = {});

// EmitObjectFile + LinkSharedLibrary: compiles `lowered` for `target` (a target string,
// "llvm -mcpu=...") into the kernel library `out_path`.
absl::Status BuildSharedLibrary(const ir::IRModule& lowered, const std::string& target,
                                const std::string& out_path, const LinkOptions& options = {});

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_LLVM_CODEGEN_LLVM_H_
