// Reads Python-subset source text into the Doc AST. Errors carry file:line:col positions that
// match CPython's for the same mistake where practical (e.g. "expected ':'").
#ifndef KILN_COMPILER_SCRIPT_DOC_READER_H_
#define KILN_COMPILER_SCRIPT_DOC_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/diagnostic.h"
#include "compiler/script/doc/doc.h"

namespace kiln::script::doc {

struct ReadOptions {
  // Nesting deeper than this (brackets, blocks, expression depth) is an error, not a crash.
  int max_depth = 200;
};

// On failure returns INVALID_ARGUMENT and, if `diags` is given, appends the diagnostic(s) with
// spans naming `filename`.
absl::StatusOr<Module> Read(absl::string_view source, const std::string& filename,
                            ir::DiagnosticList* diags = nullptr, const ReadOptions& options = {});

}  // namespace kiln::script::doc

#endif  // KILN_COMPILER_SCRIPT_DOC_READER_H_
