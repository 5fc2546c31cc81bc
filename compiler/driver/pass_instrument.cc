#include "compiler/driver/pass_instrument.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::driver {

absl::StatusOr<ir::IRModule> RunPass(absl::string_view name, const ModulePass& pass, const ir::IRModule& module,
                                     const PassHooks& hooks, const ModuleVerifier& verify) {
  absl::StatusOr<ir::IRModule> out = pass(module);
  if (!out.ok()) return out.status();
  if (hooks.verify_each && verify) {
    absl::Status st = verify(*out);
    if (!st.ok()) {
      return absl::InternalError(absl::StrCat("verifier failed after pass ", name, ": ", st.message()));
    }
  }
  if (hooks.after_pass) hooks.after_pass(name, *out);
  return out;
}

absl::Status CheckPassSelection(const std::vector<std::string>& selection, const std::vector<std::string>& known) {
  for (const std::string& s : selection) {
    if (s == "all" || std::find(known.begin(), known.end(), s) != known.end()) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("unknown pass '", s, "' (passes: all, ", absl::StrJoin(known, ", "), ")"));
  }
  return absl::OkStatus();
}

bool PassSelected(const std::vector<std::string>& selection, absl::string_view pass) {
  return std::any_of(selection.begin(), selection.end(),
                     [&](const std::string& s) { return s == "all" || s == pass; });
}

}  // namespace kiln::driver
