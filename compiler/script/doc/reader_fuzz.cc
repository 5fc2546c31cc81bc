// libFuzzer-style target for the TVMScript Doc reader: any input must either be rejected with a
// Status or read, written and read again to an equal tree whose text is a fixed point. Crashes,
// sanitizer reports and broken round trips are the bugs this finds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "compiler/script/doc/compare.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/doc/writer.h"

namespace {

[[noreturn]] void Die(const char* what, const std::string& text) {
  std::fprintf(stderr, "reader_fuzz: %s\n--- written text:\n%s\n", what, text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace doc = kiln::script::doc;
  absl::string_view source(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<doc::Module> first = doc::Read(source, "fuzz.py");
  if (!first.ok()) return 0;
  std::string text = doc::Write(*first);
  // The writer adds parentheses where the grammar needs them (a tuple value, `(1).real`), so
  // text read near the nesting limit may come back a few levels deeper.
  doc::ReadOptions slack;
  slack.max_depth += 8;
  absl::StatusOr<doc::Module> second = doc::Read(text, "written.py", nullptr, slack);
  if (!second.ok()) Die(std::string(second.status().message()).c_str(), text);
  std::string why;
  if (!doc::StructurallyEqual(*first, *second, &why)) Die(why.c_str(), text);
  if (doc::Write(*second) != text) Die("writing is not a fixed point", text);
  return 0;
}
