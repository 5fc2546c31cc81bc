#include "compiler/script/load.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/serialize.h"
#include "runtime/read_file.h"

namespace kiln::script {
namespace {

constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) { return runtime::ReadRegularFile(path); }

absl::StatusOr<ir::ObjectRef> ParseFile(const std::string& path, const ParseOptions& options,
                                        std::string* diagnostics) {
  absl::StatusOr<std::string> src = ReadFile(path);
  if (!src.ok()) return src.status();
  // Python skips a UTF-8 byte order mark at the start of a source file; so does kiln.
  if (absl::StartsWith(*src, kUtf8Bom)) src->erase(0, kUtf8Bom.size());
  ir::DiagnosticList diags;
  absl::StatusOr<ir::ObjectRef> r = ParseScript(*src, path, &diags, options);
  if (diagnostics != nullptr) *diagnostics = ir::RenderAll(diags, *src);
  if (!r.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": invalid TVMScript"));
  return r;
}

absl::StatusOr<ir::IRModule> LoadModule(const std::string& path, const std::string& name, std::string* diagnostics) {
  ParseOptions o;
  o.name = name;
  return LoadModule(path, o, diagnostics);
}

absl::StatusOr<ir::IRModule> LoadModule(const std::string& path, const ParseOptions& options,
                                        std::string* diagnostics) {
  absl::StatusOr<std::string> data = ReadFile(path);
  if (!data.ok()) return data.status();
  if (ir::LooksLikeSerializedIR(*data) || absl::EndsWith(path, ".json")) {
    absl::StatusOr<ir::ObjectRef> node =
        ir::LooksLikeSerializedIR(*data) ? ir::Deserialize(*data) : ir::DeserializeFromJson(*data);
    if (!node.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", node.status().message()));
    return AsModule(*node);
  }
  absl::StatusOr<ir::ObjectRef> r = ParseFile(path, options, diagnostics);
  if (!r.ok()) return r.status();
  return AsModule(*r);
}

}  // namespace kiln::script
