#include "runtime/agent/digest.h"

#include <openssl/evp.h>

#include "absl/strings/str_cat.h"

namespace kiln::agent {

struct Sha256Hasher::Ctx {
  EVP_MD_CTX* md = nullptr;
  ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256Hasher::Sha256Hasher() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr);
}

Sha256Hasher::~Sha256Hasher() = default;

void Sha256Hasher::Update(absl::string_view data) { EVP_DigestUpdate(ctx_->md, data.data(), data.size()); }

std::string Sha256Hasher::FinishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx_->md, digest, &n);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    out.push_back(kDigits[digest[i] >> 4]);
    out.push_back(kDigits[digest[i] & 15]);
  }
  return out;
}

std::string Sha256Hex(absl::string_view data) {
  Sha256Hasher h;
  h.Update(data);
  return h.FinishHex();
}

absl::Status CheckDigestSyntax(absl::string_view digest) {
  bool ok = digest.size() == 64;
  for (char c : digest) ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("digest \"", digest.substr(0, 80), "\" is not a lower-case hex SHA-256 (64 digits)"));
  }
  return absl::OkStatus();
}

}  // namespace kiln::agent
