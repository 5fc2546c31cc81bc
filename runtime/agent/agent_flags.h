// kiln-agent's command line:
//   kiln-agent --listen HOST:PORT [--port-file F] [--kilnd HOST:PORT] --key KEY [--device cpu]
//              [--token-file T] [--kilnd-token-file T] [--cache-dir D] [--max-sessions N]
//              [--memory-limit BYTES] [--max-lease-seconds S] [--capacity N]
// Flags take their value as the next argument or after '='. Token files hold the token (surrounding
// whitespace ignored).
#ifndef KILN_RUNTIME_AGENT_AGENT_FLAGS_H_
#define KILN_RUNTIME_AGENT_AGENT_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/agent/agent_server.h"

namespace kiln::agent {

extern const char kAgentUsage[];

// INVALID_ARGUMENT naming the flag for an unknown flag, a missing or malformed value, or a token
// file that cannot be read or is empty. `args` excludes the program name.
absl::StatusOr<AgentConfig> ParseAgentFlags(const std::vector<std::string>& args);

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_AGENT_FLAGS_H_
