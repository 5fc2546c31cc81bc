// absl::ParseCommandLine for kiln's daemons and tools, whose documented flags are spelled with
// dashes (--cache-dir, --token-file) while abseil flag names are identifiers (cache_dir): each
// `--name[=value]` before a bare `--` is read with its name's dashes as underscores, so both
// spellings work.
#ifndef KILN_SERVER_SERVICE_COMMAND_LINE_H_
#define KILN_SERVER_SERVICE_COMMAND_LINE_H_

#include <string>
#include <vector>

namespace kiln::server {

// Parses the flags (exiting on a bad one, as absl::ParseCommandLine does) and returns the
// positional arguments, program name first.
std::vector<std::string> ParseDashedCommandLine(int argc, char** argv);

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_COMMAND_LINE_H_
