#include "runtime/thread_pool.h"

#include <atomic>
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
