// The round-trip property TVMScript tooling relies on: parse -> print -> parse gives a
// structurally equal IR, and printing that IR again gives identical text (a fixed point). Used by
// `kiln roundtrip`, `kiln fmt` and the corpus tests.
#ifndef KILN_COMPILER_SCRIPT_ROUNDTRIP_H_
#define KILN_COMPILER_SCRIPT_ROUNDTRIP_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"

namespace kiln::script {

// OK, or an error whose message says which step failed: the first parse (with its diagnostics),
// the re-parse of the printed text, a structural mismatch (with the path of the first difference),
// or a non-fixed-point print (with the first differing line). `printed` (optional) receives the
// canonical text.
absl::Status CheckRoundTrip(absl::string_view source, const std::string& filename, std::string* printed = nullptr,
                            const ParseOptions& options = {});

// The options a parsed program is printed with: a lone function under its own global_symbol when
// that can be a `def` name (else as `main`, with the symbol in its T.func_attr), so that the text
// parses back.
printer::PrinterOptions PrintOptionsFor(const ir::ObjectRef& parsed);

// Canonical TVMScript for `source` (what `kiln fmt` prints).
absl::StatusOr<std::string> Format(absl::string_view source, const std::string& filename,
                                   const ParseOptions& options = {});

}  // namespace kiln::script

#endif  // KILN_COMPILER_SCRIPT_ROUNDTRIP_H_
