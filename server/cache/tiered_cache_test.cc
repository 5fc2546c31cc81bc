#include "server/cache/tiered_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "server/cache/disk_cache.h"
#include "server/cache/memory_cache.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

CacheKey K(int i) { return *CacheKey::FromDigest(Sha256Digest(absl::StrCat("key", i))); }
Artifact V(const std::string& s) { return std::make_shared<const std::string>(s); }

std::string FreshDir(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp", "/", name, "-", getpid());
  EXPECT_EQ(system(("rm -rf '" + dir + "'").c_str()), 0);
  return dir;
}

// Memory (tier 0) over disk (tier 1).
std::unique_ptr<TieredCache> MakeCache(const std::string& dir, uint64_t memory_bytes = 1 << 20) {
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<MemoryCache>(memory_bytes));
  absl::StatusOr<std::unique_ptr<DiskCache>> disk = DiskCache::Open(dir, 16 << 20);
  EXPECT_TRUE(disk.ok()) << disk.status();
  tiers.push_back(*std::move(disk));
  return std::make_unique<TieredCache>(std::move(tiers));
}

TEST(TieredCacheTest, MissProducesAndStoresInEveryTier) {
  auto cache = MakeCache(FreshDir("produce"));
  int calls = 0;
  auto producer = [&]() -> absl::StatusOr<Artifact> {
    ++calls;
    return V("exe");
  };
  absl::StatusOr<TieredCache::Lookup> first = cache->GetOrProduce(K(1), producer);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first->value, "exe");
  EXPECT_EQ(first->tier, -1);
  absl::StatusOr<TieredCache::Lookup> second = cache->GetOrProduce(K(1), producer);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->tier, 0);
  EXPECT_EQ(calls, 1);
  for (const auto& tier : cache->tiers()) EXPECT_EQ(tier->Stats().entries, 1u) << tier->name();
}

TEST(TieredCacheTest, DiskHitAfterRestartIsPromotedToMemory) {
  std::string dir = FreshDir("promote");
  ASSERT_TRUE(MakeCache(dir)->Put(K(1), V("persisted")).ok());
  auto restarted = MakeCache(dir);  // an empty memory tier over the same disk
  TieredCache::Lookup a = restarted->Get(K(1));
  ASSERT_NE(a.value, nullptr);
  EXPECT_EQ(*a.value, "persisted");
  EXPECT_EQ(a.tier, 1);
  TieredCache::Lookup b = restarted->Get(K(1));
  EXPECT_EQ(b.tier, 0);
  EXPECT_EQ(restarted->tiers()[1]->Stats().hits, 1u);
}

TEST(TieredCacheTest, AnEntryEvictedFromMemoryIsStillOnDisk) {
  auto cache = MakeCache(FreshDir("spill"), /*memory_bytes=*/100);
  ASSERT_TRUE(cache->Put(K(1), V(std::string(80, 'a'))).ok());
  ASSERT_TRUE(cache->Put(K(2), V(std::string(80, 'b'))).ok());  // evicts 1 from memory
  TieredCache::Lookup got = cache->Get(K(1));
  ASSERT_NE(got.value, nullptr);
  EXPECT_EQ(got.tier, 1);
  EXPECT_EQ(*got.value, std::string(80, 'a'));
}

TEST(TieredCacheTest, ThirtyTwoConcurrentIdenticalRequestsProduceOnce) {
  constexpr int kCallers = 32;
  auto cache = MakeCache(FreshDir("flight"));
  std::atomic<int> producer_calls{0}, ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&] {
      absl::StatusOr<TieredCache::Lookup> r = cache->GetOrProduce(K(7), [&]() -> absl::StatusOr<Artifact> {
        producer_calls.fetch_add(1);
        // Hold the compile until the other callers have joined it or found its result.
        absl::Time deadline = absl::Now() + absl::Seconds(10);
        while (cache->coalesced() < kCallers - 1 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
        return V("compiled once");
      });
      if (r.ok() && *r->value == "compiled once") ok.fetch_add(1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(producer_calls.load(), 1);
  EXPECT_EQ(ok.load(), kCallers);
  EXPECT_EQ(cache->coalesced(), static_cast<uint64_t>(kCallers - 1));
}

TEST(TieredCacheTest, AProducerErrorIsReturnedAndNotCached) {
  auto cache = MakeCache(FreshDir("error"));
  int calls = 0;
  auto failing = [&]() -> absl::StatusOr<Artifact> {
    ++calls;
    return absl::InvalidArgumentError("bad module");
  };
  EXPECT_EQ(cache->GetOrProduce(K(1), failing).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache->GetOrProduce(K(1), failing).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache->Get(K(1)).value, nullptr);
}

TEST(TieredCacheTest, AFailingTierDoesNotFailTheRequest) {
  std::string dir = FreshDir("broken");
  auto cache = MakeCache(dir);
  ASSERT_EQ(system(("rm -rf '" + dir + "'").c_str()), 0);  // the disk tier can no longer write
  absl::StatusOr<TieredCache::Lookup> r = cache->GetOrProduce(K(1), [] { return absl::StatusOr<Artifact>(V("x")); });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r->value, "x");
  EXPECT_GT(cache->tier_errors(), 0u);
  EXPECT_EQ(cache->Get(K(1)).tier, 0);  // the memory tier still has it
}

}  // namespace
}  // namespace kiln::server
