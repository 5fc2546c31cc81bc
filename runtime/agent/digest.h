// SHA-256 of executables, as kilnd names them (CompileResponse.digest: lower-case hex of the
// executable's bytes). The agent verifies every executable it loads against the digest the client
// asked for. libcrypto directly: runtime/ must not depend on server/cache's wrapper.
#ifndef KILN_RUNTIME_AGENT_DIGEST_H_
#define KILN_RUNTIME_AGENT_DIGEST_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kiln::agent {

// Incremental hashing (an upload or a fetch arrives in chunks).
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(absl::string_view data);
  // Lower-case hex of the digest (64 characters). The hasher must not be used afterwards.
  std::string FinishHex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string Sha256Hex(absl::string_view data);

// INVALID_ARGUMENT unless `digest` is 64 lower-case hex digits. Digests name files in the cache
// directory, so nothing else may pass.
absl::Status CheckDigestSyntax(absl::string_view digest);

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_DIGEST_H_
