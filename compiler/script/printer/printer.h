// The TVMScript printer: IR -> Doc (the Python-subset AST in compiler/script/doc) -> text, in the
// style Apache TVM v0.26 prints (`tirx` as T, `T.sblock`, `out_ty=`, `s_tir=True`, typed float
// literals, `T.Buffer((128,), "float32")` params, `R.Tensor((n, 4), dtype="float32")`, ...). The
// output parses back (compiler/script/script.h) to a structurally equal IR, and printing that IR
// again gives the same text.
//
// Choices where TVM's output depends on configuration or where kiln differs on purpose:
//  * Relax symbolic dims are printed the Python < 3.12 way: as strings in the signature
//    (`x: R.Tensor(("n", 4), dtype="float32")`) and defined as `n = T.int64()` at the top of the
//    body; inside the body they print as identifiers.
//  * Floats print as Python's repr() (the shortest text that reads back to the same double), as
//    the Doc writer formats them: `T.float32(1e-05)`.
//  * An `else` holding only an `if` prints as `elif`.
//  * A buffer param with strides/elem_offset/scope given as constants stays an annotation
//    (`T.Buffer((16, 16), "float32", strides=(32, 1))`); one whose shape names variables prints as
//    `a: T.handle` + `A = T.match_buffer(a, (n, 4))`.
//  * `T.axis.remap` is used for every run of block axes bound to enclosing loop vars with the
//    loop's range, so explicit `T.axis.spatial(8, i)` lines normalise to it (as TVM does).
//  * The `# with T.sblock("root"):` comment is written when the root block holds buffers or
//    nested blocks (as TVM does); an s_tir function's root block is never printed as a `with`.
//  * Buffer params always spell their dtype (`T.Buffer((16,), "float32")`); other buffer
//    declarations (`T.alloc_buffer`, `T.match_buffer`, ...) omit the default float32.
#ifndef KILN_COMPILER_SCRIPT_PRINTER_PRINTER_H_
#define KILN_COMPILER_SCRIPT_PRINTER_PRINTER_H_

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/doc/doc.h"

namespace kiln::script::printer {

struct PrinterOptions {
  // Name of the `def` when a lone PrimFunc or Relax Function is printed. Empty: the function's
  // global_symbol, else "main". A global_symbol equal to this name is not repeated in func_attr.
  std::string func_name;
  // TVM's `module_alias`: inside a module, Relax functions refer to the module's functions as
  // `cls.f` after a `cls = Module` line; empty: as `Module.f`, with no alias line.
  std::string module_alias = "cls";
  // TVM's `show_all_ty`: false omits a Relax binding's annotation where the value's own type
  // (an operator's inferred type, a tuple's, a tuple item's, a variable's) is the variable's,
  // and every R.match_cast annotation (the cast spells the type).
  bool show_all_ty = true;
};

// Prints an IRModule, PrimFunc, Relax Function, TIR Stmt or PrimExpr, Relax Expr, Type or Buffer
// as TVMScript. Never fails: nodes it has no syntax for print as a `# <type key>` comment or name.
std::string Print(const ir::ObjectRef& node, const PrinterOptions& options = {});

// The Doc the printer renders (for tools that post-process it). A bare expression is returned as a
// module holding one expression statement.
doc::Module PrintDoc(const ir::ObjectRef& node, const PrinterOptions& options = {});

}  // namespace kiln::script::printer

#endif  // KILN_COMPILER_SCRIPT_PRINTER_PRINTER_H_
