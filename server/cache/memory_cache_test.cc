#include "server/cache/memory_cache.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

CacheKey K(int i) { return *CacheKey::FromDigest(Sha256Digest(absl::StrCat("key", i))); }
Artifact V(size_t n, char c = 'x') { return std::make_shared<const std::string>(n, c); }

TEST(MemoryCacheTest, MissThenHit) {
  MemoryCache cache(1000);
  EXPECT_EQ(*cache.Get(K(1)), nullptr);
  ASSERT_TRUE(cache.Put(K(1), V(10, 'a')).ok());
  Artifact got = *cache.Get(K(1));
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(*got, std::string(10, 'a'));
  CacheStats s = cache.Stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 10u);
  EXPECT_EQ(s.capacity_bytes, 1000u);
}

TEST(MemoryCacheTest, EvictsLeastRecentlyUsedByBytes) {
  MemoryCache cache(100);
  ASSERT_TRUE(cache.Put(K(1), V(40)).ok());
  ASSERT_TRUE(cache.Put(K(2), V(40)).ok());
  ASSERT_NE(*cache.Get(K(1)), nullptr);  // 2 is now the least recently used
  ASSERT_TRUE(cache.Put(K(3), V(40)).ok());
  EXPECT_NE(*cache.Get(K(1)), nullptr);
  EXPECT_EQ(*cache.Get(K(2)), nullptr);
  EXPECT_NE(*cache.Get(K(3)), nullptr);
  CacheStats s = cache.Stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.bytes, 80u);
  EXPECT_LE(s.bytes, s.capacity_bytes);
}

TEST(MemoryCacheTest, ReplacingAnEntryDoesNotCountItTwice) {
  MemoryCache cache(100);
  ASSERT_TRUE(cache.Put(K(1), V(60)).ok());
  ASSERT_TRUE(cache.Put(K(1), V(70, 'b')).ok());
  CacheStats s = cache.Stats();
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 70u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(**cache.Get(K(1)), std::string(70, 'b'));
}

TEST(MemoryCacheTest, ValueLargerThanCapacityIsNotStoredAndEvictsNothing) {
  MemoryCache cache(100);
  ASSERT_TRUE(cache.Put(K(1), V(50)).ok());
  ASSERT_TRUE(cache.Put(K(2), V(101)).ok());
  EXPECT_EQ(*cache.Get(K(2)), nullptr);
  EXPECT_NE(*cache.Get(K(1)), nullptr);
  EXPECT_EQ(cache.Stats().evictions, 0u);
}

TEST(MemoryCacheTest, NullValueIsRejected) {
  MemoryCache cache(100);
  EXPECT_EQ(cache.Put(K(1), nullptr).code(), absl::StatusCode::kInvalidArgument);
}

TEST(MemoryCacheTest, ConcurrentHammeringStaysWithinBoundsAndConsistent) {
  constexpr int kThreads = 16, kOps = 4000, kKeys = 64;
  constexpr uint64_t kCapacity = 2000;
  MemoryCache cache(kCapacity);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        int k = (i * 7 + t * 13) % kKeys;
        // Each key always maps to the same value, so any hit can be checked.
        char c = static_cast<char>('a' + k % 26);
        size_t n = 10 + k * 3;
        if (i % 3 == 0) {
          ASSERT_TRUE(cache.Put(K(k), V(n, c)).ok());
        } else {
          Artifact v = *cache.Get(K(k));
          if (v != nullptr && *v != std::string(n, c)) wrong.fetch_add(1);
        }
        if (i % 97 == 0) {
          CacheStats s = cache.Stats();
          if (s.bytes > kCapacity) wrong.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  CacheStats s = cache.Stats();
  EXPECT_LE(s.bytes, kCapacity);
  EXPECT_EQ(s.hits + s.misses, static_cast<uint64_t>(kThreads) * (kOps - (kOps + 2) / 3));
  EXPECT_GT(s.evictions, 0u);
  // The byte count matches the entries actually held.
  uint64_t held = 0;
  for (int k = 0; k < kKeys; ++k) {
    Artifact v = *cache.Get(K(k));
    if (v != nullptr) held += v->size();
  }
  EXPECT_EQ(held, cache.Stats().bytes);
}

}  // namespace
}  // namespace kiln::server
