// Reading an untrusted input file whole, with a size bound. Every command that takes a file path
// (sources, serialized IR, .npy inputs, executables) reads it through here, so `/dev/zero`, a FIFO
// nobody writes to, a directory or a file larger than memory is one clear error, never a hang or
// a bad_alloc.
#ifndef KILN_RUNTIME_READ_FILE_H_
#define KILN_RUNTIME_READ_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace kiln::runtime {

// The default bound: larger than any model kiln runs on a CPU, small enough to fail before memory.
inline constexpr int64_t kMaxInputFileBytes = int64_t{4} << 30;  // 4 GiB

// The bytes of the regular file `path`. Errors name the path:
//   NOT_FOUND / PERMISSION_DENIED  cannot open it (with strerror);
//   FAILED_PRECONDITION            "PATH is a directory", "PATH is not a regular file" (a FIFO, a
//                                  device, a socket: opened without blocking, never read);
//   RESOURCE_EXHAUSTED             larger than `max_bytes` (checked before reading, and again while
//                                  reading, since a file may grow);
//   DATA_LOSS                      a read error.
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, int64_t max_bytes = kMaxInputFileBytes);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_READ_FILE_H_
