// The TVMScript front door: source text -> IR, with diagnostics. Reads the Python subset
// (compiler/script/doc), parses it on the IRBuilder (compiler/script/parser), and verifies the
// result (the TIR verifier and Relax well-formedness), so that a successful parse is valid IR.
//
// A source holds optional comments and `import tvm` / `from tvm.script import ir as I, tirx as T,
// relax as R` lines (any subset, any alias; `kiln.script` works too; without imports the names T,
// R and I are predefined, as in TVM's printed output), simple constant assignments, then decorated
// definitions: `@I.ir_module` classes, `@T.prim_func` and `@R.function` functions.
//
// Older spellings: `from tvm.script import tir as T`, `T.block`, `T.block_attr`, `out_sinfo=`,
// `sinfo_args=` are accepted with a warning naming the v0.26 spelling; `tir_vars=` is rejected
// (v0.26 passes symbolic values inside the call_tir argument tuple).
#ifndef KILN_COMPILER_SCRIPT_SCRIPT_H_
#define KILN_COMPILER_SCRIPT_SCRIPT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include <map>
#include <string>

#include "compiler/ir/diagnostic.h"
#include "compiler/ir/ir.h"

namespace kiln::script {

struct ParseOptions {
  // With several top-level definitions, the one to return; empty: the last.
  std::string name;
  // Run the TIR verifier and Relax well-formedness checks on the result.
  bool verify = true;
  // Nesting deeper than this is an error (never a stack overflow). Each link of a chain that
  // nests the tree (`a + b + c`, `x.y[0]`, `a and b and c`) counts as a level.
  int max_depth = 200;
  // TIR scopes nested in one function: loops, blocks and every statement that scopes the rest of
  // its block (`x: T.let[...] = v`, `T.decl_buffer`, `T.sblock_alloc_buffer`, ...). More is an
  // error; the IR is as deep as this, and what walks it recursively must not run out of stack.
  int max_scope_depth = 1000;
  // The default for decorators that do not say check_well_formed=: as in TVM, with the check off
  // an annotated binding of a call takes the annotation as its type unchecked, and the Relax
  // well-formedness check and the TIR SSA rule are skipped.
  bool check_well_formed = true;
  // Python values bound to names before the source is read, as if the file began with `NAME =
  // VALUE` (template capture: `M = 128` outside a kernel, `T.Buffer((M, M), "float32")` inside).
  // A value is Python literal text -- a number, a string, a bool, or a tuple/list of those -- and
  // a bare word (`float16`) is a string. `kiln build --define` and kilnd's `extra_vars` fill this.
  std::map<std::string, std::string> defines;
};

// What ParseScript reports besides the definition.
struct ParseInfo {
  // Some decorator (or the options) turned the well-formed check off: the printed text of
  // the result needs the same setting to parse back.
  bool well_formed_check_off = false;
};

// Returns the selected definition: an IRModule, a PrimFunc or a Relax Function. On failure returns
// INVALID_ARGUMENT whose message is the rendered diagnostics ("file:line:col: error: ..." with the
// source line and a caret); `diags` (optional) receives every diagnostic, warnings included. A UTF-8
// byte order mark at the start of `source` is skipped, as Python skips it.
absl::StatusOr<ir::ObjectRef> ParseScript(absl::string_view source, const std::string& filename,
                                          ir::DiagnosticList* diags = nullptr, const ParseOptions& options = {},
                                          ParseInfo* info = nullptr);

// The module a parse result denotes: the IRModule itself, or a module holding the lone function
// under its global_symbol (else `main`).
ir::IRModule AsModule(const ir::ObjectRef& parsed);

// The checks ParseScript runs when options.verify is set (the TIR verifier, Relax
// well-formedness unless `check_well_formed` is off, and the buildability checks of verify.h), for modules that come from elsewhere (a
// deserialized IRModule). Problems go to `diags`; the status is INVALID_ARGUMENT then.
absl::Status VerifyModule(const ir::IRModule& module, ir::DiagnosticList* diags, bool check_well_formed = true);

}  // namespace kiln::script

#endif  // KILN_COMPILER_SCRIPT_SCRIPT_H_
