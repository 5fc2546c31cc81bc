#include "server/cache/memory_cache.h"

namespace kiln::server {

absl::StatusOr<Artifact> MemoryCache::Get(const CacheKey& key) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return Artifact();
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return it->second->value;
}

absl::Status MemoryCache::Put(const CacheKey& key, const Artifact& value) {
  if (value == nullptr) return absl::InvalidArgumentError("memory cache: null value");
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {  // replace: drop the old value first so it does not count twice
    bytes_ -= it->second->value->size();
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (value->size() > capacity_bytes_) return absl::OkStatus();
  EvictUntilFits(value->size());
  lru_.push_front(Entry{key, value});
  index_.emplace(key, lru_.begin());
  bytes_ += value->size();
  return absl::OkStatus();
}

void MemoryCache::EvictUntilFits(uint64_t incoming) {
  while (!lru_.empty() && bytes_ + incoming > capacity_bytes_) {
    const Entry& victim = lru_.back();
    bytes_ -= victim.value->size();
    index_.erase(victim.key);
    lru_.pop_back();
    ++stats_.evictions;
  }
}

CacheStats MemoryCache::Stats() const {
  absl::MutexLock lock(&mu_);
  CacheStats s = stats_;
  s.entries = index_.size();
  s.bytes = bytes_;
  s.capacity_bytes = capacity_bytes_;
  return s;
}

}  // namespace kiln::server
