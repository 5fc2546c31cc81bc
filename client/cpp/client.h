// kiln::Client: a small C++ client of kilnd's CompileService (proto/compile.proto).
//
// One Client holds one channel and is safe to share between threads. Every call carries the
// bearer token (if any) and a deadline; calls that fail with UNAVAILABLE (server draining, or not
// reachable) are retried with exponential backoff and jitter, up to max_attempts. No other code is
// retried: INVALID_ARGUMENT, RESOURCE_EXHAUSTED and the rest are answers the caller must see.
//
// Errors are absl::Status with the server's code and message. Every detail of the server's
// RpcStatus (the grpc-status-details-bin trailer, wire-compatible with google.rpc.Status) is kept
// as a payload of the absl::Status keyed by its type URL: DiagnosticsOf() decodes the
// kiln.v1.Diagnostics of an INVALID_ARGUMENT, HasRetryInfo() finds the retry info of a
// RESOURCE_EXHAUSTED.
#ifndef KILN_CLIENT_CPP_CLIENT_H_
#define KILN_CLIENT_CPP_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "grpcpp/channel.h"
#include "proto/compile.grpc.pb.h"
#include "proto/compile.pb.h"

namespace kiln {

// Retries of UNAVAILABLE: attempt k (k >= 1 is the k-th retry) waits
// min(max_backoff, initial_backoff * multiplier^(k-1)), scaled by a random factor in
// [1 - jitter, 1 + jitter] so that clients that failed together do not retry together. When the
// server's answer asks for a longer wait (RetryInfo, e.g. while it drains), the client waits that
// long instead, up to max_backoff.
struct RetryPolicy {
  int max_attempts = 4;  // the first try included; 1 = no retries
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  double multiplier = 2.0;
  double jitter = 0.2;  // in [0, 1]
};

// The wait before retry `retry` (1-based) given a uniform random `u` in [0, 1).
absl::Duration BackoffDelay(const RetryPolicy& policy, int retry, double u);

struct ClientOptions {
  std::string address;  // "host:port"
  // Per call (each attempt, and each FetchArtifact stream).
  absl::Duration deadline = absl::Seconds(60);
  // Sent as `authorization: Bearer <token>`; empty = none.
  std::string token;
  // TLS when root_cert_path is set (the PEM file of the CA that signed the server's certificate);
  // mutual TLS when client_cert_path and client_key_path are set too.
  std::string root_cert_path;
  std::string client_cert_path;
  std::string client_key_path;
  RetryPolicy retry;
  // Largest FetchArtifact chunk to ask for; 0 = the server's default.
  uint32_t fetch_chunk_bytes = 0;
};

// The answer of Compile: the server's response (its `executable` field cleared) and the
// executable's bytes, checked against the response's size and digest.
struct CompileResult {
  v1::CompileResponse response;
  std::string executable;
  bool fetched = false;  // the bytes came through FetchArtifact, not inline
};

class Client {
 public:
  // Reads the TLS files, if any, and creates the channel (connection happens on the first call).
  static absl::StatusOr<std::unique_ptr<Client>> Create(const ClientOptions& options);

  // Compile, then FetchArtifact when the executable did not come inline.
  absl::StatusOr<CompileResult> Compile(const v1::CompileRequest& request) const;
  // The executable with hex SHA-256 `digest`: FetchArtifact, resumed from the bytes received when
  // the stream breaks with UNAVAILABLE (or ends early); it gives up after max_attempts calls in a
  // row that brought no bytes. The result is checked against total_size and the digest (DATA_LOSS).
  absl::StatusOr<std::string> Fetch(const std::string& digest) const;
  absl::StatusOr<v1::CheckResponse> Check(const v1::CheckRequest& request) const;
  absl::StatusOr<v1::FormatResponse> Format(const v1::FormatRequest& request) const;
  absl::StatusOr<v1::StatResponse> Stat() const;
  absl::StatusOr<v1::ListTargetsResponse> ListTargets() const;

  const ClientOptions& options() const { return options_; }
  // The channel to kilnd (with its credentials): kilnd's other services (the farm) share it.
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  Client(ClientOptions options, std::shared_ptr<grpc::Channel> channel)
      : options_(std::move(options)), channel_(channel), stub_(v1::CompileService::NewStub(channel)) {}

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CompileService::Stub> stub_;
};

// A grpc::Status as absl::Status: same code and message, each RpcStatus detail as a payload.
absl::Status FromGrpcStatus(const grpc::Status& status);

// The diagnostics of an INVALID_ARGUMENT from the server (empty when it carries none).
std::vector<v1::Diagnostic> DiagnosticsOf(const absl::Status& status);

// Whether a status carries google.rpc.RetryInfo (what a RESOURCE_EXHAUSTED from a full queue has).
bool HasRetryInfo(const absl::Status& status);
// The wait the server asks for in that RetryInfo (kiln.v1.RetryInfo, wire-compatible); nullopt
// when there is none or it does not parse.
absl::optional<absl::Duration> RetryDelayOf(const absl::Status& status);

// "file:line:col: error: message\n" and the excerpt (the source line and a caret), as the local
// CLI prints a diagnostic. A diagnostic without a line has no location prefix.
std::string RenderDiagnostic(const v1::Diagnostic& d);

// How the CLI reports a failed remote call: the rendered diagnostics when the status carries some,
// else "<code>: <message>\n".
std::string RenderError(const absl::Status& status);

// "memory", "disk", "redis" or "miss".
const char* CacheTierName(v1::CacheTierHit tier);

}  // namespace kiln

#endif  // KILN_CLIENT_CPP_CLIENT_H_
