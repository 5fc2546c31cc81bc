// Where kilnd sends a compile that missed every cache tier (DESIGN.md §2 step 4): a pool of worker
// processes per target (worker_pool.h), or the daemon's own process (in_process_backend.h, for
// debugging and for tests of the service itself).
//
// The job carries the module as its canonical serialization (server/cache/key.h), the form the
// cache key was computed from, so the executable a worker builds is the one the key names.
#ifndef KILN_SERVER_POOL_BACKEND_H_
#define KILN_SERVER_POOL_BACKEND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kiln::server {

struct CompileJob {
  std::string module;  // CanonicalModuleBytes of the parsed, verified module
  std::string target;  // normalized (driver::NormalizeTarget)
  std::vector<std::string> entries;
  bool checked = false;  // CompileRequest.checked: driver::BuildOptions::checked
  // Who asked (the token's name, else the peer): queues are fair across clients.
  std::string client;
  absl::Time deadline = absl::InfiniteFuture();
};

struct CompileOutput {
  std::string executable;  // vm::Executable::Serialize()
  std::vector<std::string> functions;  // the function table's names, in order
  absl::Duration compile_time;
};

// Counters of one target's pool since it started (StatResponse.pools).
struct PoolCounters {
  std::string target;
  uint32_t workers = 0;
  uint32_t busy = 0;
  uint32_t queued = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t worker_restarts = 0;
};

// Implementations are thread-safe.
class CompileBackend {
 public:
  virtual ~CompileBackend() = default;
  // Errors: INVALID_ARGUMENT (the compiler rejected the module: its message), DEADLINE_EXCEEDED
  // (past job.deadline or the per-job CPU limit), INTERNAL (the worker died: how),
  // RESOURCE_EXHAUSTED (the queue is full), UNAVAILABLE (shutting down).
  virtual absl::StatusOr<CompileOutput> Compile(const CompileJob& job) = 0;
  virtual std::vector<PoolCounters> Stats() const = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_POOL_BACKEND_H_
