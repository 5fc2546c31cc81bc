#include "server/pool/worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "proto/worker.pb.h"
#include "server/pool/worker_protocol.h"

extern char** environ;

namespace kiln::server {
namespace {

// How long a worker whose stream ended may take to finish exiting before it is killed.
constexpr absl::Duration kExitGrace = absl::Seconds(2);

std::string Errno(const char* what, int err) { return absl::StrCat(what, ": ", strerror(err)); }

// Starts `argv` with `fd` as its stdin and stdout, in a new process group, with no blocked signals
// and default dispositions (the daemon may block or catch signals the worker's limits rely on,
// SIGXCPU among them, and both survive exec).
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  // Whatever else the daemon has open (client connections, cache files) is none of the worker's
  // business, close-on-exec or not.
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::InternalError(absl::StrCat("could not start ", argv[0], ": ", strerror(rc)));
  return pid;
}

// True if `pid` has exited (it stays unreaped).
bool HasExited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Waits up to `grace` for `pid` to exit, then kills its process group (the worker and any linker
// it started) and reaps it. Returns the wait status. The group is killed while the worker is
// still unreaped, so its pid (the group id) cannot have been reused.
int KillAndReap(pid_t pid, absl::Duration grace) {
  absl::Time until = absl::Now() + grace;
  while (absl::Now() < until && !HasExited(pid)) absl::SleepFor(absl::Milliseconds(1));
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", sig);
}

}  // namespace

struct WorkerPool::Worker {
  pid_t pid = 0;      // 0: not running
  int fd = -1;        // the pool's end of the socketpair
  uint64_t jobs = 0;  // sent to this process (WorkerJob.id)
  bool busy = false;
};

struct WorkerPool::Waiter {
  const CompileJob* job;
  int64_t slot = -1;  // the worker the job was handed, once it has one
};

struct WorkerPool::TargetPool {
  std::vector<Worker> workers;
  std::vector<size_t> idle;
  absl::flat_hash_map<std::string, std::deque<Waiter*>> queues;  // by client
  // Clients with waiting jobs, in round-robin order.
  std::deque<std::string> turns;
  uint32_t queued = 0;
  PoolCounters counters;
};

absl::StatusOr<std::string> DefaultWorkerBinary() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n < 0) return absl::InternalError(Errno("readlink /proc/self/exe", errno));
  std::string exe(buf, n);
  std::string path = absl::StrCat(exe.substr(0, exe.rfind('/') + 1), "kilnd-worker");
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("the worker binary ", path, " (next to ", exe,
                                            ") is missing or not executable: ", strerror(errno)));
  }
  return path;
}

absl::StatusOr<std::unique_ptr<WorkerPool>> WorkerPool::Create(WorkerPoolOptions options) {
  if (options.workers_per_target < 1) return absl::InvalidArgumentError("workers_per_target must be at least 1");
  if (options.max_targets < 1) return absl::InvalidArgumentError("max_targets must be at least 1");
  if (options.max_queued_per_target < 0) {
    return absl::InvalidArgumentError("max_queued_per_target must not be negative");
  }
  if (access(options.worker_binary.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("the worker binary \"", options.worker_binary,
                                            "\" is missing or not executable: ", strerror(errno)));
  }
  return std::unique_ptr<WorkerPool>(new WorkerPool(std::move(options)));
}

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(std::move(options)) {}

WorkerPool::~WorkerPool() { Shutdown(); }

WorkerPool::TargetPool* WorkerPool::GetPool(const std::string& target) {
  std::unique_ptr<TargetPool>& pool = pools_[target];
  if (pool == nullptr) {
    pool = std::make_unique<TargetPool>();
    pool->counters.target = target;
    pool->workers.resize(options_.workers_per_target);
    for (size_t slot = 0; slot < pool->workers.size(); ++slot) {
      pool->idle.push_back(pool->workers.size() - 1 - slot);  // slot 0 is taken first
      // A worker that fails to start is retried by the first job it is handed (which then fails
      // with the reason), so the error is not lost here.
      EnsureRunning(pool.get(), slot).IgnoreError();
    }
  }
  return pool.get();
}

absl::Status WorkerPool::EnsureRunning(TargetPool* pool, size_t slot) {
  Worker& w = pool->workers[slot];
  if (w.pid != 0) return absl::OkStatus();
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError(Errno("socketpair for a kilnd-worker", errno));
  }
  // dup2 onto itself would keep close-on-exec: the worker's end must not be fd 0 or 1 already (a
  // daemon may run with those closed).
  if (fds[1] < 3) {
    int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
    close(fds[1]);
    if (moved < 0) {
      close(fds[0]);
      return absl::InternalError(Errno("fcntl for a kilnd-worker", errno));
    }
    fds[1] = moved;
  }
  std::vector<std::string> argv = {options_.worker_binary};
  argv.insert(argv.end(), options_.worker_args.begin(), options_.worker_args.end());
  absl::StatusOr<pid_t> pid = Spawn(argv, fds[1]);
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  w.pid = *pid;
  w.fd = fds[0];
  w.jobs = 0;
  return absl::OkStatus();
}

absl::StatusOr<CompileOutput> WorkerPool::Compile(const CompileJob& job) {
  if (absl::Now() >= job.deadline) {
    return absl::DeadlineExceededError("the deadline passed before the compile was queued");
  }
  Waiter waiter{&job};
  TargetPool* pool = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("kilnd is shutting down and accepts no new compiles");
    if (!pools_.contains(job.target) && pools_.size() >= static_cast<size_t>(options_.max_targets)) {
      return absl::ResourceExhaustedError(absl::StrCat("kilnd already runs workers for ", pools_.size(),
                                                       " targets, its limit; target \"", job.target, "\" gets none"));
    }
    pool = GetPool(job.target);
    if (!pool->idle.empty() && pool->queued == 0) {
      waiter.slot = pool->idle.back();
      pool->idle.pop_back();
    } else {
      if (pool->queued >= static_cast<uint32_t>(options_.max_queued_per_target)) {
        return absl::ResourceExhaustedError(absl::StrCat("the compile queue for target \"", job.target, "\" is full (",
                                                         pool->queued, " jobs waiting); retry later"));
      }
      std::deque<Waiter*>& queue = pool->queues[job.client];
      if (queue.empty()) pool->turns.push_back(job.client);
      queue.push_back(&waiter);
      ++pool->queued;
      auto has_slot = [](Waiter* w) { return w->slot >= 0; };
      mu_.AwaitWithDeadline(absl::Condition(+has_slot, &waiter), job.deadline);
      if (waiter.slot < 0) {
        queue.erase(std::find(queue.begin(), queue.end(), &waiter));
        --pool->queued;
        if (queue.empty()) {
          pool->queues.erase(job.client);
          pool->turns.erase(std::find(pool->turns.begin(), pool->turns.end(), job.client));
        }
        ++pool->counters.failed;
        return absl::DeadlineExceededError(
            absl::StrCat("the deadline passed while the job waited for a worker for target \"", job.target, "\""));
      }
    }
    pool->workers[waiter.slot].busy = true;
  }
  absl::StatusOr<CompileOutput> out = RunOnWorker(pool, waiter.slot, job);
  absl::MutexLock lock(&mu_);
  pool->workers[waiter.slot].busy = false;
  ++(out.ok() ? pool->counters.completed : pool->counters.failed);
  Release(pool, waiter.slot);
  return out;
}

absl::StatusOr<CompileOutput> WorkerPool::RunOnWorker(TargetPool* pool, size_t slot, const CompileJob& job) {
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = EnsureRunning(pool, slot); !s.ok()) return s;
  }
  // This thread holds the slot: nothing else touches the worker until Release.
  Worker& w = pool->workers[slot];
  if (HasExited(w.pid)) {
    // It died while idle (say, the kernel's OOM killer chose it): not this job's doing.
    Replace(pool, slot, absl::ZeroDuration());
    absl::MutexLock lock(&mu_);
    if (absl::Status s = EnsureRunning(pool, slot); !s.ok()) return s;
  }
  const pid_t pid = w.pid;
  v1::worker::WorkerJob request;
  request.set_module(job.module);
  request.set_target(job.target);
  for (const std::string& e : job.entries) request.add_entries(e);
  request.set_checked(job.checked);
  request.set_cpu_limit_seconds(options_.cpu_seconds_per_job);
  request.set_memory_limit_bytes(options_.memory_bytes_per_job);
  request.set_id(++w.jobs);
  std::string bytes;
  if (!request.SerializeToString(&bytes) || bytes.size() > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the job (a module of ", job.module.size(), " bytes) is too large to send to a worker"));
  }

  absl::Time start = absl::Now();
  absl::Status sent = WriteFrame(w.fd, bytes, job.deadline);
  absl::StatusOr<std::string> frame = sent.ok() ? ReadFrame(w.fd, kMaxFrameBytes, job.deadline) : sent;
  std::string who = absl::StrCat("kilnd-worker (pid ", pid, ")");
  if (absl::IsDeadlineExceeded(frame.status())) {
    absl::Duration ran = absl::Now() - start;
    Replace(pool, slot, absl::ZeroDuration());
    return absl::DeadlineExceededError(
        absl::StrCat("the deadline passed after ", absl::FormatDuration(ran), " of compiling; ", who, " was stopped"));
  }
  if (!frame.ok()) {
    bool stream_ended =
        absl::IsOutOfRange(frame.status()) || absl::IsDataLoss(frame.status()) || absl::IsUnavailable(frame.status());
    if (!stream_ended) {
      Replace(pool, slot, absl::ZeroDuration());
      return absl::InternalError(
          absl::StrCat(who, " broke the protocol (", frame.status().message(), "); it was replaced"));
    }
    int status = Replace(pool, slot, kExitGrace);
    if (status == -1) return absl::InternalError(absl::StrCat(who, " stopped answering while compiling"));
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
      return absl::DeadlineExceededError(absl::StrCat(who, " used up the per-job CPU limit of ",
                                                      options_.cpu_seconds_per_job, " s (SIGXCPU) while compiling"));
    }
    if (WIFSIGNALED(status)) {
      return absl::InternalError(
          absl::StrCat(who, " died of signal ", SignalName(WTERMSIG(status)), " while compiling"));
    }
    if (WEXITSTATUS(status) == kWorkerOutOfMemoryExit) {
      return absl::ResourceExhaustedError(
          absl::StrCat(who, " ran out of memory while compiling",
                       options_.memory_bytes_per_job > 0
                           ? absl::StrCat(" (the per-job limit is ", options_.memory_bytes_per_job, " bytes)")
                           : std::string()));
    }
    return absl::InternalError(
        absl::StrCat(who, " exited with status ", WEXITSTATUS(status), " while compiling (its stderr says why)"));
  }
  v1::worker::WorkerResult result;
  bool answers_job = result.ParseFromString(*frame) && result.job_id() == request.id() && result.code() >= 0 &&
                     result.code() <= static_cast<int>(absl::StatusCode::kUnauthenticated) &&
                     (result.code() != 0 || !result.executable().empty());
  if (!answers_job) {
    Replace(pool, slot, absl::ZeroDuration());
    return absl::InternalError(
        absl::StrCat(who, " sent a result that is not a WorkerResult for job ", request.id(), "; it was replaced"));
  }
  if (result.code() != 0) return absl::Status(static_cast<absl::StatusCode>(result.code()), result.message());
  CompileOutput out;
  out.executable = std::move(*result.mutable_executable());
  out.functions.assign(result.functions().begin(), result.functions().end());
  out.compile_time = absl::Microseconds(result.compile_micros());
  return out;
}

int WorkerPool::Replace(TargetPool* pool, size_t slot, absl::Duration grace) {
  Worker& w = pool->workers[slot];
  close(w.fd);  // the worker, if alive and reading, sees the end of its stream
  int status = KillAndReap(w.pid, grace);
  absl::MutexLock lock(&mu_);
  w.pid = 0;
  w.fd = -1;
  if (EnsureRunning(pool, slot).ok()) ++pool->counters.worker_restarts;
  return status;
}

void WorkerPool::Release(TargetPool* pool, size_t slot) {
  if (pool->turns.empty()) {
    pool->idle.push_back(slot);
    return;
  }
  std::string client = std::move(pool->turns.front());
  pool->turns.pop_front();
  auto it = pool->queues.find(client);
  Waiter* next = it->second.front();
  it->second.pop_front();
  --pool->queued;
  if (it->second.empty()) {
    pool->queues.erase(it);
  } else {
    pool->turns.push_back(std::move(client));
  }
  next->slot = slot;
}

bool WorkerPool::AllIdle() const {
  for (const auto& [target, pool] : pools_) {
    if (pool->queued > 0) return false;
    for (const Worker& w : pool->workers) {
      if (w.busy) return false;
    }
  }
  return true;
}

void WorkerPool::Shutdown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
  mu_.Await(absl::Condition(this, &WorkerPool::AllIdle));
  if (stopped_) return;
  stopped_ = true;
  for (auto& [target, pool] : pools_) {
    for (Worker& w : pool->workers) {
      if (w.pid == 0) continue;
      close(w.fd);  // an idle worker exits at the end of its stream; the grace covers that
      KillAndReap(w.pid, absl::Seconds(1));
      w.pid = 0;
      w.fd = -1;
    }
  }
}

std::vector<PoolCounters> WorkerPool::Stats() const {
  absl::MutexLock lock(&mu_);
  std::vector<PoolCounters> out;
  for (const auto& [target, pool] : pools_) {
    PoolCounters c = pool->counters;
    c.queued = pool->queued;
    for (const Worker& w : pool->workers) {
      c.workers += w.pid != 0;
      c.busy += w.busy;
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const PoolCounters& a, const PoolCounters& b) { return a.target < b.target; });
  return out;
}

std::vector<pid_t> WorkerPool::WorkerPids(const std::string& target) const {
  absl::MutexLock lock(&mu_);
  std::vector<pid_t> out;
  auto it = pools_.find(target);
  if (it == pools_.end()) return out;
  for (const Worker& w : it->second->workers) {
    if (w.pid != 0) out.push_back(w.pid);
  }
  return out;
}

}  // namespace kiln::server
