#include "server/cache/single_flight.h"

#include <utility>

namespace kiln::server {

SingleFlight::Result SingleFlight::Do(const CacheKey& key, absl::FunctionRef<Result()> producer, bool* shared) {
  std::shared_ptr<Call> call;
  bool leader = false;
  {
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = calls_.try_emplace(key);
    if (inserted) it->second = std::make_shared<Call>();
    call = it->second;
    leader = inserted;
    if (!leader) ++coalesced_;
  }
  if (shared != nullptr) *shared = !leader;

  if (!leader) {
    absl::MutexLock lock(&call->mu);
    call->mu.Await(absl::Condition(&call->done));
    return call->result;
  }

  Result result = producer();
  {
    // Forget the key first: callers arriving from now on start a new call. TieredCache's producer
    // looks in the cache before compiling, so such a call finds what this one just stored.
    absl::MutexLock lock(&mu_);
    calls_.erase(key);
  }
  absl::MutexLock lock(&call->mu);
  call->result = result;
  call->done = true;
  return result;
}

uint64_t SingleFlight::coalesced() const {
  absl::MutexLock lock(&mu_);
  return coalesced_;
}

}  // namespace kiln::server
