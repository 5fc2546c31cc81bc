// The name of one cache entry: a SHA-256 digest (key.h computes it from a compile's inputs).
// Kept apart from key.h so that the cache tiers do not depend on the compiler.
#ifndef KILN_SERVER_CACHE_CACHE_KEY_H_
#define KILN_SERVER_CACHE_CACHE_KEY_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::server {

// A 32-byte SHA-256 digest naming one cache entry.
class CacheKey {
 public:
  // `digest` must be kSha256Bytes long (FromDigest checks).
  static absl::StatusOr<CacheKey> FromDigest(absl::string_view digest);
  // Parses the 64-character hex form.
  static absl::StatusOr<CacheKey> FromHex(absl::string_view hex);

  const std::string& bytes() const { return digest_; }
  std::string Hex() const;

  friend bool operator==(const CacheKey& a, const CacheKey& b) { return a.digest_ == b.digest_; }
  friend bool operator!=(const CacheKey& a, const CacheKey& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const CacheKey& k) {
    return H::combine(std::move(h), k.digest_);
  }

 private:
  explicit CacheKey(std::string digest) : digest_(std::move(digest)) {}
  std::string digest_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_CACHE_KEY_H_
