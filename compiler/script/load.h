// Reading a program from a file, as every tool that takes one does (the `kiln` commands, tests):
// TVMScript source, or a serialized IRModule in its binary form or JSON view (compiler/ir/
// serialize.h). Diagnostics are returned as rendered text (FILE:LINE:COL: error: ... with the
// source excerpt, warnings too) for the caller to show; nothing is printed here.
#ifndef KILN_COMPILER_SCRIPT_LOAD_H_
#define KILN_COMPILER_SCRIPT_LOAD_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/script/script.h"

namespace kiln::script {

// The bytes of `path`, read with runtime::ReadRegularFile's size bound: NOT_FOUND when it cannot
// be opened, FAILED_PRECONDITION for a directory ("is a directory") or anything but a regular file
// ("is not a regular file"), RESOURCE_EXHAUSTED when too large, DATA_LOSS on a read error;
// messages name the path.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Parses the TVMScript file `path` (ParseScript with `options`). `diagnostics` (optional)
// receives the rendered diagnostics, warnings included; a parse error is INVALID_ARGUMENT
// "PATH: invalid TVMScript" (the details are in the diagnostics). A UTF-8 byte order mark at the
// start is skipped, as Python skips it.
absl::StatusOr<ir::ObjectRef> ParseFile(const std::string& path, const ParseOptions& options,
                                        std::string* diagnostics = nullptr);

// The module in `path`: serialized IR (binary, or JSON when the name ends in .json) is
// deserialized, anything else parsed as TVMScript (`name` picks one of several top-level
// definitions). A lone function becomes a module holding it.
absl::StatusOr<ir::IRModule> LoadModule(const std::string& path, const std::string& name,
                                        std::string* diagnostics = nullptr);
// The same with every parse option (`options.name` picks the definition; `defines` binds template
// values); serialized IR ignores them.
absl::StatusOr<ir::IRModule> LoadModule(const std::string& path, const ParseOptions& options,
                                        std::string* diagnostics = nullptr);

}  // namespace kiln::script

#endif  // KILN_COMPILER_SCRIPT_LOAD_H_
