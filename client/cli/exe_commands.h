// Commands on VM executables: `kiln inspect` prints a .kx file (or a module built on the fly) as
// TVM's as_text(), as_python() or stats() would.
#ifndef KILN_CLIENT_CLI_EXE_COMMANDS_H_
#define KILN_CLIENT_CLI_EXE_COMMANDS_H_

#include "client/cli/args.h"

namespace kiln::cli {

int RunInspect(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_EXE_COMMANDS_H_
