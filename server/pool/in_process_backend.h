// A CompileBackend that compiles on the calling thread, inside kilnd (`--workers-per-target 0`):
// no isolation from a crashing compile, for debugging the compiler under the service and for
// tests of the service itself. Deadlines are checked before the compile starts only.
#ifndef KILN_SERVER_POOL_IN_PROCESS_BACKEND_H_
#define KILN_SERVER_POOL_IN_PROCESS_BACKEND_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "server/pool/backend.h"

namespace kiln::server {

// Deserializes job.module and runs driver::BuildModuleExecutable, as a worker process does.
absl::StatusOr<CompileOutput> CompileJobInProcess(const CompileJob& job);

class InProcessBackend : public CompileBackend {
 public:
  absl::StatusOr<CompileOutput> Compile(const CompileJob& job) override;
  std::vector<PoolCounters> Stats() const override;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, PoolCounters> counters_ ABSL_GUARDED_BY(mu_);  // by target
};

}  // namespace kiln::server

#endif  // KILN_SERVER_POOL_IN_PROCESS_BACKEND_H_
