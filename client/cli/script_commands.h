// TVMScript commands: `kiln check`, `kiln fmt`, `kiln roundtrip` and `kiln ir`.
#ifndef KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_
#define KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_

#include <string>

#include "absl/status/statusor.h"
#include "client/cli/args.h"
#include "compiler/ir/ir.h"

namespace kiln::cli {

int RunCheck(const Args& args);
int RunFmt(const Args& args);
int RunRoundtrip(const Args& args);
int RunIr(const Args& args);

// Reads FILE (TVMScript, or serialized IR in binary or JSON form) into a module, printing
// diagnostics to stderr. Shared with `kiln build` and `kiln run`.
absl::StatusOr<ir::IRModule> LoadModule(const std::string& path, const std::string& name);

absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_
