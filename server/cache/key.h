// The cache key of a compile (DESIGN.md §2 step 3): SHA-256 over
//   the module's canonical serialization + the normalized target + options + entries +
//   symbolic-variable bindings + the compiler version,
// each part length-prefixed, so that no two different inputs frame to the same bytes. A checked
// build (KeyMaterial::checked) adds a "checked" part, and its canonical module keeps its spans.
//
// The canonical serialization is compiler/ir/serialize.h's binary form (deterministic: the same IR
// gives the same bytes) with what does not reach the executable removed: source spans, their file
// names and the producer string (the version is hashed on its own). So TVMScript that differs only
// in layout, comments or file name keys the same. Names are kept: function names, parameter names
// and variable names can appear in the executable (function table, kernel symbols, error
// messages), and a cache must return exactly the bytes a local build would write.
#ifndef KILN_SERVER_CACHE_KEY_H_
#define KILN_SERVER_CACHE_KEY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"
#include "compiler/version.h"
#include "server/cache/cache_key.h"

namespace kiln::server {

// Everything besides the module that decides the executable's bytes.
struct KeyMaterial {
  std::string target;  // as the client wrote it; normalized by ComputeCacheKey
  std::map<std::string, std::string> options;
  std::vector<std::string> entries;  // order kept: it is the function table's order
  std::map<std::string, std::string> extra_vars;
  bool checked = false;  // checked mode; its canonical module keeps the spans (see below)
  std::string compiler_version = kKilnVersion;  // a test may pretend to be another compiler
};

// The module's serialization with spans, span sources and producer cleared (see above). With
// `keep_spans` (checked mode, whose kernels report source locations) only the producer is cleared.
absl::StatusOr<std::string> CanonicalModuleBytes(const ir::IRModule& module, bool keep_spans = false);

// The key of a module already in canonical form, for an already normalized target (material.target
// is not read): what ComputeCacheKey computes, for a caller that needs the canonical bytes too.
CacheKey CacheKeyFor(absl::string_view canonical, absl::string_view normalized_target, const KeyMaterial& material);

// INVALID_ARGUMENT for a target driver::NormalizeTarget rejects, or a module that does not
// serialize.
absl::StatusOr<CacheKey> ComputeCacheKey(const ir::IRModule& module, const KeyMaterial& material);

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_KEY_H_
