// C backend: emits portable C (C99 plus `_Float16` and `_Thread_local`, both in GCC >= 12 and
// Clang) for lowered TIR (the form of docs in runtime/kernel_abi.h and compiler/driver/lowered_form.h), and builds
// it into a kernel library with the system C compiler. For targets without LLVM, and as a second
// backend that the reference interpreter and the LLVM backend are checked against.
#ifndef KILN_COMPILER_TARGET_SOURCE_C_CODEGEN_C_H_
#define KILN_COMPILER_TARGET_SOURCE_C_CODEGEN_C_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::codegen {

// C source for every PrimFunc of a lowered module. The source is self-contained: it declares the
// KilnAny/DLTensor layouts itself, so compiling it needs only a C compiler and libm.
absl::StatusOr<std::string> GenerateC(const ir::IRModule& lowered);

struct CCompileOptions {
  std::string compiler;  // "" = $KILN_CC, else "cc"
  std::vector<std::string> flags = {"-O2", "-std=gnu11", "-fPIC"};
};

// Compiles `source` into the shared library `out_path` (a kernel library loadable with
// runtime/module.h). The compiler's diagnostics are returned in the error.
absl::Status CompileCToSharedLibrary(const std::string& source, const std::string& out_path,
                                     const CCompileOptions& options = {});

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_SOURCE_C_CODEGEN_C_H_
