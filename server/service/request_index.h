// The cache keys of Compile requests kilnd has answered, by a digest of the request exactly as sent
// (the source or IR bytes, file name, target as written, options, entries, extra_vars, and the
// compiler version). A repeated request finds its key here and goes straight to the cache, without
// parsing, verifying and serializing the module again: a cache hit then costs a hash of the request
// and two lookups. The index only ever maps a request to the key the slow path computed for that
// same request (the mapping is deterministic), so it can never answer wrongly; an entry it lost is
// recomputed. Bounded: the oldest entries go first.
#ifndef KILN_SERVER_SERVICE_REQUEST_INDEX_H_
#define KILN_SERVER_SERVICE_REQUEST_INDEX_H_

#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "proto/compile.pb.h"
#include "server/cache/cache_key.h"

namespace kiln::server {

class RequestIndex {
 public:
  struct Entry {
    CacheKey key;
    // The parse's warnings, which a hit must report as the first answer did.
    google::protobuf::RepeatedPtrField<v1::Diagnostic> warnings;
  };

  explicit RequestIndex(size_t capacity) : capacity_(capacity) {}

  // The digest of `req` as sent, max_inline_bytes aside (it does not change the executable).
  static CacheKey Digest(const v1::CompileRequest& req);

  std::optional<Entry> Find(const CacheKey& digest) const;
  void Insert(const CacheKey& digest, Entry entry);
  size_t size() const;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<CacheKey, Entry> entries_ ABSL_GUARDED_BY(mu_);
  std::deque<CacheKey> order_ ABSL_GUARDED_BY(mu_);  // oldest first
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_REQUEST_INDEX_H_
