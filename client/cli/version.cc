// `kiln version`: the kiln version and the LLVM it compiles with (asked from libLLVM at run time,
// so a mismatched shared library shows).
#include "client/cli/version.h"

#include <cstdio>

#include "compiler/version.h"
#include "llvm-c/Core.h"

namespace kiln::cli {

int RunVersion(const Args& args) {
  if (!args.positional().empty()) {
    std::fprintf(stderr, "kiln version: unexpected argument '%s'\nusage: kiln version\n",
                 args.positional()[0].c_str());
    return 2;
  }
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  std::printf("kiln %s\nLLVM %u.%u.%u\n", kKilnVersion, major, minor, patch);
  return 0;
}

}  // namespace kiln::cli
