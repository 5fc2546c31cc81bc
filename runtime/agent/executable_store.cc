#include "runtime/agent/executable_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "proto/compile.grpc.pb.h"
#include "runtime/agent/artifact_fetch.h"
#include "runtime/agent/digest.h"

namespace kiln::agent {

ExecutableStore::ExecutableStore(ExecutableStoreOptions options) : options_(std::move(options)) {}

absl::StatusOr<LoadedExecutable> ExecutableStore::Admit(const std::string& digest, const std::string& bytes,
                                                        std::string source) {
  std::string actual = Sha256Hex(bytes);
  if (actual != digest) {
    return absl::InvalidArgumentError(
        absl::StrCat("executable from ", source, " has digest ", actual, ", not the requested ", digest));
  }
  absl::StatusOr<vm::Executable> exec = vm::Executable::Deserialize(bytes);
  if (!exec.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("executable ", digest.substr(0, 12), " from ", source,
                                                   " does not load: ", exec.status().message()));
  }
  auto shared = std::make_shared<const vm::Executable>(*std::move(exec));
  absl::MutexLock lock(&mu_);
  live_[digest] = shared;
  live_size_[digest] = bytes.size();
  return LoadedExecutable{std::move(shared), bytes.size(), std::move(source)};
}

absl::StatusOr<LoadedExecutable> ExecutableStore::Get(const std::string& digest) {
  if (absl::Status s = CheckDigestSyntax(digest); !s.ok()) return s;
  {
    absl::MutexLock lock(&mu_);
    auto it = live_.find(digest);
    if (it != live_.end()) {
      if (std::shared_ptr<const vm::Executable> e = it->second.lock()) {
        return LoadedExecutable{std::move(e), live_size_[digest], "memory"};
      }
      live_.erase(it);
      live_size_.erase(digest);
    }
  }
  absl::StatusOr<std::string> bytes = ReadDisk(digest);
  if (bytes.ok()) {
    absl::StatusOr<LoadedExecutable> loaded = Admit(digest, *bytes, "disk");
    if (loaded.ok()) return loaded;
    // A corrupted cache file: drop it and fetch a good copy.
    std::remove(absl::StrCat(options_.cache_dir, "/", digest, ".kx").c_str());
  }
  bytes = Fetch(digest);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<LoadedExecutable> loaded = Admit(digest, *bytes, "kilnd");
  if (loaded.ok()) WriteDisk(digest, *bytes);
  return loaded;
}

absl::StatusOr<LoadedExecutable> ExecutableStore::Put(const std::string& digest, std::string bytes,
                                                      std::string source) {
  if (absl::Status s = CheckDigestSyntax(digest); !s.ok()) return s;
  absl::StatusOr<LoadedExecutable> loaded = Admit(digest, bytes, std::move(source));
  if (loaded.ok()) WriteDisk(digest, bytes);
  return loaded;
}

absl::StatusOr<std::string> ExecutableStore::ReadDisk(const std::string& digest) {
  if (options_.cache_dir.empty()) return absl::NotFoundError("no cache directory");
  std::ifstream in(absl::StrCat(options_.cache_dir, "/", digest, ".kx"), std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(digest, " is not in the disk cache"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Best effort: a cache that cannot be written costs a later refetch, never a failed load.
void ExecutableStore::WriteDisk(const std::string& digest, absl::string_view bytes) {
  if (options_.cache_dir.empty()) return;
  std::string path = absl::StrCat(options_.cache_dir, "/", digest, ".kx");
  std::string tmp = absl::StrCat(path, ".tmp.", getpid(), ".", tmp_seq_.fetch_add(1));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "kiln-agent: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
    return;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == bytes.size() && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "kiln-agent: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    std::remove(tmp.c_str());
  }
}

absl::StatusOr<std::string> ExecutableStore::Fetch(const std::string& digest) {
  if (options_.kilnd == nullptr) {
    return absl::NotFoundError(absl::StrCat("executable ", digest,
                                            " is not cached here and no kilnd is configured "
                                            "(upload it, or start the agent with --kilnd)"));
  }
  auto stub = kiln::v1::CompileService::NewStub(options_.kilnd);
  ArtifactFetchOptions o;
  o.max_bytes = options_.max_bytes;
  o.max_attempts = options_.fetch_attempts;
  o.prepare = [this](grpc::ClientContext* ctx) {
    if (!options_.kilnd_token.empty()) ctx->AddMetadata("authorization", "Bearer " + options_.kilnd_token);
    ctx->set_deadline(std::chrono::system_clock::now() + options_.fetch_timeout);
  };
  absl::StatusOr<std::string> bytes = FetchArtifact(*stub, digest, o);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("fetching executable ", digest, " from kilnd: ", bytes.status().message()));
  }
  return bytes;
}

}  // namespace kiln::agent
