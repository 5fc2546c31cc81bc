// kiln.v1.CompileService (proto/compile.proto): DESIGN.md §2 steps 1-5 for one request.
//
//   request --auth--> module (parsed or deserialized, verified) --key--> TieredCache
//           hit:  the action record + the executable by digest
//           miss: one CompileBackend job per key however many identical requests wait
//
// The cache holds two kinds of entries, as Bazel's remote cache does: the *action record* under the
// cache key (the executable's digest and metadata, a few hundred bytes) and the *executable* under
// its own SHA-256 digest (content addressed: FetchArtifact and kiln-agent ask for it by digest, and
// two modules that build the same bytes share one copy). A record whose executable was evicted is a
// miss.
#ifndef KILN_SERVER_SERVICE_COMPILE_SERVICE_H_
#define KILN_SERVER_SERVICE_COMPILE_SERVICE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/compile.grpc.pb.h"
#include "server/cache/tiered_cache.h"
#include "server/pool/backend.h"
#include "proto/cache.pb.h"
#include "server/service/metrics.h"
#include "server/service/request_index.h"
#include "server/service/rpc_call.h"

namespace kiln::server {

struct ServiceOptions {
  // Executables up to this size come back inline in CompileResponse (a request may ask for less).
  uint64_t max_inline_bytes = 1 << 20;
  // The largest chunk CompileStream and FetchArtifact send.
  uint32_t chunk_bytes = 1 << 20;
};

class CompileServiceImpl final : public v1::CompileService::Service {
 public:
  // `state`, `cache` and `backend` must outlive the service.
  CompileServiceImpl(ServiceOptions options, ServiceState* state, TieredCache* cache, CompileBackend* backend);

  grpc::Status Compile(grpc::ServerContext* ctx, const v1::CompileRequest* req, v1::CompileResponse* resp) override;
  grpc::Status CompileStream(grpc::ServerContext* ctx, const v1::CompileRequest* req,
                             grpc::ServerWriter<v1::ArtifactChunk>* writer) override;
  grpc::Status FetchArtifact(grpc::ServerContext* ctx, const v1::FetchArtifactRequest* req,
                             grpc::ServerWriter<v1::ArtifactChunk>* writer) override;
  grpc::Status Check(grpc::ServerContext* ctx, const v1::CheckRequest* req, v1::CheckResponse* resp) override;
  grpc::Status Format(grpc::ServerContext* ctx, const v1::FormatRequest* req, v1::FormatResponse* resp) override;
  grpc::Status Stat(grpc::ServerContext* ctx, const v1::StatRequest* req, v1::StatResponse* resp) override;
  grpc::Status ListTargets(grpc::ServerContext* ctx, const v1::ListTargetsRequest* req,
                           v1::ListTargetsResponse* resp) override;
  grpc::Status InspectArtifact(grpc::ServerContext* ctx, const v1::InspectArtifactRequest* req,
                               v1::InspectArtifactResponse* resp) override;

  // The Prometheus text of the cache tiers, the pools and the compiles.
  std::string RenderMetrics() const;

 private:
  // Compile's work, shared with CompileStream: fills `resp` (without inline bytes) and returns the
  // executable.
  absl::StatusOr<Artifact> CompileToArtifact(RpcCall& call, const v1::CompileRequest& req, v1::CompileResponse* resp,
                                             v1::Diagnostics* diagnostics);
  grpc::Status StreamArtifact(grpc::ServerContext* ctx, const Artifact& bytes, uint64_t offset, uint32_t chunk_bytes,
                              v1::CompileResponse* header, grpc::ServerWriter<v1::ArtifactChunk>* writer);
  // Fills `resp` for an answer with this record; `source` is where it came from ("compiled",
  // "coalesced" or a tier name).
  void FillResponse(RpcCall& call, const CacheKey& key, const v1::ActionRecord& record, const std::string& source,
                    uint64_t compile_micros, v1::CompileResponse* resp);
  // The executable stored under its digest, or nullptr.
  Artifact LookupExecutable(const std::string& digest_hex);

  const ServiceOptions options_;
  ServiceState* const state_;
  TieredCache* const cache_;
  CompileBackend* const backend_;
  RequestIndex index_{1 << 16};

  CounterFamily compile_answers_{"kiln_compile_answers_total",
                                 "Compile answers by where they came from (memory, disk, redis, compiled, coalesced).",
                                 {"source"}};
  HistogramFamily compile_seconds_{"kiln_compile_seconds",
                                   "Time of the compiles run for cache misses, by target kind.",
                                   {"target"},
                                   {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}};
};

}  // namespace kiln::server

#endif  // KILN_SERVER_SERVICE_COMPILE_SERVICE_H_
