#include "client/cpp/client.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "runtime/agent/artifact_fetch.h"
#include "server/cache/sha256.h"

namespace kiln {
namespace {

constexpr char kDiagnosticsType[] = "type.googleapis.com/kiln.v1.Diagnostics";
constexpr char kRetryInfoSuffix[] = "/google.rpc.RetryInfo";
// Inline executables are at most 1 MiB by default; the bound leaves room for a server that raises
// it without letting a broken one make the client allocate without limit.
constexpr int kMaxReceiveBytes = 64 << 20;

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", what, " ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double Uniform01() {
  // Only on the retry path: a fresh generator per draw keeps Client free of shared mutable state.
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

void Prepare(const ClientOptions& o, grpc::ClientContext* ctx) {
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + o.deadline));
  if (!o.token.empty()) ctx->AddMetadata("authorization", absl::StrCat("Bearer ", o.token));
}

// The wait before retry `retry` after `failure`: the backoff, or the server's RetryInfo delay when
// that is longer (capped by max_backoff).
absl::Duration RetryWait(const RetryPolicy& policy, int retry, const grpc::Status& failure) {
  absl::Duration wait = BackoffDelay(policy, retry, Uniform01());
  if (absl::optional<absl::Duration> asked = RetryDelayOf(FromGrpcStatus(failure))) {
    wait = std::max(wait, std::min(*asked, policy.max_backoff));
  }
  return wait;
}

// Runs `call(ctx)` with a fresh context per attempt, retrying UNAVAILABLE as the policy says.
template <typename Call>
grpc::Status WithRetries(const ClientOptions& o, Call call) {
  for (int attempt = 1;; ++attempt) {
    grpc::ClientContext ctx;
    Prepare(o, &ctx);
    grpc::Status st = call(&ctx);
    if (st.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= o.retry.max_attempts) return st;
    absl::SleepFor(RetryWait(o.retry, attempt, st));
  }
}

std::string HexSha256(absl::string_view bytes) { return server::ToHex(server::Sha256Digest(bytes)); }

// The executable's bytes against what the response says of them.
absl::Status CheckArtifact(const std::string& digest, uint64_t size, const std::string& bytes) {
  if (bytes.size() != size) {
    return absl::DataLossError(absl::StrCat("executable ", digest, ": received ", bytes.size(), " bytes, the server said ", size));
  }
  std::string got = HexSha256(bytes);
  if (got != digest) {
    return absl::DataLossError(absl::StrCat("executable ", digest, ": the received bytes hash to ", got));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Duration BackoffDelay(const RetryPolicy& policy, int retry, double u) {
  double base = absl::ToDoubleSeconds(policy.initial_backoff) * std::pow(policy.multiplier, std::max(0, retry - 1));
  base = std::min(base, absl::ToDoubleSeconds(policy.max_backoff));
  double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  return absl::Seconds(base * (1.0 - jitter + 2.0 * jitter * std::clamp(u, 0.0, 1.0)));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  v1::RpcStatus details;
  if (!status.error_details().empty() && details.ParseFromString(status.error_details())) {
    for (const google::protobuf::Any& any : details.details()) out.SetPayload(any.type_url(), absl::Cord(any.value()));
  }
  return out;
}

std::vector<v1::Diagnostic> DiagnosticsOf(const absl::Status& status) {
  std::vector<v1::Diagnostic> out;
  absl::optional<absl::Cord> payload = status.GetPayload(kDiagnosticsType);
  v1::Diagnostics diags;
  if (payload && diags.ParseFromString(std::string(*payload))) {
    out.assign(diags.diagnostics().begin(), diags.diagnostics().end());
  }
  return out;
}

bool HasRetryInfo(const absl::Status& status) {
  bool found = false;
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord&) {
    found |= absl::EndsWith(type_url, kRetryInfoSuffix);
  });
  return found;
}

absl::optional<absl::Duration> RetryDelayOf(const absl::Status& status) {
  absl::optional<absl::Duration> delay;
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& value) {
    v1::RetryInfo info;
    if (!delay && absl::EndsWith(type_url, kRetryInfoSuffix) && info.ParseFromString(std::string(value))) {
      delay = absl::Seconds(info.retry_delay().seconds()) + absl::Nanoseconds(info.retry_delay().nanos());
    }
  });
  return delay;
}

std::string RenderDiagnostic(const v1::Diagnostic& d) {
  const char* severity = d.severity() == v1::SEVERITY_WARNING ? "warning" : d.severity() == v1::SEVERITY_NOTE ? "note" : "error";
  std::string out;
  if (d.line() > 0) {
    absl::StrAppend(&out, d.file().empty() ? "" : d.file() + ":", d.line(), ":", d.col(), ": ");
  } else if (!d.file().empty()) {
    absl::StrAppend(&out, d.file(), ": ");
  }
  absl::StrAppend(&out, severity, ": ", d.message(), "\n");
  if (!d.excerpt().empty()) {
    out += d.excerpt();
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

std::string RenderError(const absl::Status& status) {
  std::vector<v1::Diagnostic> diags = DiagnosticsOf(status);
  if (diags.empty()) return absl::StrCat(absl::StatusCodeToString(status.code()), ": ", status.message(), "\n");
  std::string out;
  for (const v1::Diagnostic& d : diags) out += RenderDiagnostic(d);
  return out;
}

const char* CacheTierName(v1::CacheTierHit tier) {
  switch (tier) {
    case v1::CACHE_MEMORY: return "memory";
    case v1::CACHE_DISK: return "disk";
    case v1::CACHE_REDIS: return "redis";
    default: return "miss";
  }
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(const ClientOptions& options) {
  if (options.address.empty()) return absl::InvalidArgumentError("no server address");
  if (options.retry.max_attempts < 1) return absl::InvalidArgumentError("max_attempts must be at least 1");
  if (options.client_cert_path.empty() != options.client_key_path.empty()) {
    return absl::InvalidArgumentError("mutual TLS needs both a client certificate and its key");
  }
  if (!options.client_cert_path.empty() && options.root_cert_path.empty()) {
    return absl::InvalidArgumentError("a client certificate needs TLS: give the CA certificate too");
  }
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (options.root_cert_path.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    absl::StatusOr<std::string> root = ReadPem(options.root_cert_path, "CA certificate");
    if (!root.ok()) return root.status();
    ssl.pem_root_certs = *root;
    if (!options.client_cert_path.empty()) {
      absl::StatusOr<std::string> cert = ReadPem(options.client_cert_path, "client certificate");
      if (!cert.ok()) return cert.status();
      absl::StatusOr<std::string> key = ReadPem(options.client_key_path, "client key");
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    creds = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  // Each Client is its own connection: clients in one process (kiln-load's threads) behave like
  // separate processes instead of sharing one subchannel.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(options.address, creds, args);
  return std::unique_ptr<Client>(new Client(options, std::move(channel)));
}

absl::StatusOr<CompileResult> Client::Compile(const v1::CompileRequest& request) const {
  CompileResult result;
  grpc::Status st = WithRetries(options_, [&](grpc::ClientContext* ctx) {
    return stub_->Compile(ctx, request, &result.response);
  });
  if (!st.ok()) return FromGrpcStatus(st);
  const v1::CompileResponse& r = result.response;
  if (!r.executable().empty() || r.metadata().size() == 0) {
    result.executable = std::move(*result.response.mutable_executable());
    result.response.clear_executable();
  } else {
    absl::StatusOr<std::string> bytes = Fetch(r.digest());
    if (!bytes.ok()) return bytes.status();
    result.executable = std::move(*bytes);
    result.fetched = true;
  }
  absl::Status ok = CheckArtifact(r.digest(), r.metadata().size(), result.executable);
  if (!ok.ok()) return ok;
  return result;
}

absl::StatusOr<std::string> Client::Fetch(const std::string& digest) const {
  agent::ArtifactFetchOptions o;
  o.chunk_bytes = options_.fetch_chunk_bytes;
  o.max_attempts = options_.retry.max_attempts;
  o.prepare = [this](grpc::ClientContext* ctx) { Prepare(options_, ctx); };
  o.backoff = [this](int retry, const grpc::Status& failure) { return RetryWait(options_.retry, retry, failure); };
  o.to_status = FromGrpcStatus;
  absl::StatusOr<std::string> data = agent::FetchArtifact(*stub_, digest, o);
  if (!data.ok()) return data.status();
  absl::Status ok = CheckArtifact(digest, data->size(), *data);
  if (!ok.ok()) return ok;
  return data;
}

absl::StatusOr<v1::CheckResponse> Client::Check(const v1::CheckRequest& request) const {
  v1::CheckResponse response;
  grpc::Status st = WithRetries(options_, [&](grpc::ClientContext* ctx) { return stub_->Check(ctx, request, &response); });
  if (!st.ok()) return FromGrpcStatus(st);
  return response;
}

absl::StatusOr<v1::FormatResponse> Client::Format(const v1::FormatRequest& request) const {
  v1::FormatResponse response;
  grpc::Status st = WithRetries(options_, [&](grpc::ClientContext* ctx) { return stub_->Format(ctx, request, &response); });
  if (!st.ok()) return FromGrpcStatus(st);
  return response;
}

absl::StatusOr<v1::StatResponse> Client::Stat() const {
  v1::StatResponse response;
  grpc::Status st = WithRetries(options_, [&](grpc::ClientContext* ctx) {
    return stub_->Stat(ctx, v1::StatRequest(), &response);
  });
  if (!st.ok()) return FromGrpcStatus(st);
  return response;
}

absl::StatusOr<v1::ListTargetsResponse> Client::ListTargets() const {
  v1::ListTargetsResponse response;
  grpc::Status st = WithRetries(options_, [&](grpc::ClientContext* ctx) {
    return stub_->ListTargets(ctx, v1::ListTargetsRequest(), &response);
  });
  if (!st.ok()) return FromGrpcStatus(st);
  return response;
}

}  // namespace kiln
