// Bearer-token authorization for kilnd (issue 12, "Security").
//
// A token file lists one token per line:
//
//   # comment
//   <token> <name> <permission>[,<permission>...]
//
// Permissions are `compile` (Compile, CompileStream, FetchArtifact, Check, Format, ListTargets,
// InspectArtifact, and leasing agents of the farm), `agent` (a kiln-agent registering with the farm
// and fetching executables) and `admin` (Stat; admin implies the others). The name is what logs, metrics and the pool's
// fairness see; the token itself is never logged. Clients send `authorization: Bearer <token>`.
//
// Without a token file every caller is allowed, as `anonymous`: the embedded default listens on
// loopback only.
#ifndef KILN_SERVER_SERVICE_AUTH_H_
#define KILN_SERVER_SERVICE_AUTH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::server {

enum class Permission {
  kCompile,
  kAgent,
  kAdmin,
  kFetch,  // FetchArtifact: held by `compile` and by `agent` tokens
};

class TokenTable {
 public:
  // An empty table: authorization is off.
  TokenTable() = default;
  // INVALID_ARGUMENT naming the file and line for a malformed entry; NOT_FOUND if unreadable.
  static absl::StatusOr<TokenTable> Load(const std::string& path);
  static absl::StatusOr<TokenTable> Parse(absl::string_view text, absl::string_view filename);

  bool enabled() const { return !entries_.empty(); }

  // The caller's name, from the `authorization` metadata value (nullptr: none sent).
  // UNAUTHENTICATED for a missing, malformed or unknown token; PERMISSION_DENIED for a known token
  // without `needed`. Token comparison takes the same time wherever the tokens differ.
  absl::StatusOr<std::string> Authorize(const std::string* authorization, Permission needed) const;

 private:
  struct Entry {
    std::string token;
    std::string name;
    bool compile = false;
    bool agent = false;
    bool admin = false;
  };
  std::vector<Entry> entries_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_AUTH_H_
