// The shared tier: a Redis server that every kilnd replica reads and writes, so one replica's compile
// serves them all. Optional; a Redis that is down or slow is a tier error (TieredCache counts it as a
// miss), never a failed compile, and the tier reconnects by itself once Redis is back.
//
// Entry layout (KEY: the cache key's 64-character hex; P: the key prefix, "kiln:" by default):
//   P KEY          the header: magic "KILNRC01" (8) | value size, u64 LE (8) | chunk bytes, u64 LE (8)
//                  | chunk count, u64 LE (8) | the key (32) | SHA-256 of the value (32) = 96 bytes;
//                  with chunk count 0 the value follows inline (values up to one chunk: one GET)
//   P KEY:i        chunk i (decimal, from 0) of a larger value; all chunk-bytes long but the last
// A writer reads the old header's first 96 bytes (GETRANGE), then sends the chunks and the header
// in one MULTI/EXEC (each SET with the TTL, if any; a shorter value's transaction also deletes the
// old entry's extra chunks), so readers see the old entry or the new one, never half of one. A
// reader GETs the header, then MGETs the header again with all the chunks: one command, so one
// consistent snapshot (a header that changed in between is a plain miss). It verifies
// the magic, that the stored key is the one asked for (a header under the wrong name, or a
// collision of names, is never served), the sizes and the checksum. A failed entry (a flipped bit,
// or a chunk that Redis's maxmemory policy evicted on its own) is a miss counted as `corrupt`, and
// is deleted unless a writer replaced it meanwhile. Operators should bound Redis with maxmemory and
// allkeys-lru (as sccache recommends); this tier does no eviction of its own.
#ifndef KILN_SERVER_CACHE_REDIS_CACHE_H_
#define KILN_SERVER_CACHE_REDIS_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/cache/cache_tier.h"

struct redisContext;

namespace kiln::server {

inline constexpr size_t kRedisEntryHeaderBytes = 96;

struct RedisCacheOptions {
  std::string address;  // "HOST:PORT"; "[::1]:6379" for an IPv6 literal
  std::string key_prefix = "kiln:";
  absl::Duration ttl = absl::ZeroDuration();  // on every key of an entry, from its write; zero: none
  uint64_t chunk_bytes = 1 << 20;             // at least 1 KiB; 1 MiB, the gRPC/REAPI chunk size
  uint64_t max_value_bytes = 256 << 20;       // larger values are not stored, nor fetched
  absl::Duration connect_timeout = absl::Seconds(1);
  absl::Duration command_timeout = absl::Seconds(2);  // per socket read or write, not per value
  // After a failed connect, calls fail at once (Unavailable) for this long instead of each waiting
  // for a connect timeout, so a down Redis costs compiles nothing.
  absl::Duration reconnect_backoff = absl::Seconds(1);
  int max_connections = 4;  // concurrent commands; further callers wait for a free connection
};

class RedisCache : public CacheTier {
 public:
  // Validates the options (the address must parse, sizes and timeouts be in range). Does not
  // connect: Redis may come up after kilnd; Ping checks it now.
  static absl::StatusOr<std::unique_ptr<RedisCache>> Open(const RedisCacheOptions& options);
  ~RedisCache() override;

  absl::string_view name() const override { return "redis"; }
  absl::StatusOr<Artifact> Get(const CacheKey& key) override;
  absl::Status Put(const CacheKey& key, const Artifact& value) override;
  // hits, misses, corrupt: this instance's lookups. entries, bytes: the values this instance stored
  // since it opened (a replacement counts again); what Redis holds is shared with other replicas
  // and evicted by Redis itself, so it is not known without a scan. evictions, capacity_bytes: 0.
  CacheStats Stats() const override;

  // One PING round trip: OK when Redis answers.
  absl::Status Ping();

  // The Redis key of the header, and of chunk `i`, of `key`'s entry.
  std::string HeaderKey(const CacheKey& key) const;
  std::string ChunkKey(const CacheKey& key, uint64_t i) const;

 private:
  class Connection;

  RedisCache(RedisCacheOptions options, std::string host, int port);

  // A pooled connection (unless `fresh`), or a new one; Unavailable during the reconnect backoff.
  absl::StatusOr<std::unique_ptr<Connection>> Acquire(bool fresh);
  // Returns a healthy connection to the pool; frees one that failed (a later Acquire reconnects).
  void Release(redisContext* c, bool failed);
  // Runs `op` (returning T, a Status or StatusOr) on a connection; see the .cc on retries.
  template <typename T, typename Op>
  T WithConnection(Op op);
  // Deletes an entry that failed verification, unless its header is no longer `seen`.
  void DropCorrupt(Connection& conn, const CacheKey& key, const std::string& seen, uint64_t chunks);
  absl::StatusOr<Artifact> Miss(bool corrupt);

  const RedisCacheOptions options_;
  const std::string host_;
  const int port_;

  mutable absl::Mutex mu_;
  absl::CondVar freed_;
  std::vector<redisContext*> idle_ ABSL_GUARDED_BY(mu_);
  int open_connections_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time down_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  CacheStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_REDIS_CACHE_H_
