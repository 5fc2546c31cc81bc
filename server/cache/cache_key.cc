#include "server/cache/cache_key.h"

#include "absl/strings/str_cat.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<CacheKey> CacheKey::FromDigest(absl::string_view digest) {
  if (digest.size() != kSha256Bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache key: expected a ", kSha256Bytes, "-byte digest, got ", digest.size(), " bytes"));
  }
  return CacheKey(std::string(digest));
}

absl::StatusOr<CacheKey> CacheKey::FromHex(absl::string_view hex) {
  if (hex.size() != 2 * kSha256Bytes) {
    return absl::InvalidArgumentError(absl::StrCat("cache key: expected ", 2 * kSha256Bytes,
                                                   " hex digits, got ", hex.size()));
  }
  std::string bytes(kSha256Bytes, '\0');
  for (size_t i = 0; i < kSha256Bytes; ++i) {
    int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return absl::InvalidArgumentError(absl::StrCat("cache key: not hex: ", hex));
    bytes[i] = static_cast<char>(hi * 16 + lo);
  }
  return CacheKey(std::move(bytes));
}

std::string CacheKey::Hex() const { return ToHex(digest_); }

}  // namespace kiln::server
