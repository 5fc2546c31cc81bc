// The CompileBackend kilnd uses: per target, a set of long-lived kilnd-worker processes
// (worker_main.cc), each compiling one job at a time, so a crash, a runaway compile or an
// out-of-memory fails only its own job and never the daemon.
//
// - Pools are made lazily, on the first job for a target (job.target, already normalized), with
//   `workers_per_target` workers started at once so later jobs find a warm backend.
// - Workers are started with posix_spawn in their own process group, talking over a socketpair
//   made close-on-exec (the worker's stdin and stdout; worker_protocol.h frames), with a clean
//   signal mask and default dispositions, and no other descriptor of the daemon's but stderr.
//   Killing a worker kills its group (and any linker it ran); every worker is reaped.
// - A worker that dies, closes its end or sends bytes that are not a result fails its job with
//   INTERNAL ("kilnd-worker (pid N) died of signal SIGKILL while compiling") and is replaced
//   (worker_restarts). SIGXCPU (the per-job CPU limit) and job.deadline passing give
//   DEADLINE_EXCEEDED (on the deadline the pool kills the worker); running out of memory (the
//   per-job limit) gives RESOURCE_EXHAUSTED. The limits themselves are the worker's: see
//   worker_main.cc. A worker that hangs without using CPU is only stopped by job.deadline, so
//   kilnd should give every job a deadline. A worker found dead before a job starts (killed while
//   idle) is replaced without failing the job.
// - Jobs wait in one FIFO queue per client (job.client); a free worker takes the next job from the
//   clients in round-robin order, so a client flooding the pool cannot starve another. At most
//   `max_queued_per_target` jobs wait per target; one more gets RESOURCE_EXHAUSTED. A job whose
//   deadline passes while it waits leaves the queue with DEADLINE_EXCEEDED.
// - Shutdown() refuses new jobs with UNAVAILABLE, lets the accepted ones (running and queued)
//   finish, then stops and reaps every worker. The destructor calls it.
//
// The pool has no threads of its own: the thread that calls Compile waits in the queue, then
// drives its worker itself.
#ifndef KILN_SERVER_POOL_WORKER_POOL_H_
#define KILN_SERVER_POOL_WORKER_POOL_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/pool/backend.h"

namespace kiln::server {

struct WorkerPoolOptions {
  std::string worker_binary;  // the kilnd-worker executable (DefaultWorkerBinary())
  int workers_per_target = 1;
  int max_queued_per_target = 64;
  // Pools (each with its processes) are never dropped, so distinct targets are capped: a job for
  // one more target gets RESOURCE_EXHAUSTED.
  int max_targets = 16;
  uint32_t cpu_seconds_per_job = 0;      // 0: no limit
  uint64_t memory_bytes_per_job = 0;     // address space a job may add to its worker; 0: no limit
  std::vector<std::string> worker_args;  // appended to the worker's command line
};

// `kilnd-worker` in the directory of this process's executable (where Bazel puts both kilnd and
// the worker, bazel-bin/server/). NOT_FOUND, naming the path, if it is not an executable there.
absl::StatusOr<std::string> DefaultWorkerBinary();

class WorkerPool : public CompileBackend {
 public:
  // INVALID_ARGUMENT for options out of range, NOT_FOUND if worker_binary is not executable.
  static absl::StatusOr<std::unique_ptr<WorkerPool>> Create(WorkerPoolOptions options);
  ~WorkerPool() override;

  absl::StatusOr<CompileOutput> Compile(const CompileJob& job) override;
  // One entry per target, sorted by target. completed: jobs answered OK; failed: accepted jobs that
  // ended in an error (refusals, for a full queue or during shutdown, are not counted).
  std::vector<PoolCounters> Stats() const override;

  // Refuses new jobs, waits for the accepted ones, stops the workers. Idempotent.
  void Shutdown();

  // The pids of `target`'s running workers (for tests that kill one; for operators' logs).
  std::vector<pid_t> WorkerPids(const std::string& target) const;

 private:
  struct Worker;
  struct Waiter;
  struct TargetPool;

  explicit WorkerPool(WorkerPoolOptions options);

  TargetPool* GetPool(const std::string& target) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts the worker in `slot` if it is not running; the error says why it could not start.
  absl::Status EnsureRunning(TargetPool* pool, size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends the job to the worker in `slot` (held by the caller) and reads its result.
  absl::StatusOr<CompileOutput> RunOnWorker(TargetPool* pool, size_t slot, const CompileJob& job)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Closes the stream of the worker in `slot` (held by the caller), gives it `grace` to exit, kills
  // its group, reaps it and starts a new one. Returns the old one's wait status (-1: unknown).
  int Replace(TargetPool* pool, size_t slot, absl::Duration grace) ABSL_LOCKS_EXCLUDED(mu_);
  // Hands `slot` to the next waiting job (round-robin across clients) or marks it idle.
  void Release(TargetPool* pool, size_t slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // No job running or waiting in any pool (what Shutdown waits for).
  bool AllIdle() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const WorkerPoolOptions options_;
  mutable absl::Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, std::unique_ptr<TargetPool>> pools_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln::server

#endif  // KILN_SERVER_POOL_WORKER_POOL_H_
