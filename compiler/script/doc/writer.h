// Renders a Doc AST as Python text in the layout TVM's TVMScript printer uses: 4-space indents,
// a blank line after each function definition (none elsewhere), minimal parentheses derived from operator precedence, bare
// tuples only as assignment/loop targets and subscript indices, double-quoted strings and
// shortest round-trip floats. Output is deterministic and reads back (Read) to an equal Doc.
#ifndef KILN_COMPILER_SCRIPT_DOC_WRITER_H_
#define KILN_COMPILER_SCRIPT_DOC_WRITER_H_

#include <string>

#include "compiler/script/doc/doc.h"

namespace kiln::script::doc {

struct WriteOptions {
  int indent_spaces = 4;
};

// The whole module, ending with a newline (empty string for an empty module without comments).
std::string Write(const Module& module, const WriteOptions& options = {});

// One expression, as it would appear on the right-hand side of an assignment.
std::string WriteExpr(const Expr& expr, const WriteOptions& options = {});

// A float as TVM's printer writes it: integral values in fixed notation with one decimal ("1.0",
// "1e16" as "10000000000000000.0"), others with 17 significant digits ("0.10000000000000001",
// "1.0000000000000001e-05"); either reads back to the same double. Infinities and NaN have no literal; they are written as "1e999",
// "-1e999" and "float(\"nan\")".
std::string FormatFloat(double value);

// A double-quoted Python string literal for UTF-8 `value`, escaping what must be escaped.
std::string QuoteString(const std::string& value);

}  // namespace kiln::script::doc

#endif  // KILN_COMPILER_SCRIPT_DOC_WRITER_H_
