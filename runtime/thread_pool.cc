#include "runtime/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace kiln::runtime {
namespace {
int32_t EnvParallelFor(void* pool, int64_t n, KilnParallelBody body, void* closure) {
  return static_cast<ThreadPool*>(pool)->ParallelFor(n, body, closure);
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  env_.parallel_for = &EnvParallelFor;
  env_.pool = this;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

namespace {
// Spins for up to ~50 us until `ready()` holds, yielding the core between checks. Parallel loops
// come in quick succession (one kernel's stages, a model's kernels), and a thread that went to sleep
// on a condition variable takes tens of microseconds to wake: spinning first keeps small kernels
// from paying that on every loop. The callers still block on their condition variable afterwards,
// with the predicate checked under the mutex, so this only changes how long they stay awake.
template <typename Ready>
void WaitBriefly(const Ready& ready) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  while (!ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
}

}  // namespace

int32_t ThreadPool::RunChunks(TrapInfo* trap) {
  // A chunk is 1/(2·threads) of what is left: large first chunks keep per-claim overhead and
  // lost locality small, and the shrinking tail lets the threads finish together.
  const int64_t share = 2 * static_cast<int64_t>(num_threads());
  int64_t begin = next_.load(std::memory_order_relaxed);
  while (begin < n_ && !failed_.load(std::memory_order_relaxed)) {
    int64_t end = begin + std::max<int64_t>(1, (n_ - begin) / share);
    if (!next_.compare_exchange_weak(begin, end, std::memory_order_relaxed)) continue;
    int32_t rc = RunTrapping([&] { return body_(begin, end, closure_); }, trap);
    if (rc != 0) {
      failed_ = true;
      return rc;
    }
    begin = next_.load(std::memory_order_relaxed);
  }
  return 0;
}

int32_t ThreadPool::ParallelFor(int64_t n, KilnParallelBody body, void* closure) {
  if (n <= 0) return 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Nested or concurrent use, or a single thread: run on the caller.
    if (busy_ || workers_.empty() || n == 1) {
      lock.unlock();
      TrapInfo trap;
      int32_t rc = RunTrapping([&] { return body(0, n, closure); }, &trap);
      if (rc == kTrapped) SetPendingTrap(trap);
      return rc;
    }
    busy_ = true;
    n_ = n;
    body_ = body;
    closure_ = closure;
    next_ = 0;
    failed_ = false;
    pending_ = static_cast<int>(workers_.size());
    first_error_ = 0;
    first_trap_ = TrapInfo();
    ++generation_;
  }
  work_cv_.notify_all();
  TrapInfo trap;
  int32_t rc = RunChunks(&trap);
  WaitBriefly([this] { return pending_.load() == 0; });
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  if (rc != kTrapped && first_trap_.signal != 0) trap = first_trap_, rc = kTrapped;
  if (rc == kTrapped) SetPendingTrap(trap);  // the kernel's caller, on this thread, reports it
  if (rc == 0) rc = first_error_;
  busy_ = false;
  return rc;
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  while (true) {
    WaitBriefly([&] { return stop_.load() || generation_.load() != seen; });
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    TrapInfo trap;
    int32_t rc = RunChunks(&trap);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (rc == kTrapped && first_trap_.signal == 0) first_trap_ = trap;
      if (rc != 0 && first_error_ == 0) first_error_ = rc;
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }
}

}  // namespace kiln::runtime
