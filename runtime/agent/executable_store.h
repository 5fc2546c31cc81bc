// Where kiln-agent's executables come from: an in-memory table of the executables sessions are
// using (sessions that load one digest share one deserialized Executable), a local disk cache
// (--cache-dir; files named by digest, written tmp + rename), and kilnd's FetchArtifact (resumed
// from the bytes already received when a stream breaks). Every byte that reaches a session was
// hashed and found equal to the digest asked for, and every executable passed
// Executable::Deserialize's validation: the disk and kilnd are trusted for nothing.
//
// Thread-safe.
#ifndef KILN_RUNTIME_AGENT_EXECUTABLE_STORE_H_
#define KILN_RUNTIME_AGENT_EXECUTABLE_STORE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/channel.h"
#include "runtime/vm/executable.h"

namespace kiln::agent {

struct ExecutableStoreOptions {
  // Empty: no disk cache.
  std::string cache_dir;
  // kilnd's CompileService; null: the agent only has what it was sent.
  std::shared_ptr<grpc::Channel> kilnd;
  // Sent to kilnd as "authorization: Bearer <token>" when not empty.
  std::string kilnd_token;
  // Larger executables are refused (uploads and fetches alike).
  uint64_t max_bytes = uint64_t{1} << 30;
  // Calls of one fetch in a row that bring no bytes before it gives up (each resumes where the last
  // stopped; see artifact_fetch.h), each bounded by fetch_timeout.
  int fetch_attempts = 3;
  std::chrono::seconds fetch_timeout{300};
};

struct LoadedExecutable {
  std::shared_ptr<const vm::Executable> executable;
  uint64_t size = 0;
  std::string source;  // "memory", "disk", "kilnd", "upload"
};

class ExecutableStore {
 public:
  explicit ExecutableStore(ExecutableStoreOptions options);

  // The executable named `digest`: memory, then disk, then kilnd. NOT_FOUND when nobody has it;
  // UNAVAILABLE when kilnd cannot be reached; INVALID_ARGUMENT for a malformed digest, bytes that
  // do not hash to it, or an executable the loader rejects.
  absl::StatusOr<LoadedExecutable> Get(const std::string& digest);
  // An uploaded executable: checked against `digest`, validated, cached on disk.
  absl::StatusOr<LoadedExecutable> Put(const std::string& digest, std::string bytes, std::string source = "upload");

  uint64_t max_bytes() const { return options_.max_bytes; }

 private:
  absl::StatusOr<std::string> ReadDisk(const std::string& digest);
  void WriteDisk(const std::string& digest, absl::string_view bytes);
  absl::StatusOr<std::string> Fetch(const std::string& digest);
  absl::StatusOr<LoadedExecutable> Admit(const std::string& digest, const std::string& bytes, std::string source);

  ExecutableStoreOptions options_;
  std::atomic<uint64_t> tmp_seq_{0};  // names concurrent writers' temporary files apart
  absl::Mutex mu_;
  // Shared while some session holds it; a lookup that finds an expired entry erases it.
  std::unordered_map<std::string, std::weak_ptr<const vm::Executable>> live_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, uint64_t> live_size_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_EXECUTABLE_STORE_H_
