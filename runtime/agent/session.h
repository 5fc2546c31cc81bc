// kiln-agent's sessions: one VirtualMachine each, with its device, allocator, memory budget and a
// lease. The SessionManager hands sessions out by id to one call at a time per Handle, renewing the
// lease when a call starts and again when it ends; a session with a call in progress never expires,
// so a long time_evaluator outlives any lease. A reaper thread drops sessions whose lease ran out
// with no call in progress (a client that died), which frees the VM and every tensor the session
// owned.
//
// Thread-safe. A Session's VM state is guarded by its own mutex: calls on one session run one at a
// time, calls on different sessions in parallel.
#ifndef KILN_RUNTIME_AGENT_SESSION_H_
#define KILN_RUNTIME_AGENT_SESSION_H_

#include <dlpack/dlpack.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/agent/call_recorder.h"
#include "runtime/agent/tensor_wire.h"
#include "runtime/vm/allocator.h"
#include "runtime/vm/vm.h"

namespace kiln::agent {

using Clock = std::chrono::steady_clock;

struct SessionConfig {
  DLDevice device{kDLCPU, 0};
  vm::AllocatorKind allocator = vm::AllocatorKind::kPooled;
  uint64_t memory_limit = 0;  // 0: unlimited
  Clock::duration lease = std::chrono::seconds(60);
  int num_threads = 0;
};

struct Session {
  Session(const SessionConfig& config, std::shared_ptr<MemoryCounter> agent_memory)
      : config(config), budget(config.memory_limit, std::move(agent_memory)) {}

  const SessionConfig config;
  MemoryBudget budget;  // thread-safe itself

  absl::Mutex mu;
  std::unique_ptr<vm::VirtualMachine> vm ABSL_GUARDED_BY(mu);  // null before LoadExecutable
  // Functions whose last set_input stream failed part-way: their inputs hold partial data, so
  // invoke_stateful refuses them until a set_input completes.
  std::set<std::string> incomplete_inputs ABSL_GUARDED_BY(mu);
  // SetInstrument's recorder, installed in `vm` (and in the VM of every later LoadExecutable);
  // null when the instrument is off.
  std::shared_ptr<CallRecorder> instrument ABSL_GUARDED_BY(mu);
};

struct SessionManagerOptions {
  Clock::duration default_lease = std::chrono::seconds(60);
  Clock::duration max_lease = std::chrono::hours(1);
  // Applied when a session asks for 0 (or more than this); 0: unlimited.
  uint64_t max_memory_limit = 0;
  int max_sessions = 256;
  // How often the reaper looks for expired sessions.
  Clock::duration reap_interval = std::chrono::milliseconds(100);
};

class SessionManager {
 public:
  // A session in use by one call: keeps it alive and unexpired until destroyed.
  class Handle {
   public:
    Handle(Handle&& other) noexcept;
    Handle& operator=(Handle&&) = delete;
    Handle(const Handle&) = delete;
    ~Handle();
    Session& operator*() const { return *session_; }
    Session* operator->() const { return session_.get(); }

   private:
    friend class SessionManager;
    Handle(SessionManager* manager, std::string id, std::shared_ptr<Session> session)
        : manager_(manager), id_(std::move(id)), session_(std::move(session)) {}
    SessionManager* manager_;
    std::string id_;
    std::shared_ptr<Session> session_;
  };

  explicit SessionManager(SessionManagerOptions options = {});
  ~SessionManager();  // stops the reaper and drops every session
  SessionManager(const SessionManager&) = delete;
  SessionManager& operator=(const SessionManager&) = delete;

  // A new session: the lease and memory limit are clamped to the manager's (0 takes its default).
  // RESOURCE_EXHAUSTED at max_sessions. Returns the id (128 random bits, hex).
  absl::StatusOr<std::string> Open(SessionConfig config);
  // NOT_FOUND for an unknown, closed or expired id.
  absl::StatusOr<Handle> Acquire(const std::string& id);
  // Renews the lease; returns its length.
  absl::StatusOr<Clock::duration> KeepAlive(const std::string& id);
  absl::Status Close(const std::string& id);

  size_t size() const;
  // The config Open gave the session (lease and limit after clamping).
  absl::StatusOr<SessionConfig> ConfigOf(const std::string& id) const;
  // Bytes of tensors all sessions' requests hold (what a reaped session gives back).
  int64_t memory_in_use() const { return agent_memory_->bytes.load(); }

 private:
  struct Entry {
    std::shared_ptr<Session> session;
    Clock::time_point deadline;
    int active = 0;  // calls in progress
  };
  void Release(const std::string& id);
  void ReapLoop();

  const SessionManagerOptions options_;
  std::shared_ptr<MemoryCounter> agent_memory_;
  mutable absl::Mutex mu_;
  std::unordered_map<std::string, Entry> sessions_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread reaper_;
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_SESSION_H_
