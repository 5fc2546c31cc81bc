#include "runtime/agent/session.h"

#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace kiln::agent {
namespace {

std::string NewSessionId() {
  std::random_device rd;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 4; ++i) {
    uint32_t word = rd();
    for (int j = 0; j < 8; ++j, word >>= 4) id.push_back(kDigits[word & 15]);
  }
  return id;
}

absl::Status UnknownSession(const std::string& id) {
  return absl::NotFoundError(
      absl::StrCat("no session \"", id.substr(0, 64), "\" (never opened, closed, or its lease expired)"));
}

}  // namespace

SessionManager::Handle::Handle(Handle&& other) noexcept
    : manager_(other.manager_), id_(std::move(other.id_)), session_(std::move(other.session_)) {
  other.manager_ = nullptr;
}

SessionManager::Handle::~Handle() {
  if (manager_ != nullptr) manager_->Release(id_);
}

SessionManager::SessionManager(SessionManagerOptions options)
    : options_(options), agent_memory_(std::make_shared<MemoryCounter>()) {
  reaper_ = std::thread([this] { ReapLoop(); });
}

SessionManager::~SessionManager() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  reaper_.join();
  std::unordered_map<std::string, Entry> dropped;
  {
    absl::MutexLock lock(&mu_);
    dropped.swap(sessions_);
  }
}

absl::StatusOr<std::string> SessionManager::Open(SessionConfig config) {
  if (config.lease <= Clock::duration::zero()) config.lease = options_.default_lease;
  if (config.lease > options_.max_lease) config.lease = options_.max_lease;
  if (options_.max_memory_limit != 0 && (config.memory_limit == 0 || config.memory_limit > options_.max_memory_limit)) {
    config.memory_limit = options_.max_memory_limit;
  }
  auto session = std::make_shared<Session>(config, agent_memory_);
  absl::MutexLock lock(&mu_);
  if (static_cast<int>(sessions_.size()) >= options_.max_sessions) {
    return absl::ResourceExhaustedError(absl::StrCat("the agent already serves its maximum of ", options_.max_sessions,
                                                     " sessions; close one or retry later"));
  }
  std::string id = NewSessionId();
  while (sessions_.count(id)) id = NewSessionId();
  sessions_[id] = Entry{std::move(session), Clock::now() + config.lease, 0};
  return id;
}

absl::StatusOr<SessionManager::Handle> SessionManager::Acquire(const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return UnknownSession(id);
  ++it->second.active;
  it->second.deadline = Clock::now() + it->second.session->config.lease;
  return Handle(this, id, it->second.session);
}

void SessionManager::Release(const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;  // closed while the call ran
  --it->second.active;
  it->second.deadline = Clock::now() + it->second.session->config.lease;
}

absl::StatusOr<Clock::duration> SessionManager::KeepAlive(const std::string& id) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return UnknownSession(id);
  it->second.deadline = Clock::now() + it->second.session->config.lease;
  return it->second.session->config.lease;
}

absl::Status SessionManager::Close(const std::string& id) {
  std::shared_ptr<Session> dropped;  // freed after the lock is released
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return UnknownSession(id);
  dropped = std::move(it->second.session);
  sessions_.erase(it);
  return absl::OkStatus();
}

size_t SessionManager::size() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

absl::StatusOr<SessionConfig> SessionManager::ConfigOf(const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return UnknownSession(id);
  return it->second.session->config;
}

void SessionManager::ReapLoop() {
  const absl::Duration interval = absl::FromChrono(options_.reap_interval);
  for (;;) {
    std::vector<std::shared_ptr<Session>> expired;  // destroyed outside the lock
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stop_), interval)) return;
      Clock::time_point now = Clock::now();
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second.active == 0 && it->second.deadline < now) {
          expired.push_back(std::move(it->second.session));
          it = sessions_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
}

}  // namespace kiln::agent
