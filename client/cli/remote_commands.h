// `kiln build|check|fmt FILE --remote HOST:PORT`: the same commands answered by a kilnd
// (client/cpp's kiln::Client) instead of the local compiler. The file is sent as it is (TVMScript
// text, or the serialized IR `kiln ir --to bin` writes); the server never opens a path.
// Shared options: --remote HOST:PORT, --token-file T (bearer token, first line), --tls-ca C (TLS;
// C verifies the server), --tls-cert/--tls-key (mutual TLS).
#ifndef KILN_CLIENT_CLI_REMOTE_COMMANDS_H_
#define KILN_CLIENT_CLI_REMOTE_COMMANDS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/cli/args.h"
#include "client/cpp/remote_device.h"

namespace kiln::cli {

// `kiln run|bench ... --agent HOST:PORT` (a kiln-agent given by address) or `--remote HOST:PORT
// --farm KEY [--priority P]` (an agent of KEY leased from that kilnd's farm). The agent's token:
// --agent-token-file T. With --remote the executable is compiled by kilnd and the agent fetches it
// by digest; without, it is built here and uploaded.
bool WantsAgent(const Args& args);
// A usage error in the combination of those options ("" when there is none).
std::string CheckAgentOptions(const Args& args);

// The executable kilnd compiles from FILE (sent as it is, with --target and --entry).
struct RemoteExecutable {
  std::string bytes;
  std::string digest;
};
absl::StatusOr<RemoteExecutable> CompileOnKilnd(const Args& args, const std::string& path);

// The session that runs it: on --agent, or leased through --farm (`threads` > 0 sets the session's
// kernel threads). Errors name the agent or kilnd that failed.
absl::StatusOr<std::unique_ptr<RemoteDevice>> OpenAgent(const Args& args, int threads);

// Writes the executable kilnd returns (byte-identical to a local `kiln build` of the file) and a
// summary line naming the cache tier that answered.
int RunRemoteBuild(const Args& args);
// Diagnostics as the server reports them, rendered as the local `kiln check` prints them.
int RunRemoteCheck(const Args& args);
// The server's canonical text, to stdout or (-i) back into FILE.
int RunRemoteFmt(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_REMOTE_COMMANDS_H_
