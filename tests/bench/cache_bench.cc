// The compile cache's hit paths beside the raw operations they wrap, measured in the same run:
//   memory hit (MemoryCache::Get: a lock and a shared_ptr copy)  vs  memcpy of the value;
//   disk hit (DiskCache::Get: open, read, SHA-256 verify, touch)  vs  open + read + close of a
//   plain file of the same size (both from the page cache);
//   and SHA-256 alone, the part of a disk hit that verifies the checksum.
//
//   bazel run -c opt //tests/bench:cache_bench
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "server/cache/disk_cache.h"
#include "server/cache/memory_cache.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

CacheKey Key() { return *CacheKey::FromDigest(Sha256Digest("bench")); }

Artifact Value(size_t n) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 131 + 7);
  return std::make_shared<const std::string>(std::move(v));
}

std::string TempDir() {
  char templ[] = "/tmp/kiln-cache-bench-XXXXXX";
  return mkdtemp(templ) != nullptr ? templ : "/tmp";
}

void RemoveDir(const std::string& dir) { std::system(("rm -rf '" + dir + "'").c_str()); }

void BM_MemoryHit(benchmark::State& state) {
  MemoryCache cache(uint64_t{1} << 31);
  CacheKey key = Key();
  if (!cache.Put(key, Value(state.range(0))).ok()) state.SkipWithError("put failed");
  for (auto _ : state) benchmark::DoNotOptimize(*cache.Get(key));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MemoryHit)->Arg(4 << 10)->Arg(1 << 20)->Arg(16 << 20);

void BM_Peer_Memcpy(benchmark::State& state) {
  Artifact src = Value(state.range(0));
  std::string dst(src->size(), '\0');
  for (auto _ : state) {
    memcpy(dst.data(), src->data(), src->size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Peer_Memcpy)->Arg(4 << 10)->Arg(1 << 20)->Arg(16 << 20);

void BM_DiskHit(benchmark::State& state) {
  std::string dir = TempDir();
  {
    auto cache = *DiskCache::Open(dir, uint64_t{1} << 31);
    CacheKey key = Key();
    if (!cache->Put(key, Value(state.range(0))).ok()) state.SkipWithError("put failed");
    for (auto _ : state) {
      Artifact v = *cache->Get(key);
      if (v == nullptr) {
        state.SkipWithError("miss");
        break;
      }
      benchmark::DoNotOptimize(v);
    }
  }
  RemoveDir(dir);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DiskHit)->Arg(4 << 10)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);

void BM_Peer_ReadFile(benchmark::State& state) {
  std::string dir = TempDir();
  std::string path = dir + "/plain";
  Artifact v = Value(state.range(0));
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, v->data(), v->size()) != static_cast<ssize_t>(v->size())) state.SkipWithError("write failed");
  close(fd);
  for (auto _ : state) {
    std::string out(v->size(), '\0');
    int rfd = open(path.c_str(), O_RDONLY);
    ssize_t n = pread(rfd, out.data(), out.size(), 0);
    close(rfd);
    if (n != static_cast<ssize_t>(out.size())) {
      state.SkipWithError("short read");
      break;
    }
    benchmark::DoNotOptimize(out);
  }
  RemoveDir(dir);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Peer_ReadFile)->Arg(4 << 10)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);

void BM_Sha256(benchmark::State& state) {
  Artifact v = Value(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(Sha256Digest(*v));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Sha256)->Arg(4 << 10)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kiln::server

BENCHMARK_MAIN();
