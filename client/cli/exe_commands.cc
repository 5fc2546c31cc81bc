#include "client/cli/exe_commands.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "runtime/vm/executable.h"

namespace kiln::cli {

int RunInspect(const Args& args) {
  if (args.positional().size() != 1) {
    std::fprintf(stderr, "kiln inspect: expected one file (see `kiln inspect --help`)\n");
    return 2;
  }
  int views = args.Has("--text") + args.Has("--python") + args.Has("--stats");
  if (views > 1) {
    std::fprintf(stderr, "kiln inspect: choose one of --text, --python, --stats\n");
    return 2;
  }
  const std::string& path = args.positional()[0];
  absl::StatusOr<vm::Executable> exec = driver::LoadOrBuildExecutable(path, args.Get("--target", "llvm"));
  if (!exec.ok()) {
    std::fprintf(stderr, "kiln inspect: %s\n", std::string(exec.status().message()).c_str());
    return 1;
  }
  std::string out = args.Has("--python") ? exec->AsPython() : args.Has("--stats") ? exec->Stats() : exec->AsText();
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace kiln::cli
