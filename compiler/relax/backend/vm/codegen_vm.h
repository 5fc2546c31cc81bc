// VMCodeGen: Relax functions in the VM-lowered form (compiler/relax/transform/passes.h) -> Relax VM
// bytecode (runtime/vm/executable.h), through the ExecBuilder (exec_builder.h), as TVM's
// codegen_vm.cc does: registers per binding, Call/Ret/Goto/If, int constants in range as
// immediates, other constants deduplicated structurally into the constant pool, one kPackedFunc
// entry per kernel/builtin/extern name, one kVMFunc per Relax function with its parameter names.
// PrimFuncs are not compiled here: the driver builds them into the library section.
#ifndef KILN_COMPILER_RELAX_BACKEND_VM_CODEGEN_VM_H_
#define KILN_COMPILER_RELAX_BACKEND_VM_CODEGEN_VM_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "runtime/vm/executable.h"

namespace kiln::relax::backend {

absl::StatusOr<vm::Executable> VMCodeGen(const ir::IRModule& module);

}  // namespace kiln::relax::backend

#endif  // KILN_COMPILER_RELAX_BACKEND_VM_CODEGEN_VM_H_
