#include "compiler/script/load.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/serialize.h"

namespace kiln::script {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return absl::FailedPreconditionError(absl::StrCat(path, " is a directory"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  return ss.str();
}

absl::StatusOr<ir::ObjectRef> ParseFile(const std::string& path, const ParseOptions& options,
                                        std::string* diagnostics) {
  absl::StatusOr<std::string> src = ReadFile(path);
  if (!src.ok()) return src.status();
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
