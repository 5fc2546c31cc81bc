// The symbols a kernel library exports, checked when one is built (not when a module is parsed:
// TVM's parser accepts these modules, and analysis and transform tests hold them; only linking
// them into one library goes wrong):
//   - a PrimFunc exported under the name of a C library function that compiled kernels call
//     (malloc, memcpy, snprintf, libm's exp/expf/... behind the math intrinsics) would stand in
//     for it: the LLVM module and the JIT resolve the kernel's own calls to the kernel;
//   - two PrimFuncs exporting one symbol (its global_symbol, else its name in the module): LLVM
//     built both under one name and the C compiler refused the file. TVM's build refuses it too.
// Every build of kernels (driver/kernel_build.h, driver/relax_build.h) calls this first.
#ifndef KILN_COMPILER_DRIVER_KERNEL_SYMBOLS_H_
#define KILN_COMPILER_DRIVER_KERNEL_SYMBOLS_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/ir/ir.h"

namespace kiln::driver {

// Whether `name` is a C library function compiled kernels call (so no kernel may export it).
bool IsCLibraryName(const std::string& name);

// OK when the PrimFuncs of `module` export distinct symbols, none of them a C library function;
// otherwise INVALID_ARGUMENT with one rendered error per offending function, at its span.
absl::Status CheckKernelSymbols(const ir::IRModule& module);

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_KERNEL_SYMBOLS_H_
