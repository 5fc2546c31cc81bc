// Coalescing of identical concurrent work: while a producer runs for a key, other callers for the
// same key wait for it and share its result, value or error, instead of running it again (32
// identical Compile requests arriving together cause one compile). Once the producer returns, the
// key is forgotten: a later call runs the producer again (the caches keep results, not this).
#ifndef KILN_SERVER_CACHE_SINGLE_FLIGHT_H_
#define KILN_SERVER_CACHE_SINGLE_FLIGHT_H_

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/cache/cache_tier.h"

namespace kiln::server {

class SingleFlight {
 public:
  using Result = absl::StatusOr<Artifact>;

  // Runs `producer` unless a call for `key` is in flight, in which case waits for that call's
  // result. `shared` (optional) is set to true when the result came from another caller's producer.
  Result Do(const CacheKey& key, absl::FunctionRef<Result()> producer, bool* shared = nullptr);

  // Calls that were answered by another caller's producer.
  uint64_t coalesced() const;

 private:
  struct Call {
    absl::Mutex mu;
    bool done ABSL_GUARDED_BY(mu) = false;
    Result result ABSL_GUARDED_BY(mu) = Artifact();
  };

  mutable absl::Mutex mu_;
  absl::flat_hash_map<CacheKey, std::shared_ptr<Call>> calls_ ABSL_GUARDED_BY(mu_);
  uint64_t coalesced_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_SINGLE_FLIGHT_H_
