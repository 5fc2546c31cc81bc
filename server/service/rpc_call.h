// What every kilnd service shares (CompileService, FarmService): bearer-token auth, the drain
// switch, the in-flight count, per-method metrics and the one-JSON-line-per-request log.
#ifndef KILN_SERVER_SERVICE_RPC_CALL_H_
#define KILN_SERVER_SERVICE_RPC_CALL_H_

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "proto/compile.pb.h"
#include "server/service/auth.h"
#include "server/service/metrics.h"

namespace kiln::server {

class ServiceState {
 public:
  // `tokens` must outlive the state.
  ServiceState(const TokenTable* tokens, bool log_requests) : tokens_(tokens), log_requests_(log_requests) {}

  // From now on new calls get UNAVAILABLE. Returns at once; in_flight() tells when they are done.
  void Drain() { draining_.store(true); }
  bool draining() const { return draining_.load(); }
  int in_flight() const { return in_flight_.load(); }
  absl::Time started() const { return started_; }

  // kiln_requests_total, kiln_request_seconds, in-flight, draining and uptime.
  void RenderMetrics(std::string* out) const;

 private:
  friend class RpcCall;
  const TokenTable* const tokens_;
  const bool log_requests_;
  const absl::Time started_ = absl::Now();
  std::atomic<bool> draining_{false};
  std::atomic<int> in_flight_{0};
  CounterFamily requests_{"kiln_requests_total", "RPCs answered, by method and status code.", {"method", "code"}};
  HistogramFamily request_seconds_{"kiln_request_seconds",
                                   "RPC latency in seconds, by method.",
                                   {"method"},
                                   {0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30}};
};

// One RPC: refuses it while draining or without the permission, counts it in flight, and on
// Finish records its metrics and log line.
class RpcCall {
 public:
  RpcCall(ServiceState* state, grpc::ServerContext* ctx, const char* method, Permission needed);
  ~RpcCall() { --state_->in_flight_; }
  RpcCall(const RpcCall&) = delete;
  RpcCall& operator=(const RpcCall&) = delete;

  // Non-OK: answer with Finish(refusal()) and do nothing else.
  const absl::Status& refusal() const { return refusal_; }
  // The token's name ("anonymous" without auth).
  const std::string& client() const { return client_; }
  grpc::ServerContext* ctx() const { return ctx_; }
  // An extra `"key":"value"` field for the log line.
  void Note(absl::string_view key, absl::string_view value);
  // No log line for this call (it still counts in the metrics): for frequent calls like heartbeats.
  void Quiet() { quiet_ = true; }

  grpc::Status Finish(const absl::Status& status, const v1::Diagnostics& diagnostics = {});

 private:
  ServiceState* const state_;
  grpc::ServerContext* const ctx_;
  const char* const method_;
  const absl::Time start_;
  absl::Status refusal_;
  std::string client_ = "-";
  std::string note_;
  bool quiet_ = false;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_RPC_CALL_H_
