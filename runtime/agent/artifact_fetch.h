// Downloading an artifact from kilnd's CompileService.FetchArtifact (proto/compile.proto), resumed
// from the bytes already received when the stream breaks: the one implementation kiln-agent's
// ExecutableStore and the C++ client (client/cpp) share.
//
// A stream that breaks with UNAVAILABLE, or ends before total_size, is called again from the offset
// reached; a call that brought bytes does not count against the attempts, only calls in a row that
// brought none (so a large artifact over a flaky link still arrives). Any other error ends the
// download at once with the server's status. Chunks that do not continue the bytes received, or go
// past total_size, are DATA_LOSS; an artifact over max_bytes is INVALID_ARGUMENT before anything is
// allocated for it. The caller checks the bytes against the digest (each has its own error).
#ifndef KILN_RUNTIME_AGENT_ARTIFACT_FETCH_H_
#define KILN_RUNTIME_AGENT_ARTIFACT_FETCH_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "proto/compile.grpc.pb.h"

namespace kiln::agent {

struct ArtifactFetchOptions {
  // Largest chunk to ask for; 0 = the server's default.
  uint32_t chunk_bytes = 0;
  uint64_t max_bytes = std::numeric_limits<uint64_t>::max();
  // Calls in a row without progress before giving up (at least 1).
  int max_attempts = 3;
  // Sets up each call's context: deadline, authorization. Required.
  std::function<void(grpc::ClientContext*)> prepare;
  // The wait before the k-th retry (1-based) after `failure`; none when unset.
  std::function<absl::Duration(int retry, const grpc::Status& failure)> backoff;
  // The final failure as absl::Status; unset: the same code and message.
  std::function<absl::Status(const grpc::Status&)> to_status;
};

// The artifact's bytes (exactly total_size of them).
absl::StatusOr<std::string> FetchArtifact(kiln::v1::CompileService::StubInterface& stub, const std::string& digest,
                                          const ArtifactFetchOptions& options);

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_ARTIFACT_FETCH_H_
