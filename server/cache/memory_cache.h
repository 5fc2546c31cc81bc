// The in-memory tier: an LRU bounded by the bytes of its values (executables vary from kilobytes
// to a gigabyte, so an entry count would bound nothing). Thread-safe; one mutex, held only for
// list and map updates, never while copying values (values are shared pointers).
#ifndef KILN_SERVER_CACHE_MEMORY_CACHE_H_
#define KILN_SERVER_CACHE_MEMORY_CACHE_H_

#include <cstdint>
#include <list>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "server/cache/cache_tier.h"

namespace kiln::server {

class MemoryCache : public CacheTier {
 public:
  explicit MemoryCache(uint64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  absl::string_view name() const override { return "memory"; }
  // Never fails; a hit makes the entry the most recently used.
  absl::StatusOr<Artifact> Get(const CacheKey& key) override;
  // Evicts least recently used entries until the value fits. Never fails.
  absl::Status Put(const CacheKey& key, const Artifact& value) override;
  CacheStats Stats() const override;

 private:
  struct Entry {
    CacheKey key;
    Artifact value;
  };
  using List = std::list<Entry>;  // front = most recently used

  void EvictUntilFits(uint64_t incoming) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint64_t capacity_bytes_;
  mutable absl::Mutex mu_;
  List lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<CacheKey, List::iterator> index_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  CacheStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_MEMORY_CACHE_H_
