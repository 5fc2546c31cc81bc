#include "client/cli/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::cli {

absl::Status PrepareOutputDir(const std::string& dir) {
  auto fail = [&](const std::string& why) {
    return absl::FailedPreconditionError(absl::StrCat("output directory ", dir, ": ", why));
  };
  // mkdir -p: each prefix that is missing is created; one that exists must be a directory.
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    struct stat st;
    if (stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return fail(absl::StrCat(prefix, " is not a directory"));
      continue;
    }
    if (errno != ENOENT) return fail(absl::StrCat("cannot access ", prefix, ": ", std::strerror(errno)));
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      return fail(absl::StrCat("cannot create ", prefix, ": ", std::strerror(errno)));
    }
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) return fail(absl::StrCat("is not writable: ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status ReplaceFileAtomically(const std::string& path, const std::string& data) {
  std::string tmpl = path + ".kiln-tmp-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temporary file next to ", path, ": ", std::strerror(errno)));
  std::string tmp = buf.data();
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(fd);
    std::remove(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", what, ": ", std::strerror(err)));
  };
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write");
    done += static_cast<size_t>(n);
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && fchmod(fd, st.st_mode & 07777) != 0) return fail("chmod");
  if (fsync(fd) != 0) return fail("fsync");
  if (close(fd) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot replace ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace kiln::cli
