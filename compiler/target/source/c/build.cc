// From generated C source to a kernel library: the system C compiler, run as a subprocess, builds
// the shared object (the LLVM backend's counterpart is compiler/target/llvm/build.cc).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

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
  // The source goes into a private directory under a fixed name: the compiler records the file
  // name in the library's symbol table, and a name that differs per build would make equal
  // modules build different bytes (a cache keyed on the module must get the same artifact).
  std::string dir_template = out_path + ".src.XXXXXX";
  std::vector<char> dir_buf(dir_template.begin(), dir_template.end());
  dir_buf.push_back('\0');
  if (mkdtemp(dir_buf.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a directory next to ", out_path, ": ", strerror(errno)));
  }
  std::string dir = dir_buf.data();
  std::string src_path = dir + "/kernels.c";
  std::string log_path = dir + "/cc.log";
  // The whole directory goes, with whatever else the compiler left in it.
  auto cleanup = [&] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  };
  {
    std::ofstream f(src_path, std::ios::binary);
    f << source;
    if (!f) {
      cleanup();
      return absl::InternalError(absl::StrCat("cannot write ", src_path));
    }
  }
  std::string cmd = ShellQuote(cc);
  for (const std::string& flag : options.flags) cmd += " " + ShellQuote(flag);
  cmd += absl::StrCat(" -shared -o ", ShellQuote(out_path), " ", ShellQuote(src_path), " -lm > ",
                      ShellQuote(log_path), " 2>&1");
  int rc = std::system(cmd.c_str());
  std::stringstream text;
  {
    std::ifstream log(log_path);
    text << log.rdbuf();
  }
  cleanup();
  if (rc != 0) {
    std::remove(out_path.c_str());  // a partial library must not look like a build
    return absl::InternalError(absl::StrCat("C compiler failed (", cmd, "):\n", text.str()));
  }
  return absl::OkStatus();
}

}  // namespace kiln::codegen
