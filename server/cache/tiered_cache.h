// The compile cache as kilnd uses it: tiers from fastest to slowest (memory LRU, local disk, and
// later a shared Redis tier, each a CacheTier) plus single-flight coalescing.
//
// A lookup walks the tiers in order; a hit in a slower tier is copied into every faster one
// (promotion), so the next hit is cheaper. A tier that fails (an I/O error) counts as a miss of
// that tier: the cache never fails a compile that could still be served or produced. On a miss in
// every tier, GetOrProduce runs the producer (the compile) once per key however many identical
// requests wait, and stores its result in every tier. The producer looks in the tiers once more
// before compiling (a call that finished just before it may have stored the result), so a compile
// counts two misses in each tier's stats.
#ifndef KILN_SERVER_CACHE_TIERED_CACHE_H_
#define KILN_SERVER_CACHE_TIERED_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/cache/cache_tier.h"
#include "server/cache/single_flight.h"

namespace kiln::server {

class TieredCache {
 public:
  // `tiers`, fastest first, must not be null.
  explicit TieredCache(std::vector<std::unique_ptr<CacheTier>> tiers) : tiers_(std::move(tiers)) {}

  struct Lookup {
    Artifact value;  // nullptr: a miss in every tier
    // The tier that answered (its index in `tiers`), or -1: a miss, or produced by GetOrProduce.
    int tier = -1;
    // GetOrProduce only: the value came from another caller's producer run.
    bool coalesced = false;
  };

  Lookup Get(const CacheKey& key);
  // Stores `value` in every tier. Returns the first tier's error, after trying them all.
  absl::Status Put(const CacheKey& key, const Artifact& value);
  // Get; on a miss, the producer's result (shared with concurrent identical calls) stored in every
  // tier. The producer's error is returned as is, and nothing is stored.
  absl::StatusOr<Lookup> GetOrProduce(const CacheKey& key, absl::FunctionRef<absl::StatusOr<Artifact>()> producer);

  const std::vector<std::unique_ptr<CacheTier>>& tiers() const { return tiers_; }
  // Tier failures (reads or writes) since construction: a count for Stat and alerts.
  uint64_t tier_errors() const;
  uint64_t coalesced() const { return flight_.coalesced(); }

 private:
  void CountError();

  const std::vector<std::unique_ptr<CacheTier>> tiers_;
  SingleFlight flight_;
  mutable absl::Mutex mu_;
  uint64_t tier_errors_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_TIERED_CACHE_H_
