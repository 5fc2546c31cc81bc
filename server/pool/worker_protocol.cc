#include "server/pool/worker_protocol.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

// Reads grow the buffer by at most this much per step (see the header: never trust the length).
constexpr size_t kReadChunk = size_t{1} << 20;

// Waits until `fd` is ready for `events` or the deadline passes.
absl::Status WaitFor(int fd, short events, absl::Time deadline) {
  while (true) {
    int timeout_ms = -1;
    if (deadline != absl::InfiniteFuture()) {
      absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("the deadline passed");
      timeout_ms = static_cast<int>(
          std::min<int64_t>(absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))), INT_MAX));
    }
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, timeout_ms);
    if (rc > 0) return absl::OkStatus();  // ready, or HUP/ERR: the read or write reports which
    if (rc == 0) continue;                // the loop rechecks the deadline
    if (errno != EINTR) return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
  }
}

// Reads exactly `n` bytes into `out` (appending). `*got_any` says whether any byte arrived.
absl::Status ReadExactly(int fd, size_t n, absl::Time deadline, std::string* out, bool* got_any) {
  while (n > 0) {
    if (absl::Status s = WaitFor(fd, POLLIN, deadline); !s.ok()) return s;
    size_t old = out->size();
    size_t step = std::min(n, kReadChunk);
    out->resize(old + step);
    ssize_t rc = read(fd, out->data() + old, step);
    if (rc < 0) {
      out->resize(old);
      if (errno == EINTR || errno == EAGAIN) continue;
      // The peer closed its socket with our bytes unread (it exited before reading them).
      if (errno == ECONNRESET) return absl::DataLossError("the peer reset the connection");
      return absl::InternalError(absl::StrCat("read: ", std::strerror(errno)));
    }
    out->resize(old + rc);
    if (rc == 0) return absl::DataLossError("end of stream inside a frame");
    *got_any = true;
    n -= rc;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFrame(int fd, absl::string_view payload, absl::Time deadline) {
  if (payload.size() > kMaxFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a frame of ", payload.size(), " bytes is over the limit of ", kMaxFrameBytes));
  }
  std::string header(8, '\0');
  uint64_t size = payload.size();
  for (int i = 0; i < 8; ++i) header[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  bool is_socket = true;
  for (absl::string_view part : {absl::string_view(header), payload}) {
    while (!part.empty()) {
      if (absl::Status s = WaitFor(fd, POLLOUT, deadline); !s.ok()) return s;
      ssize_t rc = -1;
      if (is_socket) {
        rc = send(fd, part.data(), part.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (rc < 0 && errno == ENOTSOCK) {
          is_socket = false;
          continue;
        }
      } else {
        rc = write(fd, part.data(), part.size());
      }
      if (rc < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        if (errno == EPIPE || errno == ECONNRESET) return absl::UnavailableError("the peer closed its end");
        return absl::InternalError(absl::StrCat("write: ", std::strerror(errno)));
      }
      part.remove_prefix(rc);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFrame(int fd, uint64_t max_bytes, absl::Time deadline) {
  std::string header;
  bool got_any = false;
  absl::Status s = ReadExactly(fd, 8, deadline, &header, &got_any);
  if (absl::IsDataLoss(s) && !got_any) return absl::OutOfRangeError("end of stream");
  if (!s.ok()) return s;
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{static_cast<unsigned char>(header[i])} << (8 * i);
  if (size > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a frame announces ", size, " bytes, over the limit of ", max_bytes));
  }
  std::string payload;
  if (absl::Status body = ReadExactly(fd, size, deadline, &payload, &got_any); !body.ok()) return body;
  return payload;
}

}  // namespace kiln::server
