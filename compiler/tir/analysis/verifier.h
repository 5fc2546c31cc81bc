// The TIR verifier: checks a PrimFunc against the typing rules and scoping rules of the TIR
// language specification (../shared/spec/004, "Typing Rules", "Variable Scoping") plus the
// structural rules TVMScript relies on (SBlock iter vars, T.init, thread tags, break/continue).
// It runs after parsing and deserialization, before any pass, so that every later stage may assume
// well-typed IR.
//
// Every violation becomes one error in `diags`, located at the offending node's span (or, when
// that node has none, at the nearest enclosing node that has one). All errors are collected, not
// just the first. Messages name what disagrees: "mismatched types: float32 vs int32 in Add",
// "BufferLoad of 2-dimensional buffer A with 1 indices", "Undefined variable: i".
#ifndef KILN_COMPILER_TIR_ANALYSIS_VERIFIER_H_
#define KILN_COMPILER_TIR_ANALYSIS_VERIFIER_H_

#include "absl/status/status.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/ir/module.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

// Which rule sets run. The defaults are what kiln's passes and backends rely on; the TVMScript
// parser relaxes them to accept exactly what TVM's parser accepts.
struct VerifyOptions {
  // TVM's well-formed rule that TIR is SSA (a variable is defined once). TVM skips its
  // well-formed check for check_well_formed=False definitions, and so does the parser then.
  bool ssa = true;
  // TVM's well-formed rule that every variable used is defined (a parameter, a buffer's shape, a
  // loop, a let, ...). Skipped with it for check_well_formed=False: `n = T.int32()` is then a
  // free variable of the function.
  bool defined_vars = true;
  // Rules TVM's parser does not enforce but kiln's lowering needs: T.ret only in a function that
  // declares a return type, and no launch_thread nested inside another of the same thread tag.
  bool backend_rules = true;
  // TVM's check that a device region's scope ids describe one launch (scope_ids.h), part of its
  // well-formed check: skipped with it for check_well_formed=False.
  bool scope_ids = true;
  // The input is (partly) lowered by the TIR pipeline (compiler/driver/lowered_form.h), whose
  // argument checks read a pointer's address with Cast(int64, handle). Used by --verify-each.
  bool lowered_form = false;
};

// Verifies one function. `module` (optional) resolves calls to other functions (GlobalVar ops);
// without it those calls are not checked. Appends errors to `diags` (may be null) and returns
// INVALID_ARGUMENT carrying the rendered errors if there were any, OK otherwise.
absl::Status VerifyPrimFunc(const ir::PrimFunc& func, ir::DiagnosticList* diags,
                            const ir::IRModule& module = ir::IRModule(), const VerifyOptions& options = {});

// Verifies every PrimFunc of `module` (other functions are skipped).
absl::Status VerifyModuleTIR(const ir::IRModule& module, ir::DiagnosticList* diags,
                             const VerifyOptions& options = {});

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_VERIFIER_H_
