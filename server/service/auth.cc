#include "server/service/auth.h"

#include <openssl/crypto.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kiln::server {

absl::StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read token file ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str(), path);
}

absl::StatusOr<TokenTable> TokenTable::Parse(absl::string_view text, absl::string_view filename) {
  TokenTable table;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(filename, ":", line_no, ": ", why,
                                                     " (expected \"<token> <name> compile|agent|admin[,...]\")"));
    };
    if (f.size() != 3) return bad("wrong number of fields");
    if (f[0].size() < 16) return bad("token shorter than 16 characters");
    Entry e{std::string(f[0]), std::string(f[1])};
    for (absl::string_view p : absl::StrSplit(f[2], ',', absl::SkipEmpty())) {
      if (p == "compile") {
        e.compile = true;
      } else if (p == "agent") {
        e.agent = true;
      } else if (p == "admin") {
        e.admin = e.agent = e.compile = true;
      } else {
        return bad(absl::StrCat("unknown permission \"", p, "\""));
      }
    }
    for (const Entry& other : table.entries_) {
      if (other.token == e.token) return bad("token listed twice");
    }
    table.entries_.push_back(std::move(e));
  }
  return table;
}

absl::StatusOr<std::string> TokenTable::Authorize(const std::string* authorization, Permission needed) const {
  if (!enabled()) return std::string("anonymous");
  if (authorization == nullptr) return absl::UnauthenticatedError("missing bearer token (authorization metadata)");
  absl::string_view token = *authorization;
  if (!absl::ConsumePrefix(&token, "Bearer ") && !absl::ConsumePrefix(&token, "bearer ")) {
    return absl::UnauthenticatedError("the authorization metadata is not \"Bearer <token>\"");
  }
  const Entry* found = nullptr;
  for (const Entry& e : entries_) {
    // Compare every entry in full: the time taken does not say which bytes matched.
    bool same = e.token.size() == token.size() && CRYPTO_memcmp(e.token.data(), token.data(), token.size()) == 0;
    if (same) found = &e;
  }
  if (found == nullptr) return absl::UnauthenticatedError("unknown bearer token");
  bool allowed = needed == Permission::kAdmin   ? found->admin
                 : needed == Permission::kAgent ? found->agent
                 : needed == Permission::kFetch ? found->agent || found->compile
                                                : found->compile;
  if (!allowed) {
    const char* name = needed == Permission::kAdmin ? "admin" : needed == Permission::kAgent ? "agent"
                       : needed == Permission::kFetch ? "compile or agent"
                                                      : "compile";
    return absl::PermissionDeniedError(absl::StrCat("token \"", found->name, "\" lacks the ", name, " permission"));
  }
  return found->name;
}

}  // namespace kiln::server
