// `kiln version`: prints the kiln version and the version of the libLLVM it runs with.
#ifndef KILN_CLIENT_CLI_VERSION_H_
#define KILN_CLIENT_CLI_VERSION_H_

#include "client/cli/args.h"

namespace kiln::cli {
int RunVersion(const Args& args);
}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_VERSION_H_
