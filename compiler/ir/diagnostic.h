// Diagnostics with source positions, shared by the parser and the verifiers.
// Rendered as "FILE:LINE:COL: error: message", the source line, and a caret under the token.
#ifndef KILN_COMPILER_IR_DIAGNOSTIC_H_
#define KILN_COMPILER_IR_DIAGNOSTIC_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/span.h"

namespace kiln::ir {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  Span span;
  std::string message;
  std::vector<Diagnostic> notes;  // related locations
};

class DiagnosticList {
 public:
  void Error(const Span& span, std::string message) { Add(Severity::kError, span, std::move(message)); }
  void Warning(const Span& span, std::string message) { Add(Severity::kWarning, span, std::move(message)); }
  void Add(Severity severity, const Span& span, std::string message) {
    items_.push_back({severity, span, std::move(message), {}});
  }
  void Add(Diagnostic d) { items_.push_back(std::move(d)); }
  bool has_errors() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  // INVALID_ARGUMENT carrying the rendered errors (no source text), or OK.
  absl::Status ToStatus() const;

 private:
  std::vector<Diagnostic> items_;
};

// "file:3:5: error: msg\n    src line\n    ^~~~\n" . `source` is the file text (may be empty).
std::string Render(const Diagnostic& d, const std::string& source);
std::string RenderAll(const DiagnosticList& diags, const std::string& source);

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_DIAGNOSTIC_H_
