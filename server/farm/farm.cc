#include "server/farm/farm.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kiln::server {

Farm::Farm(FarmOptions options, std::function<absl::Time()> now) : options_(options), now_(std::move(now)) {
  std::random_device rd;
  id_salt_ = absl::StrFormat("%08x%08x", rd(), rd());
}

std::string Farm::NewId(const char* prefix) { return absl::StrCat(prefix, "-", id_salt_, "-", ++next_id_); }

absl::StatusOr<std::string> Farm::Register(AgentSpec spec) {
  if (spec.key.empty()) return absl::InvalidArgumentError("an agent needs a key (e.g. \"cpu\")");
  if (spec.address.empty()) return absl::InvalidArgumentError("an agent needs the address clients reach it at");
  if (spec.capacity == 0) spec.capacity = 1;
  absl::MutexLock lock(&mu_);
  ReapLocked();
  std::string id = NewId("agent");
  AgentState& a = agents_[id];
  a.id = id;
  a.spec = std::move(spec);
  a.last_heartbeat = now_();
  changed_.SignalAll();
  return id;
}

absl::Status Farm::Heartbeat(const std::string& agent_id, uint32_t active_sessions) {
  absl::MutexLock lock(&mu_);
  ReapLocked();
  auto it = agents_.find(agent_id);
  if (it == agents_.end()) return absl::NotFoundError(absl::StrCat("unknown agent ", agent_id, "; register again"));
  it->second.last_heartbeat = now_();
  it->second.active_sessions = active_sessions;
  return absl::OkStatus();
}

AgentState* Farm::FreeAgent(const std::string& key) {
  AgentState* best = nullptr;
  for (auto& [id, a] : agents_) {
    // The least loaded agent of the key, so leases spread over the farm.
    if (a.spec.key == key && a.leased < a.spec.capacity && (best == nullptr || a.leased < best->leased)) best = &a;
  }
  return best;
}

bool Farm::FirstInLine(const Waiter& w) const {
  for (const Waiter& o : waiters_) {
    if (o.key != w.key || o.seq == w.seq) continue;
    if (o.priority > w.priority || (o.priority == w.priority && o.seq < w.seq)) return false;
  }
  return true;
}

Lease Farm::MakeLease(const std::string& id, const LeaseState& l) const {
  return Lease{id, agents_.at(l.agent_id), l.duration, l.expires};
}

absl::StatusOr<Lease> Farm::Request(const std::string& key, int32_t priority, absl::Duration lease,
                                    absl::Time deadline) {
  if (key.empty()) return absl::InvalidArgumentError("request an agent by key (e.g. \"cpu\")");
  if (lease <= absl::ZeroDuration()) lease = options_.default_lease;
  lease = std::min(lease, options_.max_lease);
  absl::MutexLock lock(&mu_);
  Waiter me{key, priority, ++next_seq_};
  waiters_.push_back(me);
  auto leave = [&] {
    waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), [&](const Waiter& w) { return w.seq == me.seq; }),
                   waiters_.end());
    changed_.SignalAll();  // the next in line may go now
  };
  while (true) {
    ReapLocked();
    AgentState* agent = FirstInLine(me) ? FreeAgent(key) : nullptr;
    if (agent != nullptr) {
      ++agent->leased;
      std::string id = NewId("lease");
      LeaseState& l = leases_[id];
      l = LeaseState{agent->id, lease, now_() + lease};
      leave();
      return MakeLease(id, l);
    }
    absl::Time now = now_();
    if (now >= deadline) {
      size_t agents = 0;
      for (const auto& [id, a] : agents_) agents += a.spec.key == key;
      leave();
      return absl::DeadlineExceededError(
          absl::StrCat("no agent with key \"", key, "\" became free in time (", agents, " registered)"));
    }
    // Wake at least every heartbeat interval / 4 to reap dead agents and expired leases.
    absl::Duration wait = std::min(deadline - now, options_.heartbeat_interval / 4);
    changed_.WaitWithTimeout(&mu_, wait);
  }
}

absl::StatusOr<Lease> Farm::Renew(const std::string& lease_id) {
  absl::MutexLock lock(&mu_);
  ReapLocked();
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) {
    return absl::NotFoundError(absl::StrCat("lease ", lease_id, " is gone (expired, released, or its agent died)"));
  }
  it->second.expires = now_() + it->second.duration;
  return MakeLease(it->first, it->second);
}

absl::Status Farm::Release(const std::string& lease_id) {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) return absl::NotFoundError(absl::StrCat("lease ", lease_id, " is gone"));
  auto agent = agents_.find(it->second.agent_id);
  if (agent != agents_.end()) --agent->second.leased;
  leases_.erase(it);
  changed_.SignalAll();
  return absl::OkStatus();
}

void Farm::ReapLocked() {
  absl::Time now = now_();
  bool freed = false;
  for (auto it = agents_.begin(); it != agents_.end();) {
    if (now - it->second.last_heartbeat > options_.heartbeat_timeout) {
      it = agents_.erase(it);
      freed = true;
    } else {
      ++it;
    }
  }
  for (auto it = leases_.begin(); it != leases_.end();) {
    auto agent = agents_.find(it->second.agent_id);
    if (agent == agents_.end() || now >= it->second.expires) {
      if (agent != agents_.end()) --agent->second.leased;
      it = leases_.erase(it);
      freed = true;
    } else {
      ++it;
    }
  }
  if (freed) changed_.SignalAll();
}

std::vector<AgentState> Farm::Agents(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ReapLocked();
  std::vector<AgentState> out;
  for (const auto& [id, a] : agents_) {
    if (key.empty() || a.spec.key == key) out.push_back(a);
  }
  std::stable_sort(out.begin(), out.end(), [](const AgentState& a, const AgentState& b) { return a.spec.key < b.spec.key; });
  return out;
}

std::map<std::string, uint32_t> Farm::Waiting() const {
  absl::MutexLock lock(&mu_);
  std::map<std::string, uint32_t> out;
  for (const Waiter& w : waiters_) ++out[w.key];
  return out;
}

}  // namespace kiln::server
