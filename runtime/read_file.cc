#include "runtime/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::runtime {
namespace {

absl::Status OpenError(const std::string& path, int err) {
  std::string message = absl::StrCat("cannot open ", path, ": ", std::strerror(err));
  if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
  return absl::FailedPreconditionError(message);
}

absl::Status TooLarge(const std::string& path, int64_t max_bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat(path, " is larger than the ", max_bytes, "-byte limit on input files"));
}

}  // namespace

absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. The type is checked
  // on the open descriptor, so the file cannot be swapped between the check and the read.
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == EISDIR) return absl::FailedPreconditionError(absl::StrCat(path, " is a directory"));
    return OpenError(path, err);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return OpenError(path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, " is a directory"));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a regular file"));
  }
  if (st.st_size > max_bytes) {
    close(fd);
    return TooLarge(path, max_bytes);
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t have = 0;
  while (true) {
    if (have == out.size()) {
      // The file may have grown since fstat: keep reading, within the bound.
      if (static_cast<int64_t>(out.size()) >= max_bytes) {
        char probe;
        ssize_t n = read(fd, &probe, 1);
        close(fd);
        if (n > 0) return TooLarge(path, max_bytes);
        out.resize(have);
        return out;
      }
      out.resize(static_cast<size_t>(std::min<int64_t>(max_bytes, static_cast<int64_t>(out.size()) * 2 + 4096)));
    }
    ssize_t n = read(fd, out.data() + have, out.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return absl::DataLossError(absl::StrCat("error reading ", path, ": ", std::strerror(err)));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  close(fd);
  out.resize(have);
  return out;
}

}  // namespace kiln::runtime
