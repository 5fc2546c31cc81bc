#include "compiler/ir/diagnostic.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::ir {

bool DiagnosticList::has_errors() const {
  return std::any_of(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

absl::Status DiagnosticList::ToStatus() const {
  if (!has_errors()) return absl::OkStatus();
  return absl::InvalidArgumentError(RenderAll(*this, ""));
}

namespace {
const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}
}  // namespace

std::string Render(const Diagnostic& d, const std::string& source) {
  std::string out = absl::StrCat(d.span.defined() ? d.span.ToString() + ": " : "", SeverityName(d.severity),
                                 ": ", d.message, "\n");
  if (d.span.defined() && !source.empty()) {
    std::vector<absl::string_view> lines = absl::StrSplit(source, '\n');
    if (d.span.line >= 1 && static_cast<size_t>(d.span.line) <= lines.size()) {
      absl::string_view line = lines[d.span.line - 1];
      absl::StrAppend(&out, "    ", line, "\n    ");
      int col = std::max(1, d.span.column);
      out.append(std::min<size_t>(col - 1, line.size()), ' ');
      int width = 1;
      if (d.span.end_line == d.span.line && d.span.end_column > d.span.column) {
        width = d.span.end_column - d.span.column;
      }
      out += '^';
      out.append(width - 1, '~');
      out += '\n';
    }
  }
  for (const Diagnostic& n : d.notes) out += Render(n, source);
  return out;
}

std::string RenderAll(const DiagnosticList& diags, const std::string& source) {
  std::string out;
  for (const Diagnostic& d : diags.items()) out += Render(d, source);
  return out;
}

}  // namespace kiln::ir
