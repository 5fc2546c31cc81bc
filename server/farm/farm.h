// kilnd's device farm (proto/farm.proto): the registry of kiln-agents and the leases clients hold
// on them. Pure state, no RPC: FarmServiceImpl (farm_service.h) puts it on the wire.
//
// Per key, a waiting request of higher priority is served first, and among equal priorities the
// one that came first (TVM's tracker does the same). An agent serves up to `capacity` leases at a
// time. Time is the injected clock's, so tests can move it. Dead agents and expired leases are
// reaped lazily: by every call that changes or reads the state, and by waiting requests, which wake
// every heartbeat interval / 4.
#ifndef KILN_SERVER_FARM_FARM_H_
#define KILN_SERVER_FARM_FARM_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kiln::server {

struct FarmOptions {
  absl::Duration heartbeat_interval = absl::Seconds(2);
  // An agent not heard from for this long is dropped (about two missed heartbeats).
  absl::Duration heartbeat_timeout = absl::Seconds(5);
  absl::Duration default_lease = absl::Seconds(60);
  absl::Duration max_lease = absl::Hours(1);
};

struct AgentSpec {
  std::string key;
  std::string address;  // HOST:PORT
  std::string device = "cpu";
  std::vector<std::string> capabilities;
  uint32_t capacity = 1;
};

struct AgentState {
  std::string id;
  AgentSpec spec;
  uint32_t leased = 0;
  uint32_t active_sessions = 0;
  absl::Time last_heartbeat;
};

struct Lease {
  std::string id;
  AgentState agent;  // as of the grant or renewal
  absl::Duration duration;
  absl::Time expires;
};

class Farm {
 public:
  explicit Farm(FarmOptions options, std::function<absl::Time()> now = [] { return absl::Now(); });

  const FarmOptions& options() const { return options_; }

  // A new agent id. INVALID_ARGUMENT for an empty key or address.
  absl::StatusOr<std::string> Register(AgentSpec spec);
  // NOT_FOUND if the agent was dropped (it registers again).
  absl::Status Heartbeat(const std::string& agent_id, uint32_t active_sessions);

  // Waits until an agent of `key` is free for this request's turn, or `deadline` (then
  // DEADLINE_EXCEEDED naming the key and how many agents it has). `lease` 0 = the default; it is
  // capped at max_lease.
  absl::StatusOr<Lease> Request(const std::string& key, int32_t priority, absl::Duration lease, absl::Time deadline);
  // NOT_FOUND if the lease expired, was released, or its agent died.
  absl::StatusOr<Lease> Renew(const std::string& lease_id);
  absl::Status Release(const std::string& lease_id);

  // Agents of `key` (every key when empty), by key then id, and waiting requests by key. Reaps first.
  std::vector<AgentState> Agents(const std::string& key);
  std::map<std::string, uint32_t> Waiting() const;

 private:
  struct Waiter {
    std::string key;
    int32_t priority;
    uint64_t seq;
  };
  struct LeaseState {
    std::string agent_id;
    absl::Duration duration;
    absl::Time expires;
  };
  // Drops agents past heartbeat_timeout (with their leases) and expired leases.
  void ReapLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A free agent of the key, or nullptr.
  AgentState* FreeAgent(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True if `w` is the first in line for its key.
  bool FirstInLine(const Waiter& w) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Lease MakeLease(const std::string& id, const LeaseState& l) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NewId(const char* prefix) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const FarmOptions options_;
  const std::function<absl::Time()> now_;
  mutable absl::Mutex mu_;
  absl::CondVar changed_;  // an agent freed up, registered, or a waiter left
  std::map<std::string, AgentState> agents_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, LeaseState> leases_ ABSL_GUARDED_BY(mu_);
  std::vector<Waiter> waiters_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::string id_salt_;  // makes ids unguessable across restarts
};

}  // namespace kiln::server

#endif  // KILN_SERVER_FARM_FARM_H_
