// The `kiln` command table. A command is a name, a one-line summary, a usage text, and a function
// taking the arguments after the command name. To add one: implement `int RunX(const Args&)` in a
// library, add a row to kCommands in main.cc and a dep in BUILD.
#ifndef KILN_CLIENT_CLI_COMMAND_H_
#define KILN_CLIENT_CLI_COMMAND_H_

#include "client/cli/args.h"

namespace kiln::cli {

struct Command {
  const char* name;
  const char* summary;
  const char* usage;   // full help text for `kiln help NAME` / `kiln NAME --help`
  const char* valued;  // space-separated options that take a value, e.g. "--target --input -o"
  const char* flags;   // space-separated boolean options, e.g. "--summary -i"
  int (*run)(const Args& args);
};

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_COMMAND_H_
