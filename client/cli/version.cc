// `kiln version`: the kiln version and the LLVM it compiles with (asked from libLLVM at run time,
// so a mismatched shared library shows).
#include "client/cli/version.h"

#include <cstdio>

#include "compiler/version.h"
#include "llvm-c/Core.h"

namespace kiln::cli {

int RunVersion(const Args& args) {
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  std::printf("kiln %s\nLLVM %u.%u.%u\n", kKilnVersion, major, minor, patch);
  return 0;
}

}  // namespace kiln::cli
