// Running the toolchain's own checkers from backend tests (ptxas on PTX, llvm-readobj on code
// objects): a scratch file under the test's temporary directory, and a command's exit status and
// output.
#ifndef KILN_COMPILER_TARGET_TESTING_TOOLS_H_
#define KILN_COMPILER_TARGET_TESTING_TOOLS_H_

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace kiln::codegen::testing {

inline constexpr char kPtxas[] = "/usr/local/cuda/bin/ptxas";

// Writes `data` to `name` under $TEST_TMPDIR (else /tmp) and returns its path.
inline std::string WriteTemp(const std::string& name, const std::string& data) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

// Runs `cmd` with stderr folded into stdout; returns its exit status and appends its output.
inline int RunCommand(const std::string& cmd, std::string* out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  return pclose(p);
}

}  // namespace kiln::codegen::testing

#endif  // KILN_COMPILER_TARGET_TESTING_TOOLS_H_
