#include "server/cache/sha256.h"

#include <openssl/sha.h>

namespace kiln::server {

// SHA256_CTX is deprecated in OpenSSL 3 in favour of EVP, but EVP allocates a context per hash
// and goes through a provider lookup; the low-level API is still shipped and is the fast path for
// many small keys.
struct Sha256::Ctx {
  SHA256_CTX c;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) { SHA256_Init(&ctx_->c); }
Sha256::~Sha256() = default;

void Sha256::Update(absl::string_view data) { SHA256_Update(&ctx_->c, data.data(), data.size()); }

std::string Sha256::Finish() {
  std::string out(kSha256Bytes, '\0');
  SHA256_Final(reinterpret_cast<unsigned char*>(out.data()), &ctx_->c);
  return out;
}
#pragma GCC diagnostic pop

std::string Sha256Digest(absl::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.Finish();
}

std::string ToHex(absl::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace kiln::server
