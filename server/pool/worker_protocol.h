// The byte protocol between WorkerPool and kilnd-worker: on the worker's stdin and stdout, frames
// of an 8-byte little-endian length followed by that many bytes (a serialized
// kiln.v1.worker.WorkerJob one way, a WorkerResult the other). A reader never trusts the length:
// it is checked against a cap before anything is read, and the buffer grows with the bytes that
// actually arrive, so a lying peer cannot make the reader allocate what it did not send.
#ifndef KILN_SERVER_POOL_WORKER_PROTOCOL_H_
#define KILN_SERVER_POOL_WORKER_PROTOCOL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kiln::server {

// The default cap on one frame: protobuf's own limit on a message (2 GiB - 1).
inline constexpr uint64_t kMaxFrameBytes = (uint64_t{1} << 31) - 1;

// kilnd-worker's exit status when an allocation failed (the per-job memory limit, RLIMIT_AS, or the
// machine): its heap may be inconsistent, so it exits instead of answering.
inline constexpr int kWorkerOutOfMemoryExit = 75;

// Writes one frame. On a socket the write never raises SIGPIPE (a dead peer is an error, not a
// signal to the daemon). Errors: DEADLINE_EXCEEDED (the peer did not take the bytes in time),
// UNAVAILABLE (the peer closed its end), INTERNAL (other I/O errors), INVALID_ARGUMENT (payload
// over kMaxFrameBytes).
absl::Status WriteFrame(int fd, absl::string_view payload, absl::Time deadline = absl::InfiniteFuture());

// Reads one frame of at most `max_bytes`. Errors: OUT_OF_RANGE (end of stream, or a reset
// connection, before a frame started: the peer is gone; a reset means it exited without reading
// what it was sent), DATA_LOSS (the same inside a frame), INVALID_ARGUMENT
// (the announced length is over `max_bytes`), DEADLINE_EXCEEDED, INTERNAL (I/O errors).
absl::StatusOr<std::string> ReadFrame(int fd, uint64_t max_bytes = kMaxFrameBytes,
                                      absl::Time deadline = absl::InfiniteFuture());

}  // namespace kiln::server

#endif  // KILN_SERVER_POOL_WORKER_PROTOCOL_H_
