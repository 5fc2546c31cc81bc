#include "tests/agent/test_model.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace kiln::agent {

absl::StatusOr<std::string> TestModelExecutable() {
  static const absl::StatusOr<std::string>* const built = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string out = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/agent_test_model.kx");
    std::string cmd = absl::StrCat("client/cli/kiln build tests/agent/testdata/model.py -o ", out, " 2>&1");
    if (std::system(cmd.c_str()) != 0) {
      return new absl::StatusOr<std::string>(absl::InternalError(absl::StrCat("failed: ", cmd)));
    }
    std::ifstream in(out, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return new absl::StatusOr<std::string>(ss.str());
  }();
  return *built;
}

}  // namespace kiln::agent
