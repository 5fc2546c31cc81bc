// The local disk tier: one content-addressed file per entry, shared safely by every kilnd process
// that opens the same directory, and kept across restarts.
//
//   DIR/entries/ab/abcdef...  (the key's hex; two-character shards keep directories small)
//   DIR/tmp/                  files being written
//
// An entry file is an 80-byte header, then the value:
//   magic "KILNCE01" (8) | value size, u64 little-endian (8) | the key (32) | SHA-256 of the value (32)
// A writer fills a temporary file, fsyncs it and renames it into place, so a reader opens either
// the old complete file or the new complete file, never a partial one. A reader verifies the magic,
// that the stored key is the one asked for, the size and the checksum; a file that fails (a flipped
// bit, a truncation, a file under the wrong name) is removed and reported as a miss, never returned.
//
// Eviction is by size, oldest access first: a hit sets the file's mtime to now (explicitly, so the
// order does not depend on the filesystem's timestamp granularity or atime mount options). When
// the bytes this process knows of exceed the capacity, it rescans the directory (which also counts
// what other processes wrote) and removes the least recently used files down to 90% of it.
#ifndef KILN_SERVER_CACHE_DISK_CACHE_H_
#define KILN_SERVER_CACHE_DISK_CACHE_H_

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/cache/cache_tier.h"

namespace kiln::server {

inline constexpr size_t kDiskEntryHeaderBytes = 80;

class DiskCache : public CacheTier {
 public:
  // Creates `dir` (and its parents) if needed, removes temporaries abandoned more than an hour ago
  // by crashed writers, and counts the entries already there. `capacity_bytes` bounds the entry
  // files, headers included.
  static absl::StatusOr<std::unique_ptr<DiskCache>> Open(const std::string& dir, uint64_t capacity_bytes);

  absl::string_view name() const override { return "disk"; }
  absl::StatusOr<Artifact> Get(const CacheKey& key) override;
  absl::Status Put(const CacheKey& key, const Artifact& value) override;
  CacheStats Stats() const override;

  // Where the entry for `key` lives (whether or not it exists).
  std::string PathFor(const CacheKey& key) const;

 private:
  DiskCache(std::string dir, uint64_t capacity_bytes) : dir_(std::move(dir)), capacity_bytes_(capacity_bytes) {}

  // Rescans the entries; with `evict`, removes the least recently used down to 90% of capacity.
  absl::Status Scan(bool evict) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes a file that failed verification, unless another process has already replaced it.
  void DropCorrupt(const std::string& path, const struct stat& opened);

  const std::string dir_;
  const uint64_t capacity_bytes_;
  mutable absl::Mutex mu_;
  CacheStats stats_ ABSL_GUARDED_BY(mu_);  // entries and bytes: as of the last scan plus our writes
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_DISK_CACHE_H_
