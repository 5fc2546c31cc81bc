#include "runtime/thread_pool.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::runtime {
namespace {

struct Sum {
  std::vector<int> hits;
};

int32_t Mark(int64_t begin, int64_t end, void* closure) {
  auto* s = static_cast<Sum*>(closure);
  for (int64_t i = begin; i < end; ++i) s->hits[i] += 1;
  return 0;
}

int32_t FailAt7(int64_t begin, int64_t end, void*) { return (begin <= 7 && 7 < end) ? -1 : 0; }

TEST(ThreadPoolTest, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(4);
  for (int64_t n : {1, 2, 3, 5, 100, 1001}) {
    Sum s;
    s.hits.assign(n, 0);
    ASSERT_EQ(pool.ParallelFor(n, &Mark, &s), 0);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(s.hits[i], 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPoolTest, PropagatesChunkFailure) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.ParallelFor(100, &FailAt7, nullptr), -1);
  EXPECT_EQ(pool.ParallelFor(5, &FailAt7, nullptr), 0);
}

// The chunk holding index 0 stalls until every other index is done (or 10 s pass). A pool that
// deals each thread a fixed share would leave n/threads indices stuck behind the stalled one; a
// pool that hands out work as threads come free finishes all but a small first chunk meanwhile.
struct Stall {
  std::atomic<int64_t> done{0};
  int64_t n = 0;
  int64_t stalled = 0;  // indices in the stalled chunk
  bool timed_out = false;
};

int32_t StallOnFirst(int64_t begin, int64_t end, void* closure) {
  auto* s = static_cast<Stall*>(closure);
  if (begin == 0) {
    s->stalled = end - begin;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (s->done.load() < s->n - s->stalled) {
      if (std::chrono::steady_clock::now() > deadline) {
        s->timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  s->done += end - begin;
  return 0;
}

TEST(ThreadPoolTest, AStalledThreadLeavesItsShareToTheOthers) {
  ThreadPool pool(4);
  Stall s;
  s.n = 1000;
  ASSERT_EQ(pool.ParallelFor(s.n, &StallOnFirst, &s), 0);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.done.load(), s.n);
  EXPECT_LE(s.stalled, s.n / 8) << "the stalled thread held a fixed share of the loop";
}

// Every chunk fails: each thread stops after its first, so most of the loop never runs (a failing
// kernel returns without computing the rest of its output).
int32_t CountAndFail(int64_t begin, int64_t end, void* closure) {
  static_cast<std::atomic<int64_t>*>(closure)->fetch_add(end - begin);
  return -2;
}

TEST(ThreadPoolTest, NoChunkStartsAfterAFailure) {
  ThreadPool pool(4);
  std::atomic<int64_t> ran{0};
  EXPECT_EQ(pool.ParallelFor(1000, &CountAndFail, &ran), -2);
  EXPECT_GT(ran.load(), 0);
  EXPECT_LT(ran.load(), 1000);
}

TEST(ThreadPoolTest, EnvForwardsToPool) {
  ThreadPool pool(2);
  Sum s;
  s.hits.assign(64, 0);
  const KilnKernelEnv* env = pool.env();
  ASSERT_EQ(env->parallel_for(env->pool, 64, &Mark, &s), 0);
  for (int h : s.hits) EXPECT_EQ(h, 1);
}

}  // namespace
}  // namespace kiln::runtime
