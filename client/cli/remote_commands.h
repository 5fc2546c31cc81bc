// `kiln build|check|fmt FILE --remote HOST:PORT`: the same commands answered by a kilnd
// (client/cpp's kiln::Client) instead of the local compiler. The file is sent as it is (TVMScript
// text, or the serialized IR `kiln ir --to bin` writes); the server never opens a path.
// Shared options: --remote HOST:PORT, --token-file T (bearer token, first line), --tls-ca C (TLS;
// C verifies the server), --tls-cert/--tls-key (mutual TLS).
#ifndef KILN_CLIENT_CLI_REMOTE_COMMANDS_H_
#define KILN_CLIENT_CLI_REMOTE_COMMANDS_H_

#include "client/cli/args.h"

namespace kiln::cli {

// Writes the executable kilnd returns (byte-identical to a local `kiln build` of the file) and a
// summary line naming the cache tier that answered.
int RunRemoteBuild(const Args& args);
// Diagnostics as the server reports them, rendered as the local `kiln check` prints them.
int RunRemoteCheck(const Args& args);
// The server's canonical text, to stdout or (-i) back into FILE.
int RunRemoteFmt(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_REMOTE_COMMANDS_H_
