#include "server/cache/disk_cache.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
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

// A fresh directory per test under the test's private temporary directory.
std::string FreshDir(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp", "/", name, "-", getpid());
  std::string cmd = "rm -rf '" + dir + "'";
  EXPECT_EQ(system(cmd.c_str()), 0);
  return dir;
}

std::unique_ptr<DiskCache> OpenOrDie(const std::string& dir, uint64_t capacity) {
  absl::StatusOr<std::unique_ptr<DiskCache>> c = DiskCache::Open(dir, capacity);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : nullptr;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(DiskCacheTest, PutThenGetReturnsTheBytes) {
  auto cache = OpenOrDie(FreshDir("roundtrip"), 1 << 20);
  EXPECT_EQ(*cache->Get(K(1)), nullptr);
  std::string payload = "executable\0bytes\xff";
  ASSERT_TRUE(cache->Put(K(1), std::make_shared<const std::string>(payload)).ok());
  Artifact got = *cache->Get(K(1));
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(*got, payload);
  EXPECT_EQ(ReadFile(cache->PathFor(K(1))).size(), kDiskEntryHeaderBytes + payload.size());
  CacheStats s = cache->Stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, kDiskEntryHeaderBytes + payload.size());
}

TEST(DiskCacheTest, LargeAndEmptyValues) {
  auto cache = OpenOrDie(FreshDir("sizes"), 64 << 20);
  std::string big(8 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + 7);
  ASSERT_TRUE(cache->Put(K(1), std::make_shared<const std::string>(big)).ok());
  ASSERT_TRUE(cache->Put(K(2), V(0)).ok());
  EXPECT_EQ(**cache->Get(K(1)), big);
  Artifact empty = *cache->Get(K(2));
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(*empty, "");
}

TEST(DiskCacheTest, ANewInstanceOnTheSameDirectorySeesOldEntries) {
  std::string dir = FreshDir("restart");
  {
    auto cache = OpenOrDie(dir, 1 << 20);
    ASSERT_TRUE(cache->Put(K(1), V(100, 'a')).ok());
    ASSERT_TRUE(cache->Put(K(2), V(200, 'b')).ok());
  }
  auto reopened = OpenOrDie(dir, 1 << 20);
  CacheStats s = reopened->Stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.bytes, 2 * kDiskEntryHeaderBytes + 300);
  EXPECT_EQ(**reopened->Get(K(1)), std::string(100, 'a'));
  EXPECT_EQ(**reopened->Get(K(2)), std::string(200, 'b'));
}

class DiskCacheCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = OpenOrDie(FreshDir("corrupt"), 1 << 20);
    ASSERT_TRUE(cache_->Put(K(1), V(1000, 'q')).ok());
    path_ = cache_->PathFor(K(1));
    bytes_ = ReadFile(path_);
    ASSERT_EQ(bytes_.size(), kDiskEntryHeaderBytes + 1000);
  }
  // The damaged entry is a miss, counted as corrupt, and its file is gone.
  void ExpectDroppedAsMiss() {
    absl::StatusOr<Artifact> got = cache_->Get(K(1));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, nullptr);
    EXPECT_FALSE(Exists(path_));
    CacheStats s = cache_->Stats();
    EXPECT_EQ(s.corrupt, 1u);
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.entries, 0u);
    EXPECT_EQ(s.bytes, 0u);
    // And it can be stored again.
    ASSERT_TRUE(cache_->Put(K(1), V(1000, 'q')).ok());
    EXPECT_EQ(**cache_->Get(K(1)), std::string(1000, 'q'));
  }
  std::unique_ptr<DiskCache> cache_;
  std::string path_, bytes_;
};

TEST_F(DiskCacheCorruptionTest, FlippedPayloadByte) {
  bytes_[kDiskEntryHeaderBytes + 500] ^= 0x01;
  WriteFile(path_, bytes_);
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, FlippedChecksumByte) {
  bytes_[60] ^= 0x80;
  WriteFile(path_, bytes_);
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, BadMagic) {
  bytes_[0] = 'X';
  WriteFile(path_, bytes_);
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, TruncatedPayload) {
  ASSERT_EQ(truncate(path_.c_str(), kDiskEntryHeaderBytes + 999), 0);
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, TruncatedHeader) {
  ASSERT_EQ(truncate(path_.c_str(), 20), 0);
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, AppendedBytes) {
  WriteFile(path_, bytes_ + "extra");
  ExpectDroppedAsMiss();
}

TEST_F(DiskCacheCorruptionTest, AnotherKeysFileUnderThisName) {
  // A valid entry, but for key 2: the stored key material does not match the name.
  ASSERT_TRUE(cache_->Put(K(2), V(1000, 'q')).ok());
  WriteFile(path_, ReadFile(cache_->PathFor(K(2))));
  absl::StatusOr<Artifact> got = cache_->Get(K(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, nullptr);
  EXPECT_FALSE(Exists(path_));
  EXPECT_EQ(cache_->Stats().corrupt, 1u);
  EXPECT_NE(*cache_->Get(K(2)), nullptr);
}

TEST(DiskCacheTest, EvictionKeepsTheDirectoryWithinCapacity) {
  const uint64_t entry = kDiskEntryHeaderBytes + 920;  // 1000 bytes a file
  auto cache = OpenOrDie(FreshDir("bound"), 10 * entry);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(cache->Put(K(i), V(920)).ok());
    EXPECT_LE(cache->Stats().bytes, 10 * entry);
  }
  CacheStats s = cache->Stats();
  EXPECT_EQ(s.evictions, 40 - s.entries);
  // The most recent entry survives; the first ones are gone.
  EXPECT_NE(*cache->Get(K(39)), nullptr);
  EXPECT_EQ(*cache->Get(K(0)), nullptr);
}

TEST(DiskCacheTest, EvictsTheLeastRecentlyAccessedFirst) {
  const uint64_t entry = kDiskEntryHeaderBytes + 920;
  // Room for 3 entries, and still for 3 at the 90% low-water mark an eviction trims to.
  auto cache = OpenOrDie(FreshDir("lru"), 3 * entry + 400);
  ASSERT_TRUE(cache->Put(K(1), V(920)).ok());
  ASSERT_TRUE(cache->Put(K(2), V(920)).ok());
  ASSERT_TRUE(cache->Put(K(3), V(920)).ok());
  ASSERT_NE(*cache->Get(K(1)), nullptr);  // 2 is now the least recently accessed
  ASSERT_TRUE(cache->Put(K(4), V(920)).ok());
  EXPECT_FALSE(Exists(cache->PathFor(K(2))));
  EXPECT_TRUE(Exists(cache->PathFor(K(1))));
  EXPECT_TRUE(Exists(cache->PathFor(K(4))));
  EXPECT_EQ(cache->Stats().evictions, 1u);
}

TEST(DiskCacheTest, ValueLargerThanCapacityIsNotStored) {
  auto cache = OpenOrDie(FreshDir("toolarge"), 500);
  ASSERT_TRUE(cache->Put(K(1), V(1000)).ok());
  EXPECT_FALSE(Exists(cache->PathFor(K(1))));
  EXPECT_EQ(cache->Stats().bytes, 0u);
}

TEST(DiskCacheTest, ReopeningWithASmallerCapacityTrims) {
  std::string dir = FreshDir("shrink");
  const uint64_t entry = kDiskEntryHeaderBytes + 920;
  {
    auto cache = OpenOrDie(dir, 100 * entry);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(cache->Put(K(i), V(920)).ok());
  }
  auto small = OpenOrDie(dir, 5 * entry);
  EXPECT_LE(small->Stats().bytes, 5 * entry);
  EXPECT_NE(*small->Get(K(19)), nullptr);
}

TEST(DiskCacheTest, AbandonedTemporariesAreKeptWhileFresh) {
  std::string dir = FreshDir("tmpfiles");
  OpenOrDie(dir, 1 << 20);
  std::string fresh = dir + "/tmp/partial.123.0";
  WriteFile(fresh, "half a file");
  OpenOrDie(dir, 1 << 20);
  // Less than an hour old: it may be another process's write in progress.
  EXPECT_TRUE(Exists(fresh));
}

// Two instances on one directory behave like two kilnd processes: no shared memory, only the
// files. Every hit must be a complete, correct value while both write and read the same keys.
TEST(DiskCacheTest, TwoInstancesHammeringOneDirectoryNeverSeePartialValues) {
  std::string dir = FreshDir("shared");
  auto a = OpenOrDie(dir, 4 << 20);
  auto b = OpenOrDie(dir, 4 << 20);
  constexpr int kKeys = 8;
  auto value_of = [](int k) { return std::string(20000 + k * 1000, static_cast<char>('a' + k)); };
  std::atomic<int> wrong{0}, hits{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    DiskCache* cache = t % 2 == 0 ? a.get() : b.get();
    threads.emplace_back([&, cache, t] {
      for (int i = 0; i < 150; ++i) {
        int k = (i + t) % kKeys;
        if ((i + t) % 3 == 0) {
          if (!cache->Put(K(k), std::make_shared<const std::string>(value_of(k))).ok()) errors.fetch_add(1);
        } else {
          absl::StatusOr<Artifact> got = cache->Get(K(k));
          if (!got.ok()) {
            errors.fetch_add(1);
          } else if (*got != nullptr) {
            hits.fetch_add(1);
            if (**got != value_of(k)) wrong.fetch_add(1);
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(hits.load(), 0);
  EXPECT_EQ(a->Stats().corrupt + b->Stats().corrupt, 0u);
}

// The same with real processes: a forked child with its own DiskCache writes and reads the keys
// the parent writes and reads; neither may ever get a wrong or partial value.
TEST(DiskCacheTest, TwoProcessesSharingOneDirectory) {
  std::string dir = FreshDir("processes");
  constexpr int kKeys = 6;
  auto value_of = [](int k) { return std::string(50000 + k * 777, static_cast<char>('A' + k)); };
  // Returns the number of wrong values or errors seen.
  auto hammer = [&](int seed) {
    auto cache = OpenOrDie(dir, 1 << 20);  // small enough that the processes evict each other
    int bad = 0;
    for (int i = 0; i < 300; ++i) {
      int k = (i * 5 + seed) % kKeys;
      if ((i + seed) % 2 == 0) {
        if (!cache->Put(K(k), std::make_shared<const std::string>(value_of(k))).ok()) ++bad;
      } else {
        absl::StatusOr<Artifact> got = cache->Get(K(k));
        if (!got.ok() || (*got != nullptr && **got != value_of(k))) ++bad;
      }
    }
    return bad + static_cast<int>(cache->Stats().corrupt);
  };
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(std::min(hammer(1), 100));
  int parent_bad = hammer(0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(parent_bad, 0);
  // Whatever survived is intact.
  auto check = OpenOrDie(dir, 1 << 20);
  for (int k = 0; k < kKeys; ++k) {
    Artifact v = *check->Get(K(k));
    if (v != nullptr) EXPECT_EQ(*v, value_of(k));
  }
  EXPECT_EQ(check->Stats().corrupt, 0u);
}

TEST(DiskCacheTest, OpenRejectsAnEmptyDirectoryName) {
  EXPECT_EQ(DiskCache::Open("", 100).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::server
