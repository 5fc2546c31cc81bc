// Relax well-formedness: the structural rules every Relax function in a module must satisfy before
// any pass or code generator may rely on them.
//
//  * Relax variables are defined before use (params, bindings, match_cast), scoped by SeqExpr, If
//    branch and function; a variable is defined once.
//  * DataflowVars are bound only inside dataflow blocks and never used after their block ends;
//    calls inside a dataflow block are pure.
//  * Function bodies and If branches are SeqExprs.
//  * Symbolic TIR variables in types, shapes and prim values are defined (by a parameter annotation
//    or a match_cast) before use.
//  * GlobalVars name functions of the module; call_tir's callee is a PrimFunc; a pure function
//    (without the "relax.force_pure" attribute) calls no impure operator.
//  * Each binding's annotated type is compatible with the type inferred for its value, and
//    match_cast targets agree with the known rank/dtype of the value.
//
// All violations are reported (not just the first) with the span of the offending node; where a
// variable's use has no span of its own, the enclosing expression's or binding's span is used.
#ifndef KILN_COMPILER_RELAX_ANALYSIS_WELL_FORMED_H_
#define KILN_COMPILER_RELAX_ANALYSIS_WELL_FORMED_H_

#include "absl/status/status.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/ir/ir.h"

namespace kiln::relax {

// Checks every Relax function of `module`; PrimFuncs and ExternFuncs are skipped. Appends one
// diagnostic per violation to `diags` (may be null) and returns INVALID_ARGUMENT with the rendered
// diagnostics if there is any, OK otherwise.
absl::Status CheckWellFormed(const ir::IRModule& module, ir::DiagnosticList* diags);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_ANALYSIS_WELL_FORMED_H_
