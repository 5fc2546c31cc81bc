// Finds ../shared by walking up from every plausible anchor of the checkout; see shared_dir.h.
#include "tests/util/shared_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::testing {
namespace fs = std::filesystem;

namespace {

bool HasCorpus(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "corpus", ec);
}

// Real path of `p`, or empty when it does not exist.
fs::path Real(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::canonical(p, ec);
  return ec ? fs::path() : r;
}

}  // namespace

absl::StatusOr<std::string> SharedDir() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("KILN_SHARED_DIR"); env && *env) {
    fs::path p = Real(env);
    if (!p.empty() && HasCorpus(p)) return p.string();
    tried.push_back(absl::StrCat("$KILN_SHARED_DIR=", env));
  }
  std::vector<fs::path> anchors;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir && workspace) {
    // The WORKSPACE runfile is a symlink into the real checkout.
    fs::path ws = Real(fs::path(srcdir) / workspace / "WORKSPACE");
    if (!ws.empty()) anchors.push_back(ws.parent_path());
  }
  if (const char* bwd = std::getenv("BUILD_WORKSPACE_DIRECTORY")) anchors.push_back(Real(bwd));
  anchors.push_back(Real(fs::current_path()));
  anchors.push_back(Real("/proc/self/exe"));
  for (const fs::path& anchor : anchors) {
    if (anchor.empty()) continue;
    for (fs::path dir = anchor; !dir.empty(); dir = dir.parent_path()) {
      fs::path candidate = dir / "shared";
      if (HasCorpus(candidate)) return Real(candidate).string();
      tried.push_back(candidate.string());
      if (dir == dir.root_path()) break;
    }
  }
  return absl::NotFoundError(absl::StrCat("shared/ directory with corpus/ not found; tried: ",
                                          absl::StrJoin(tried, ", ")));
}

}  // namespace kiln::testing
