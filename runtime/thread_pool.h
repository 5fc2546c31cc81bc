// A small fixed-size thread pool for the parallel loops of compiled kernels. Kernels reach it
// through KilnKernelEnv (kernel_abi.h), so kernel libraries import no runtime symbols.
#ifndef KILN_RUNTIME_THREAD_POOL_H_
#define KILN_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/kernel_abi.h"
#include "runtime/trap.h"

namespace kiln::runtime {

class ThreadPool {
 public:
  // num_threads <= 0: std::thread::hardware_concurrency().
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs body over [0, n) in contiguous chunks on every thread (the caller takes part) and returns
  // the first non-zero chunk result; after one, no new chunk starts. Chunks are claimed as threads
  // come free, each a share of what is left (guided scheduling), so a thread that starts late or
  // loses its core for a while leaves its work to the others instead of holding up the loop. One
  // ParallelFor at a time per pool; nested calls run serially. A chunk that traps (trap.h) makes it
  // return kTrapped, with the trap pending on the calling thread.
  int32_t ParallelFor(int64_t n, KilnParallelBody body, void* closure);

  // The env to pass as `self` to kernels so their parallel loops use this pool.
  const KilnKernelEnv* env() const { return &env_; }

 private:
  void WorkerLoop();
  // Runs chunks of the job in flight until none is left or one fails; returns that failure.
  int32_t RunChunks(TrapInfo* trap);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  // Written under mu_; also read without it while spinning (see WaitBriefly in thread_pool.cc).
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  bool busy_ = false;
  // The job in flight.
  int64_t n_ = 0;
  KilnParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  std::atomic<int64_t> next_{0};     // the first index no chunk has claimed
  std::atomic<bool> failed_{false};  // a chunk failed: claim no more
  std::atomic<int> pending_{0};
  int32_t first_error_ = 0;
  TrapInfo first_trap_;  // a chunk that trapped, on a worker
  KilnKernelEnv env_{};  // no device launcher: the VM lends one in its own env
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_THREAD_POOL_H_
