// A kiln-agent's membership in kilnd's device farm (proto/farm.proto): registers the agent, then
// heartbeats from a thread of its own until destroyed. When kilnd forgets the agent (a kilnd restart,
// or heartbeats lost for longer than its timeout) the next heartbeat gets NOT_FOUND and the agent
// registers again; while kilnd is unreachable it retries with capped exponential backoff, so an
// agent may start before kilnd. Destroying it stops the heartbeats: kilnd drops the agent within
// its heartbeat timeout.
#ifndef KILN_RUNTIME_AGENT_FARM_REGISTRATION_H_
#define KILN_RUNTIME_AGENT_FARM_REGISTRATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/farm.grpc.pb.h"

namespace kiln::agent {

struct FarmRegistrationOptions {
  std::string key;      // what clients lease the agent by ("cpu", "h100")
  std::string address;  // HOST:PORT clients reach the agent at ("0.0.0.0:P": kilnd uses our IP)
  std::string device = "cpu";
  std::vector<std::string> capabilities;
  uint32_t capacity = 1;
  std::string token;  // bearer token with the `agent` permission; empty: none
  absl::Duration max_backoff = absl::Seconds(10);
};

class FarmRegistration {
 public:
  // `active_sessions` is sampled at each heartbeat. Returns at once; registration happens on the
  // heartbeat thread.
  FarmRegistration(std::shared_ptr<grpc::Channel> kilnd, FarmRegistrationOptions options,
                   std::function<uint32_t()> active_sessions);
  ~FarmRegistration();
  FarmRegistration(const FarmRegistration&) = delete;
  FarmRegistration& operator=(const FarmRegistration&) = delete;

  // The id kilnd gave (empty until registered); a re-registration changes it.
  std::string agent_id() const;
  // Registrations so far (1 after the first; more after kilnd forgot the agent).
  int registrations() const;

 private:
  void Run();
  // One RPC with the token and a deadline.
  std::unique_ptr<grpc::ClientContext> Context(absl::Duration timeout) const;

  const std::unique_ptr<v1::FarmService::Stub> stub_;
  const FarmRegistrationOptions options_;
  const std::function<uint32_t()> active_sessions_;
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::string agent_id_ ABSL_GUARDED_BY(mu_);
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_FARM_REGISTRATION_H_
