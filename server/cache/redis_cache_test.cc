#include "server/cache/redis_cache.h"

#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "server/cache/memory_cache.h"
#include "server/cache/sha256.h"
#include "server/cache/tiered_cache.h"
#include "server/testing/redis_process.h"

namespace kiln::server {
namespace {

using ::kiln::server::testing::kRedisServer;
using ::kiln::server::testing::RedisServer;

CacheKey K(int i) { return *CacheKey::FromDigest(Sha256Digest(absl::StrCat("key", i))); }
Artifact V(const std::string& s) { return std::make_shared<const std::string>(s); }

// `n` bytes that differ from chunk to chunk (a swapped chunk must fail the checksum).
Artifact Pattern(size_t n, int seed = 0) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 2654435761u + seed) >> 13);
  return V(s);
}

struct FreeReply {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, FreeReply>;

class RedisCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRedisServer, X_OK) != 0) {
      GTEST_SKIP() << kRedisServer << " is not installed (Debian package redis-server); skipping the Redis tier tests";
    }
    ASSERT_TRUE(server_.Start());
  }
  void TearDown() override { redisFree(raw_); }

  std::unique_ptr<RedisCache> Open(RedisCacheOptions options = {}) {
    options.address = server_.address();
    options.reconnect_backoff = absl::Milliseconds(50);
    absl::StatusOr<std::unique_ptr<RedisCache>> cache = RedisCache::Open(options);
    EXPECT_TRUE(cache.ok()) << cache.status();
    return cache.ok() ? *std::move(cache) : nullptr;
  }

  // A command on a plain hiredis connection of the test's own, to inspect and damage entries.
  Reply Raw(const std::vector<std::string>& args) {
    if (raw_ == nullptr || raw_->err != 0) {
      redisFree(raw_);
      raw_ = redisConnect("127.0.0.1", server_.port());
    }
    std::vector<const char*> argv;
    std::vector<size_t> argvlen;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      argvlen.push_back(a.size());
    }
    return Reply(static_cast<redisReply*>(redisCommandArgv(raw_, argv.size(), argv.data(), argvlen.data())));
  }
  bool Exists(const std::string& key) { return Raw({"EXISTS", key})->integer == 1; }

  RedisServer server_;
  redisContext* raw_ = nullptr;
};

TEST(RedisCacheOptionsTest, OpenRejectsBadOptions) {
  for (const char* address : {"", "localhost", "localhost:", ":6379", "localhost:0", "localhost:70000",
                              "localhost:x", "::1:6379"}) {
    RedisCacheOptions o;
    o.address = address;
    EXPECT_EQ(RedisCache::Open(o).status().code(), absl::StatusCode::kInvalidArgument) << address;
  }
  RedisCacheOptions o;
  o.address = "[::1]:6379";
  EXPECT_TRUE(RedisCache::Open(o).ok());
  o.chunk_bytes = 100;  // an entry of many thousand keys
  EXPECT_EQ(RedisCache::Open(o).status().code(), absl::StatusCode::kInvalidArgument);
  o.chunk_bytes = 1024;
  o.ttl = absl::Seconds(-1);
  EXPECT_EQ(RedisCache::Open(o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RedisCacheTest, SmallValueRoundTripsInline) {
  auto cache = Open();
  ASSERT_TRUE(cache->Ping().ok());
  ASSERT_TRUE(cache->Put(K(1), V("exe")).ok());
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "exe");
  EXPECT_TRUE(Exists("kiln:" + K(1).Hex()));
  EXPECT_FALSE(Exists(cache->ChunkKey(K(1), 0)));  // one chunk or less: inline in the header
  EXPECT_EQ(Raw({"STRLEN", cache->HeaderKey(K(1))})->integer, kRedisEntryHeaderBytes + 3);
  CacheStats s = cache->Stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 3u);
}

TEST_F(RedisCacheTest, LargeValueRoundTripsInChunks) {
  auto cache = Open();
  Artifact big = Pattern((3 << 20) + 5);  // 3 MiB and a bit: four 1 MiB chunks, the last 5 bytes
  ASSERT_TRUE(cache->Put(K(1), big).ok());
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_NE(*got, nullptr);
  EXPECT_TRUE(**got == *big);
  EXPECT_EQ(Raw({"STRLEN", cache->HeaderKey(K(1))})->integer, kRedisEntryHeaderBytes);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Raw({"STRLEN", cache->ChunkKey(K(1), i)})->integer, 1 << 20);
  EXPECT_EQ(Raw({"STRLEN", cache->ChunkKey(K(1), 3)})->integer, 5);
  EXPECT_FALSE(Exists(cache->ChunkKey(K(1), 4)));
}

TEST_F(RedisCacheTest, MissIsNullNotAnError) {
  auto cache = Open();
  absl::StatusOr<Artifact> got = cache->Get(K(7));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, nullptr);
  CacheStats s = cache->Stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.corrupt, 0u);
}

TEST_F(RedisCacheTest, DamagedOrMissingChunkIsACorruptMissAndIsDeleted) {
  auto cache = Open();
  ASSERT_TRUE(cache->Put(K(1), Pattern(3 << 20)).ok());
  std::string chunk1 = cache->ChunkKey(K(1), 1);
  std::string byte = Raw({"GETRANGE", chunk1, "1000", "1000"})->str;
  byte[0] ^= 1;
  Raw({"SETRANGE", chunk1, "1000", byte});
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, nullptr);
  EXPECT_EQ(cache->Stats().corrupt, 1u);
  EXPECT_FALSE(Exists(cache->HeaderKey(K(1))));
  EXPECT_FALSE(Exists(cache->ChunkKey(K(1), 0)));

  // A chunk evicted by Redis on its own (maxmemory) leaves a header that must not be served.
  ASSERT_TRUE(cache->Put(K(1), Pattern(3 << 20)).ok());
  Raw({"DEL", cache->ChunkKey(K(1), 2)});
  got = cache->Get(K(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, nullptr);
  EXPECT_EQ(cache->Stats().corrupt, 2u);

  // An inline value with a flipped bit.
  ASSERT_TRUE(cache->Put(K(2), V("executable")).ok());
  Raw({"SETRANGE", cache->HeaderKey(K(2)), absl::StrCat(kRedisEntryHeaderBytes), "E"});
  got = cache->Get(K(2));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, nullptr);
  EXPECT_EQ(cache->Stats().corrupt, 3u);
  EXPECT_EQ(cache->Stats().hits, 0u);
}

TEST_F(RedisCacheTest, AnEntryUnderAnotherKeysNameIsNotServed) {
  auto cache = Open();
  ASSERT_TRUE(cache->Put(K(1), Pattern(2 << 20)).ok());
  // Copy K(1)'s header and chunks under K(2)'s names: a valid entry, but of another key.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {cache->HeaderKey(K(1)), cache->HeaderKey(K(2))},
           {cache->ChunkKey(K(1), 0), cache->ChunkKey(K(2), 0)},
           {cache->ChunkKey(K(1), 1), cache->ChunkKey(K(2), 1)}}) {
    Reply r = Raw({"GET", from});
    Raw({"SET", to, std::string(r->str, r->len)});
  }
  absl::StatusOr<Artifact> got = cache->Get(K(2));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, nullptr);
  EXPECT_EQ(cache->Stats().corrupt, 1u);
  got = cache->Get(K(1));
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ((*got)->size(), 2u << 20);
}

TEST_F(RedisCacheTest, TtlIsSetOnEveryKeyOfAnEntry) {
  RedisCacheOptions o;
  o.ttl = absl::Seconds(60);
  auto cache = Open(o);
  ASSERT_TRUE(cache->Put(K(1), Pattern((1 << 20) + 1)).ok());
  for (const std::string& key : {cache->HeaderKey(K(1)), cache->ChunkKey(K(1), 0), cache->ChunkKey(K(1), 1)}) {
    long long ms = Raw({"PTTL", key})->integer;
    EXPECT_GT(ms, 50000) << key;
    EXPECT_LE(ms, 60000) << key;
  }
  auto no_ttl = Open();
  ASSERT_TRUE(no_ttl->Put(K(2), V("x")).ok());
  EXPECT_EQ(Raw({"PTTL", no_ttl->HeaderKey(K(2))})->integer, -1);  // -1: exists, no expiry
}

TEST_F(RedisCacheTest, ReplacingWithAShorterValueRemovesItsChunks) {
  auto cache = Open();
  ASSERT_TRUE(cache->Put(K(1), Pattern(3 << 20)).ok());
  ASSERT_TRUE(cache->Put(K(1), V("short")).ok());
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(Exists(cache->ChunkKey(K(1), i))) << i;
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "short");
}

TEST_F(RedisCacheTest, TwoReplicasServeEachOthersEntries) {
  auto a = Open();
  auto b = Open();
  ASSERT_TRUE(a->Put(K(1), Pattern(3 << 20, 1)).ok());
  ASSERT_TRUE(b->Put(K(2), V("from b")).ok());
  absl::StatusOr<Artifact> got = b->Get(K(1));
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_TRUE(**got == *Pattern(3 << 20, 1));
  got = a->Get(K(2));
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "from b");
  EXPECT_EQ(a->Stats().hits, 1u);
  EXPECT_EQ(b->Stats().hits, 1u);
}

TEST_F(RedisCacheTest, DownRedisIsAnErrorAndTheTierRecoversAfterARestart) {
  auto cache = Open();
  ASSERT_TRUE(cache->Put(K(1), V("before")).ok());
  server_.Kill();
  EXPECT_EQ(cache->Get(K(1)).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(cache->Put(K(2), Pattern(3 << 20)).code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(cache->Ping().ok());
  // Within the backoff, a call fails at once, without trying to connect.
  absl::Status fast = cache->Ping();
  EXPECT_TRUE(absl::StrContains(fast.message(), "not retrying yet")) << fast;

  ASSERT_TRUE(server_.Start());  // same port, empty (no persistence)
  absl::SleepFor(absl::Milliseconds(60));  // past the backoff
  ASSERT_TRUE(cache->Put(K(1), V("after")).ok());
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "after");
}

TEST_F(RedisCacheTest, PooledConnectionsToARestartedRedisAreReplacedWithoutAnError) {
  RedisCacheOptions o;
  o.max_connections = 1;
  auto cache = Open(o);
  ASSERT_TRUE(cache->Put(K(1), V("before")).ok());  // leaves a connection in the pool
  server_.Kill();
  ASSERT_TRUE(server_.Start());
  absl::StatusOr<Artifact> got = cache->Get(K(1));  // the pooled one fails; a new one answers
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, nullptr);  // the restarted server is empty
  ASSERT_TRUE(cache->Put(K(1), V("after")).ok());
  got = cache->Get(K(1));
  ASSERT_TRUE(got.ok());
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "after");
}

TEST_F(RedisCacheTest, AWriteRedisRefusesIsAnErrorWithItsReason) {
  // Bounded, and not allowed to evict: Redis refuses the chunk SETs queued in the transaction once
  // the queue has filled its memory, and then the whole transaction (EXECABORT).
  server_.Kill();
  ASSERT_TRUE(server_.Start({"--maxmemory", "4mb", "--maxmemory-policy", "noeviction"}));
  auto cache = Open();
  ASSERT_TRUE(cache->Put(K(1), V("small")).ok());
  absl::Status st = cache->Put(K(2), Pattern(8 << 20));
  EXPECT_TRUE(absl::StrContains(st.message(), "OOM")) << st;
  EXPECT_FALSE(Exists(cache->HeaderKey(K(2))));
  EXPECT_FALSE(Exists(cache->ChunkKey(K(2), 0)));  // nothing of the refused entry was written
  EXPECT_EQ(cache->Stats().entries, 1u);
  absl::StatusOr<Artifact> got = cache->Get(K(1));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_NE(*got, nullptr);
  EXPECT_EQ(**got, "small");
}

TEST_F(RedisCacheTest, ConcurrentGetsAndPutsNeverSeeAMixedEntry) {
  RedisCacheOptions o;
  o.chunk_bytes = 4096;  // most values span several chunks
  o.max_connections = 3;  // fewer than the threads: callers wait for a connection
  auto cache = Open(o);
  constexpr int kKeys = 8;
  // Writers store different values (and chunk counts) under the same key, named by their first
  // bytes, so a reader can tell which value it got and check every byte of it.
  auto value_of = [](int key, int writer) {
    std::string tag = absl::StrCat(key, "/", writer, "/");
    Artifact body = Pattern(1000 + 3000 * ((key + writer) % 5), key * 31 + writer);
    return V(tag + *body);
  };
  std::atomic<int> wrong{0}, errors{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        int key = (i * 7 + t) % kKeys;
        if ((i + t) % 3 == 0) {
          if (!cache->Put(K(key), value_of(key, t)).ok()) ++errors;
          continue;
        }
        absl::StatusOr<Artifact> got = cache->Get(K(key));
        if (!got.ok()) {
          ++errors;
        } else if (*got != nullptr) {
          ++hits;
          int k = -1, w = -1;
          std::vector<std::string> parts = absl::StrSplit(**got, absl::MaxSplits('/', 2));
          if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &k) || !absl::SimpleAtoi(parts[1], &w) || k != key ||
              **got != *value_of(k, w)) {
            ++wrong;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(hits.load(), 0);
  EXPECT_EQ(cache->Stats().corrupt, 0u);
}

TEST_F(RedisCacheTest, TieredCachePromotesARedisHitToMemory) {
  auto other_replica = Open();
  ASSERT_TRUE(other_replica->Put(K(1), V("compiled elsewhere")).ok());
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<MemoryCache>(1 << 20));
  tiers.push_back(Open());
  TieredCache cache(std::move(tiers));

  TieredCache::Lookup first = cache.Get(K(1));
  ASSERT_NE(first.value, nullptr);
  EXPECT_EQ(*first.value, "compiled elsewhere");
  EXPECT_EQ(first.tier, 1);
  TieredCache::Lookup second = cache.Get(K(1));
  EXPECT_EQ(second.tier, 0);
  EXPECT_EQ(cache.tiers()[1]->Stats().hits, 1u);

  // A compile on this replica lands in Redis, where the other replica finds it.
  absl::StatusOr<TieredCache::Lookup> made =
      cache.GetOrProduce(K(2), []() -> absl::StatusOr<Artifact> { return V("compiled here"); });
  ASSERT_TRUE(made.ok());
  absl::StatusOr<Artifact> seen = other_replica->Get(K(2));
  ASSERT_TRUE(seen.ok());
  ASSERT_NE(*seen, nullptr);
  EXPECT_EQ(**seen, "compiled here");
}

TEST_F(RedisCacheTest, TieredCacheServesFromMemoryWhileRedisIsDown) {
  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<MemoryCache>(1 << 20));
  tiers.push_back(Open());
  TieredCache cache(std::move(tiers));
  ASSERT_TRUE(cache.Put(K(1), V("exe")).ok());
  server_.Kill();
  EXPECT_EQ(cache.Get(K(1)).tier, 0);
  int compiles = 0;
  absl::StatusOr<TieredCache::Lookup> made = cache.GetOrProduce(K(2), [&]() -> absl::StatusOr<Artifact> {
    ++compiles;
    return V("compiled");
  });
  ASSERT_TRUE(made.ok()) << made.status();  // Redis down: a tier error, not a failed compile
  EXPECT_EQ(*made->value, "compiled");
  EXPECT_EQ(compiles, 1);
  EXPECT_GT(cache.tier_errors(), 0u);
}

}  // namespace
}  // namespace kiln::server
