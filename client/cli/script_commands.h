// TVMScript commands: `kiln check`, `kiln fmt`, `kiln roundtrip` and `kiln ir`.
#ifndef KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_
#define KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_

#include "client/cli/args.h"

namespace kiln::cli {

int RunCheck(const Args& args);
int RunFmt(const Args& args);
int RunRoundtrip(const Args& args);
int RunIr(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_SCRIPT_COMMANDS_H_
