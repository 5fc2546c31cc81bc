#include "server/service/compile_service.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "compiler/version.h"
#include "proto/cache.pb.h"
#include "server/cache/key.h"
#include "server/cache/sha256.h"
#include "server/service/request_module.h"
#include "runtime/vm/executable.h"
#include "server/service/rpc_status.h"

namespace kiln::server {

namespace {

// Compile, Check and Format requests name their module with the same fields.
template <typename Request>
ModuleSource SourceOf(const Request& r) {
  ModuleSource in{r.has_source() ? &r.source() : nullptr, r.has_ir() ? &r.ir() : nullptr, r.filename()};
  in.defines.insert(r.extra_vars().begin(), r.extra_vars().end());
  return in;
}

void AddWarnings(const v1::Diagnostics& all, google::protobuf::RepeatedPtrField<v1::Diagnostic>* out) {
  for (const v1::Diagnostic& d : all.diagnostics()) {
    if (d.severity() != v1::SEVERITY_ERROR) *out->Add() = d;
  }
}

// "llvm -mcpu=x" -> "llvm": a label with few values.
std::string TargetKind(const std::string& target) { return target.substr(0, target.find(' ')); }

v1::CacheTierHit TierHit(absl::string_view tier) {
  if (tier == "memory") return v1::CACHE_MEMORY;
  if (tier == "disk") return v1::CACHE_DISK;
  if (tier == "redis") return v1::CACHE_REDIS;
  return v1::CACHE_MISS;
}

}  // namespace

CompileServiceImpl::CompileServiceImpl(ServiceOptions options, ServiceState* state, TieredCache* cache,
                                       CompileBackend* backend)
    : options_(options), state_(state), cache_(cache), backend_(backend) {}

Artifact CompileServiceImpl::LookupExecutable(const std::string& digest_hex) {
  absl::StatusOr<CacheKey> key = CacheKey::FromHex(digest_hex);
  if (!key.ok()) return nullptr;
  return cache_->Get(*key).value;
}

absl::StatusOr<Artifact> CompileServiceImpl::CompileToArtifact(RpcCall& call, const v1::CompileRequest& req,
                                                               v1::CompileResponse* resp, v1::Diagnostics* diagnostics) {
  // A request answered before: its key without parsing, and the answer if the cache still has it.
  CacheKey request_digest = RequestIndex::Digest(req);
  if (std::optional<RequestIndex::Entry> seen = index_.Find(request_digest)) {
    TieredCache::Lookup hit = cache_->Get(seen->key);
    v1::ActionRecord record;
    Artifact exec;
    if (hit.value != nullptr && record.ParseFromString(*hit.value) && (exec = LookupExecutable(record.digest()))) {
      *resp->mutable_warnings() = seen->warnings;
      FillResponse(call, seen->key, record, std::string(cache_->tiers()[hit.tier]->name()), 0, resp);
      return exec;
    }
  }
  if (!req.options().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown compile option \"", req.options().begin()->first,
                                                   "\" (this server takes none; the target string carries -mcpu, "
                                                   "-mattr and -opt-level)"));
  }
  absl::StatusOr<std::string> target = driver::NormalizeTarget(req.target().empty() ? "llvm" : req.target());
  if (!target.ok()) return absl::InvalidArgumentError(absl::StrCat("target: ", target.status().message()));
  absl::StatusOr<ir::ObjectRef> parsed = LoadRequestModule(SourceOf(req), diagnostics);
  if (!parsed.ok()) return parsed.status();
  AddWarnings(*diagnostics, resp->mutable_warnings());
  absl::StatusOr<std::string> canonical = CanonicalModuleBytes(script::AsModule(*parsed), req.checked());
  if (!canonical.ok()) return canonical.status();

  KeyMaterial material;
  material.checked = req.checked();
  material.options.insert(req.options().begin(), req.options().end());
  material.entries.assign(req.entries().begin(), req.entries().end());
  material.extra_vars.insert(req.extra_vars().begin(), req.extra_vars().end());
  CacheKey key = CacheKeyFor(*canonical, *target, material);
  index_.Insert(request_digest, {key, resp->warnings()});

  // The executable of a compile this call ran (so it needs no second lookup).
  Artifact compiled;
  uint64_t compile_micros = 0;
  auto produce = [&]() -> absl::StatusOr<Artifact> {
    CompileJob job;
    job.module = *canonical;
    job.target = *target;
    job.entries = material.entries;
    job.checked = material.checked;
    job.client = call.client();
    job.deadline = absl::FromChrono(call.ctx()->deadline());
    absl::StatusOr<CompileOutput> out = backend_->Compile(job);
    if (!out.ok()) return out.status();
    compile_micros = static_cast<uint64_t>(absl::ToInt64Microseconds(out->compile_time));
    compile_seconds_.Observe({TargetKind(*target)}, absl::ToDoubleSeconds(out->compile_time));
    v1::ActionRecord record;
    std::string digest = Sha256Digest(out->executable);
    record.set_digest(ToHex(digest));
    v1::ArtifactMetadata* m = record.mutable_metadata();
    m->set_size(out->executable.size());
    m->set_target(*target);
    m->set_compiler_version(kKilnVersion);
    for (const std::string& f : out->functions) m->add_functions(f);
    m->set_original_compile_micros(compile_micros);
    compiled = std::make_shared<const std::string>(std::move(out->executable));
    // The executable goes in first: a record in the cache always names a stored executable.
    (void)cache_->Put(*CacheKey::FromDigest(digest), compiled);  // a tier failure is counted by the cache
    return std::make_shared<const std::string>(record.SerializeAsString());
  };

  absl::StatusOr<TieredCache::Lookup> got = cache_->GetOrProduce(key, produce);
  if (!got.ok()) return got.status();
  v1::ActionRecord record;
  if (!record.ParseFromString(*got->value)) return absl::InternalError("the cache holds a malformed action record");
  Artifact exec = compiled != nullptr ? compiled : LookupExecutable(record.digest());
  if (exec == nullptr) {
    // The record outlived its executable (evicted from every tier): compile again.
    absl::StatusOr<Artifact> fresh = produce();
    if (!fresh.ok()) return fresh.status();
    (void)cache_->Put(key, *fresh);
    record.ParseFromString(**fresh);
    exec = compiled;
  }

  std::string source = compiled != nullptr ? "compiled"
                       : got->coalesced     ? "coalesced"
                                            : std::string(cache_->tiers()[got->tier]->name());
  FillResponse(call, key, record, source, compile_micros, resp);
  return exec;
}

void CompileServiceImpl::FillResponse(RpcCall& call, const CacheKey& key, const v1::ActionRecord& record,
                                      const std::string& source, uint64_t compile_micros, v1::CompileResponse* resp) {
  compile_answers_.Inc({source});
  call.Note("key", key.Hex().substr(0, 16));
  call.Note("cache", source);
  resp->set_cache_key(key.Hex());
  resp->set_digest(record.digest());
  *resp->mutable_metadata() = record.metadata();
  resp->mutable_metadata()->set_compile_micros(compile_micros);  // 0 unless this call compiled
  resp->set_cache(TierHit(source));
}

grpc::Status CompileServiceImpl::Compile(grpc::ServerContext* ctx, const v1::CompileRequest* req,
                                         v1::CompileResponse* resp) {
  RpcCall call(state_, ctx, "Compile", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  v1::Diagnostics diagnostics;
  absl::StatusOr<Artifact> exec = CompileToArtifact(call, *req, resp, &diagnostics);
  if (!exec.ok()) return call.Finish(exec.status(), diagnostics);
  uint64_t inline_limit = options_.max_inline_bytes;
  if (req->max_inline_bytes() != 0) inline_limit = std::min<uint64_t>(inline_limit, req->max_inline_bytes());
  if ((*exec)->size() <= inline_limit) resp->set_executable(**exec);
  return call.Finish(absl::OkStatus());
}

grpc::Status CompileServiceImpl::StreamArtifact(grpc::ServerContext* ctx, const Artifact& bytes, uint64_t offset,
                                                uint32_t chunk_bytes, v1::CompileResponse* header,
                                                grpc::ServerWriter<v1::ArtifactChunk>* writer) {
  uint32_t chunk = chunk_bytes == 0 ? options_.chunk_bytes : std::min(chunk_bytes, options_.chunk_bytes);
  uint64_t total = bytes->size();
  do {
    v1::ArtifactChunk msg;
    if (header != nullptr) {
      *msg.mutable_header() = *header;
      header = nullptr;
    }
    uint64_t n = std::min<uint64_t>(chunk, total - offset);
    msg.set_offset(offset);
    msg.set_total_size(total);
    msg.set_data(bytes->data() + offset, n);
    offset += n;
    if (ctx->IsCancelled() || !writer->Write(msg)) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away during the stream");
    }
  } while (offset < total);
  return grpc::Status::OK;
}

grpc::Status CompileServiceImpl::CompileStream(grpc::ServerContext* ctx, const v1::CompileRequest* req,
                                               grpc::ServerWriter<v1::ArtifactChunk>* writer) {
  RpcCall call(state_, ctx, "CompileStream", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  v1::Diagnostics diagnostics;
  v1::CompileResponse header;
  absl::StatusOr<Artifact> exec = CompileToArtifact(call, *req, &header, &diagnostics);
  if (!exec.ok()) return call.Finish(exec.status(), diagnostics);
  grpc::Status st = StreamArtifact(ctx, *exec, 0, 0, &header, writer);
  return call.Finish(absl::Status(static_cast<absl::StatusCode>(st.error_code()), st.error_message()));
}

grpc::Status CompileServiceImpl::FetchArtifact(grpc::ServerContext* ctx, const v1::FetchArtifactRequest* req,
                                               grpc::ServerWriter<v1::ArtifactChunk>* writer) {
  RpcCall call(state_, ctx, "FetchArtifact", Permission::kFetch);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  if (!CacheKey::FromHex(req->digest()).ok()) {
    return call.Finish(absl::InvalidArgumentError(
        absl::StrCat("digest \"", req->digest().substr(0, 80), "\" is not 64 lower-case hex digits")));
  }
  call.Note("digest", req->digest().substr(0, 16));
  Artifact exec = LookupExecutable(req->digest());
  if (exec == nullptr) return call.Finish(absl::NotFoundError(absl::StrCat("no executable with digest ", req->digest())));
  if (req->offset() > exec->size()) {
    return call.Finish(absl::OutOfRangeError(
        absl::StrCat("offset ", req->offset(), " is past the end of the executable (", exec->size(), " bytes)")));
  }
  grpc::Status st = StreamArtifact(ctx, exec, req->offset(), req->chunk_bytes(), nullptr, writer);
  return call.Finish(absl::Status(static_cast<absl::StatusCode>(st.error_code()), st.error_message()));
}

grpc::Status CompileServiceImpl::Check(grpc::ServerContext* ctx, const v1::CheckRequest* req, v1::CheckResponse* resp) {
  RpcCall call(state_, ctx, "Check", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  v1::Diagnostics diagnostics;
  absl::StatusOr<ir::ObjectRef> parsed = LoadRequestModule(SourceOf(*req), &diagnostics);
  if (!parsed.ok()) return call.Finish(parsed.status(), diagnostics);
  AddWarnings(diagnostics, resp->mutable_warnings());
  return call.Finish(absl::OkStatus());
}

grpc::Status CompileServiceImpl::Format(grpc::ServerContext* ctx, const v1::FormatRequest* req,
                                        v1::FormatResponse* resp) {
  RpcCall call(state_, ctx, "Format", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  v1::Diagnostics diagnostics;
  absl::StatusOr<ir::ObjectRef> parsed = LoadRequestModule(SourceOf(*req), &diagnostics);
  if (!parsed.ok()) return call.Finish(parsed.status(), diagnostics);
  resp->set_text(script::printer::Print(*parsed, script::PrintOptionsFor(*parsed)));  // as `kiln fmt` prints
  return call.Finish(absl::OkStatus());
}

grpc::Status CompileServiceImpl::Stat(grpc::ServerContext* ctx, const v1::StatRequest*, v1::StatResponse* resp) {
  RpcCall call(state_, ctx, "Stat", Permission::kAdmin);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  resp->set_server_version(kKilnVersion);
  resp->set_uptime_seconds(static_cast<uint64_t>(absl::ToInt64Seconds(absl::Now() - state_->started())));
  for (const auto& tier : cache_->tiers()) {
    CacheStats s = tier->Stats();
    v1::CacheTierStats* t = resp->add_cache();
    t->set_tier(std::string(tier->name()));
    t->set_hits(s.hits);
    t->set_misses(s.misses);
    t->set_evictions(s.evictions);
    t->set_corrupt(s.corrupt);
    t->set_entries(s.entries);
    t->set_bytes(s.bytes);
    t->set_capacity_bytes(s.capacity_bytes);
  }
  resp->set_coalesced(cache_->coalesced());
  for (const PoolCounters& c : backend_->Stats()) {
    v1::PoolStats* p = resp->add_pools();
    p->set_target(c.target);
    p->set_workers(c.workers);
    p->set_busy(c.busy);
    p->set_queued(c.queued);
    p->set_completed(c.completed);
    p->set_failed(c.failed);
    p->set_worker_restarts(c.worker_restarts);
  }
  return call.Finish(absl::OkStatus());
}

grpc::Status CompileServiceImpl::ListTargets(grpc::ServerContext* ctx, const v1::ListTargetsRequest*,
                                             v1::ListTargetsResponse* resp) {
  RpcCall call(state_, ctx, "ListTargets", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  struct Kind {
    const char* kind;
    const char* description;
  } kinds[] = {
      {"llvm", "host CPU code through LLVM 16, linked into the executable's kernel library"},
      {"c", "C source compiled by the host C compiler into the executable's kernel library"},
  };
  for (const Kind& k : kinds) {
    absl::StatusOr<std::string> normalized = driver::NormalizeTarget(k.kind);
    if (!normalized.ok()) continue;  // this build cannot serve it
    v1::TargetInfo* t = resp->add_targets();
    t->set_kind(k.kind);
    t->set_default_target(*normalized);
    t->set_description(k.description);
  }
  return call.Finish(absl::OkStatus());
}

grpc::Status CompileServiceImpl::InspectArtifact(grpc::ServerContext* ctx, const v1::InspectArtifactRequest* req,
                                                 v1::InspectArtifactResponse* resp) {
  RpcCall call(state_, ctx, "InspectArtifact", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  if (!CacheKey::FromHex(req->digest()).ok()) {
    return call.Finish(absl::InvalidArgumentError(
        absl::StrCat("digest \"", req->digest().substr(0, 80), "\" is not 64 lower-case hex digits")));
  }
  Artifact bytes = LookupExecutable(req->digest());
  if (bytes == nullptr) return call.Finish(absl::NotFoundError(absl::StrCat("no executable with digest ", req->digest())));
  absl::StatusOr<vm::Executable> exec = vm::Executable::Deserialize(*bytes);
  if (!exec.ok()) return call.Finish(absl::InternalError(absl::StrCat("cached executable: ", exec.status().message())));
  switch (req->view()) {
    case v1::InspectArtifactRequest::PYTHON: resp->set_text(exec->AsPython()); break;
    case v1::InspectArtifactRequest::STATS: resp->set_text(exec->Stats()); break;
    default: resp->set_text(exec->AsText()); break;
  }
  resp->mutable_metadata()->set_size(bytes->size());
  return call.Finish(absl::OkStatus());
}

std::string CompileServiceImpl::RenderMetrics() const {
  std::string out;
  compile_answers_.Render(&out);
  compile_seconds_.Render(&out);
  AppendSample(&out, "kiln_coalesced_total", "counter", "Requests served by an identical compile already in flight.",
               {}, cache_->coalesced());
  AppendSample(&out, "kiln_cache_tier_errors_total", "counter", "Cache tier reads or writes that failed.", {},
               cache_->tier_errors());
  struct TierMetric {
    const char* name;
    const char* type;
    const char* help;
    uint64_t CacheStats::*field;
  } tier_metrics[] = {
      {"kiln_cache_hits_total", "counter", "Cache hits by tier.", &CacheStats::hits},
      {"kiln_cache_misses_total", "counter", "Cache misses by tier.", &CacheStats::misses},
      {"kiln_cache_evictions_total", "counter", "Entries evicted by tier.", &CacheStats::evictions},
      {"kiln_cache_corrupt_total", "counter", "Entries dropped because they failed verification.",
       &CacheStats::corrupt},
      {"kiln_cache_entries", "gauge", "Entries held by tier.", &CacheStats::entries},
      {"kiln_cache_bytes", "gauge", "Bytes held by tier.", &CacheStats::bytes},
  };
  std::vector<std::pair<std::string, CacheStats>> tiers;
  for (const auto& tier : cache_->tiers()) tiers.emplace_back(std::string(tier->name()), tier->Stats());
  for (const TierMetric& m : tier_metrics) {
    bool first = true;
    for (const auto& [name, stats] : tiers) {
      AppendSample(&out, m.name, m.type, m.help, {{"tier", name}}, stats.*m.field, first);
      first = false;
    }
  }
  struct PoolMetric {
    const char* name;
    const char* type;
    const char* help;
    double (*get)(const PoolCounters&);
  } pool_metrics[] = {
      {"kiln_pool_workers", "gauge", "Worker processes by target.", [](const PoolCounters& c) { return double(c.workers); }},
      {"kiln_pool_busy_workers", "gauge", "Workers compiling now.", [](const PoolCounters& c) { return double(c.busy); }},
      {"kiln_pool_queue_depth", "gauge", "Jobs waiting for a worker.", [](const PoolCounters& c) { return double(c.queued); }},
      {"kiln_pool_jobs_completed_total", "counter", "Jobs that compiled.",
       [](const PoolCounters& c) { return double(c.completed); }},
      {"kiln_pool_jobs_failed_total", "counter", "Jobs that failed (compile errors, crashes, limits).",
       [](const PoolCounters& c) { return double(c.failed); }},
      {"kiln_pool_worker_restarts_total", "counter", "Workers replaced after a crash, a limit or a timeout.",
       [](const PoolCounters& c) { return double(c.worker_restarts); }},
  };
  std::vector<PoolCounters> pools = backend_->Stats();
  for (const PoolMetric& m : pool_metrics) {
    bool first = true;
    for (const PoolCounters& c : pools) {
      AppendSample(&out, m.name, m.type, m.help, {{"target", c.target}}, m.get(c), first);
      first = false;
    }
  }
  return out;
}

}  // namespace kiln::server
