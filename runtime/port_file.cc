#include "runtime/port_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace kiln::runtime {

absl::Status WritePortFile(const std::string& path, int port) {
  std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return absl::InternalError(absl::StrCat("cannot write the port file ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot rename ", tmp, " to ", path));
  }
  return absl::OkStatus();
}

}  // namespace kiln::runtime
