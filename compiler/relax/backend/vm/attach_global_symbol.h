// AttachGlobalSymbol: every PrimFunc that a Relax function refers to (calls, or passes as a value)
// gets a "global_symbol" attr (its module name) if it has none, as TVM's AttachGlobalSymbol does
// before building. The kernel library exports exactly the PrimFuncs with a global_symbol, and the
// VM resolves a kernel call by that symbol, so a kernel made by LegalizeOps or FuseTIR (which are
// private) would otherwise be compiled but unreachable. PrimFuncs only called from other PrimFuncs
// stay private helpers.
#ifndef KILN_COMPILER_RELAX_BACKEND_VM_ATTACH_GLOBAL_SYMBOL_H_
#define KILN_COMPILER_RELAX_BACKEND_VM_ATTACH_GLOBAL_SYMBOL_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::backend {

absl::StatusOr<ir::IRModule> AttachGlobalSymbol(const ir::IRModule& module);

}  // namespace kiln::relax::backend

#endif  // KILN_COMPILER_RELAX_BACKEND_VM_ATTACH_GLOBAL_SYMBOL_H_
