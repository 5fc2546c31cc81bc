#include "compiler/script/roundtrip.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"

namespace kiln::script {

namespace {

// Whether `s` can be a `def` name: an identifier that is not a Python keyword.
bool IsDefName(absl::string_view s) {
  static const char* const kKeywords[] = {"False", "None", "True", "and", "as", "assert", "async", "await",
                                          "break", "class", "continue", "def", "del", "elif", "else", "except",
                                          "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
                                          "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
                                          "with", "yield"};
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  for (const char* k : kKeywords) {
    if (s == k) return false;
  }
  return true;
}

std::string FirstDifference(const std::string& a, const std::string& b) {
  std::vector<std::string> la = absl::StrSplit(a, '\n'), lb = absl::StrSplit(b, '\n');
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    std::string x = i < la.size() ? la[i] : "<end>", y = i < lb.size() ? lb[i] : "<end>";
    if (x != y) return absl::StrCat("line ", i + 1, ": \"", x, "\" vs \"", y, "\"");
  }
  return "same text";
}

}  // namespace

printer::PrinterOptions PrintOptionsFor(const ir::ObjectRef& parsed) {
  printer::PrinterOptions o;
  if (const auto* f = parsed.as<ir::BaseFuncNode>()) {
    // The printer's own default would be the global_symbol too, so another name must be given.
    const auto* s = f->attrs.Get(ir::String("global_symbol")).as<ir::StringNode>();
    if (s != nullptr) o.func_name = IsDefName(s->value) ? s->value : "main";
  }
  return o;
}

absl::StatusOr<std::string> Format(absl::string_view source, const std::string& filename, const ParseOptions& options) {
  absl::StatusOr<ir::ObjectRef> parsed = ParseScript(source, filename, nullptr, options);
  if (!parsed.ok()) return parsed.status();
  return printer::Print(*parsed, PrintOptionsFor(*parsed));
}

absl::Status CheckRoundTrip(absl::string_view source, const std::string& filename, std::string* printed,
                            const ParseOptions& options) {
  ParseInfo info;
  absl::StatusOr<ir::ObjectRef> first = ParseScript(source, filename, nullptr, options, &info);
  if (!first.ok()) return first.status();
  std::string text = printer::Print(*first, PrintOptionsFor(*first));
  if (printed) *printed = text;
  ParseOptions again = options;
  again.name.clear();
  // TVM prints no check_well_formed=False: the printed text is read back as the source was.
  if (info.well_formed_check_off) again.check_well_formed = false;
  absl::StatusOr<ir::ObjectRef> second = ParseScript(text, filename + " (printed)", nullptr, again);
  if (!second.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the printed text does not parse:\n", second.status().message()));
  }
  std::string path;
  // Free variables pair up one to one: a buffer that no statement declares (a body-level
  // `A = T.Buffer(..., data=a)` alias) is a new object on each parse, equal by its fields.
  if (!ir::StructuralEqual(*first, *second, /*map_free_vars=*/true, &path)) {
    return absl::InvalidArgumentError(absl::StrCat("re-parsed IR differs at ", path));
  }
  std::string text2 = printer::Print(*second, PrintOptionsFor(*second));
  if (text2 != text) {
    return absl::InvalidArgumentError(absl::StrCat("printing is not a fixed point: ", FirstDifference(text, text2)));
  }
  return absl::OkStatus();
}

}  // namespace kiln::script
