// One level of the compile cache (memory, local disk, and later Redis), as TieredCache sees it.
// Values are executables, shared immutably: a memory hit hands out the stored bytes without a copy.
#ifndef KILN_SERVER_CACHE_CACHE_TIER_H_
#define KILN_SERVER_CACHE_CACHE_TIER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/cache/cache_key.h"

namespace kiln::server {

using Artifact = std::shared_ptr<const std::string>;

// Counters since the tier was opened (entries and bytes: its current contents).
struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  uint64_t corrupt = 0;  // entries dropped because they failed verification
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t capacity_bytes = 0;
};

// Implementations are thread-safe.
class CacheTier {
 public:
  virtual ~CacheTier() = default;

  // "memory", "disk", "redis": what Stat reports.
  virtual absl::string_view name() const = 0;
  // The value, or nullptr on a miss (an entry that fails verification is a miss). An error means
  // the tier itself failed (I/O, connection); callers treat it as a miss of this tier.
  virtual absl::StatusOr<Artifact> Get(const CacheKey& key) = 0;
  // Stores (or replaces) the value. A value larger than the tier's capacity is not stored (OK).
  virtual absl::Status Put(const CacheKey& key, const Artifact& value) = 0;
  virtual CacheStats Stats() const = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_CACHE_TIER_H_
