#include "server/cache/tiered_cache.h"

namespace kiln::server {

void TieredCache::CountError() {
  absl::MutexLock lock(&mu_);
  ++tier_errors_;
}

uint64_t TieredCache::tier_errors() const {
  absl::MutexLock lock(&mu_);
  return tier_errors_;
}

TieredCache::Lookup TieredCache::Get(const CacheKey& key) {
  for (size_t i = 0; i < tiers_.size(); ++i) {
    absl::StatusOr<Artifact> got = tiers_[i]->Get(key);
    if (!got.ok()) {
      CountError();
      continue;
    }
    if (*got == nullptr) continue;
    for (size_t j = 0; j < i; ++j) {
      if (!tiers_[j]->Put(key, *got).ok()) CountError();
    }
    return Lookup{*std::move(got), static_cast<int>(i)};
  }
  return Lookup{};
}

absl::Status TieredCache::Put(const CacheKey& key, const Artifact& value) {
  absl::Status first;
  for (const std::unique_ptr<CacheTier>& tier : tiers_) {
    absl::Status st = tier->Put(key, value);
    if (!st.ok()) {
      CountError();
      if (first.ok()) first = st;
    }
  }
  return first;
}

absl::StatusOr<TieredCache::Lookup> TieredCache::GetOrProduce(
    const CacheKey& key, absl::FunctionRef<absl::StatusOr<Artifact>()> producer) {
  Lookup found = Get(key);
  if (found.value != nullptr) return found;
  int tier = -1;
  bool coalesced = false;
  SingleFlight::Result result = flight_.Do(key, [&]() -> SingleFlight::Result {
    // A call that finished between our Get and now has stored its result: use it.
    Lookup again = Get(key);
    if (again.value != nullptr) {
      tier = again.tier;
      return again.value;
    }
    absl::StatusOr<Artifact> produced = producer();
    if (!produced.ok()) return produced.status();
    if (*produced == nullptr) return absl::InternalError("compile cache: the producer returned no value");
    Put(key, *produced).IgnoreError();  // counted in tier_errors; the compile itself succeeded
    return produced;
  }, &coalesced);
  if (!result.ok()) return result.status();
  return Lookup{*std::move(result), coalesced ? -1 : tier, coalesced};
}

}  // namespace kiln::server
