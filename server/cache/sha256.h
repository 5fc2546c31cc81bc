// SHA-256 through OpenSSL's libcrypto: cache keys, artifact digests and the disk cache's payload
// checksums. A thin wrapper so that callers never see OpenSSL types.
#ifndef KILN_SERVER_CACHE_SHA256_H_
#define KILN_SERVER_CACHE_SHA256_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"

namespace kiln::server {

inline constexpr size_t kSha256Bytes = 32;

// Incremental hashing: Update any number of times, then Finish once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(absl::string_view data);
  // The 32-byte digest. The hasher must not be used afterwards.
  std::string Finish();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// The 32-byte digest of `data`.
std::string Sha256Digest(absl::string_view data);
// Lower-case hex of any bytes (64 characters for a digest).
std::string ToHex(absl::string_view bytes);

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_SHA256_H_
