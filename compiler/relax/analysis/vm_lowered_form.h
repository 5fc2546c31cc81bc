// Checks that a module is in THE VM-LOWERED FORM of compiler/relax/transform/passes.h: what the
// lowering pipeline must produce and VMCodeGen may assume. Tests run it after the lowering passes;
// VMCodeGen runs it first so that a pipeline bug is reported as such rather than as bad bytecode.
#ifndef KILN_COMPILER_RELAX_ANALYSIS_VM_LOWERED_FORM_H_
#define KILN_COMPILER_RELAX_ANALYSIS_VM_LOWERED_FORM_H_

#include "absl/status/status.h"
#include "compiler/ir/ir.h"

namespace kiln::relax {

// OK, or INVALID_ARGUMENT listing every violation as "function 'f': <what>" (one per line).
// PrimFuncs and ExternFuncs are not checked.
absl::Status CheckVMLoweredForm(const ir::IRModule& module);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_ANALYSIS_VM_LOWERED_FORM_H_
