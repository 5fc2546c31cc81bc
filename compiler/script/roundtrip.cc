#include "compiler/script/roundtrip.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"

namespace kiln::script {

namespace {

// The name a lone top-level function is printed under: its own `def` name.
printer::PrinterOptions OptionsFor(const ir::ObjectRef& node, absl::string_view source) {
  (void)source;
  printer::PrinterOptions o;
  if (const auto* f = node.as<ir::BaseFuncNode>()) {
    if (const auto* s = f->attrs.Get(ir::String("global_symbol")).as<ir::StringNode>()) o.func_name = s->value;
  }
  return o;
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

absl::StatusOr<std::string> Format(absl::string_view source, const std::string& filename, const ParseOptions& options) {
  absl::StatusOr<ir::ObjectRef> parsed = ParseScript(source, filename, nullptr, options);
  if (!parsed.ok()) return parsed.status();
  return printer::Print(*parsed, OptionsFor(*parsed, source));
}

absl::Status CheckRoundTrip(absl::string_view source, const std::string& filename, std::string* printed,
                            const ParseOptions& options) {
  ParseInfo info;
  absl::StatusOr<ir::ObjectRef> first = ParseScript(source, filename, nullptr, options, &info);
  if (!first.ok()) return first.status();
  std::string text = printer::Print(*first, OptionsFor(*first, source));
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
  if (!ir::StructuralEqual(*first, *second, false, &path)) {
    return absl::InvalidArgumentError(absl::StrCat("re-parsed IR differs at ", path));
  }
  std::string text2 = printer::Print(*second, OptionsFor(*second, text));
  if (text2 != text) {
    return absl::InvalidArgumentError(absl::StrCat("printing is not a fixed point: ", FirstDifference(text, text2)));
  }
  return absl::OkStatus();
}

}  // namespace kiln::script
