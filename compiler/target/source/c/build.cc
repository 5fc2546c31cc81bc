// From generated C source to a kernel library: the system C compiler, run as a subprocess, builds
// the shared object (the LLVM backend's counterpart is compiler/target/llvm/build.cc).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/target/source/c/codegen_c.h"

namespace kiln::codegen {
namespace {

std::string ShellQuote(const std::string& s) {
  return "'" + absl::StrReplaceAll(s, {{"'", "'\\''"}}) + "'";
}

}  // namespace

absl::Status CompileCToSharedLibrary(const std::string& source, const std::string& out_path,
                                     const CCompileOptions& options) {
  std::string cc = options.compiler;
  if (cc.empty()) {
    const char* env = std::getenv("KILN_CC");
    cc = env != nullptr && *env != '\0' ? env : "cc";
  }
  std::string src_path = out_path + ".c";
  {
    std::ofstream f(src_path, std::ios::binary);
    f << source;
    if (!f) return absl::InternalError(absl::StrCat("cannot write ", src_path));
  }
  std::string log_path = out_path + ".log";
  std::string cmd = ShellQuote(cc);
  for (const std::string& flag : options.flags) cmd += " " + ShellQuote(flag);
  cmd += absl::StrCat(" -shared -o ", ShellQuote(out_path), " ", ShellQuote(src_path), " -lm > ",
                      ShellQuote(log_path), " 2>&1");
  int rc = std::system(cmd.c_str());
  std::ifstream log(log_path);
  std::stringstream text;
  text << log.rdbuf();
  std::remove(log_path.c_str());
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("C compiler failed (", cmd, "):\n", text.str()));
  }
  std::remove(src_path.c_str());
  return absl::OkStatus();
}

}  // namespace kiln::codegen
