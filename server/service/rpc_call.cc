#include "server/service/rpc_call.h"

#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/service/rpc_status.h"

namespace kiln::server {

void ServiceState::RenderMetrics(std::string* out) const {
  requests_.Render(out);
  request_seconds_.Render(out);
  AppendSample(out, "kiln_in_flight_requests", "gauge", "RPCs being served.", {}, in_flight_.load());
  AppendSample(out, "kiln_draining", "gauge", "1 while kilnd drains for shutdown.", {}, draining_.load() ? 1 : 0);
  AppendSample(out, "kiln_uptime_seconds", "gauge", "Seconds since kilnd started.", {},
               absl::ToDoubleSeconds(absl::Now() - started_));
}

RpcCall::RpcCall(ServiceState* state, grpc::ServerContext* ctx, const char* method, Permission needed)
    : state_(state), ctx_(ctx), method_(method), start_(absl::Now()) {
  ++state_->in_flight_;
  if (state_->draining()) {
    refusal_ = absl::UnavailableError("kilnd is draining (shutting down); retry on another replica or later");
    return;
  }
  std::optional<std::string> authorization;
  auto it = ctx->client_metadata().find("authorization");
  if (it != ctx->client_metadata().end()) authorization.emplace(it->second.data(), it->second.size());
  absl::StatusOr<std::string> who = state_->tokens_->Authorize(authorization ? &*authorization : nullptr, needed);
  if (who.ok()) {
    client_ = *who;
  } else {
    refusal_ = who.status();
  }
}

void RpcCall::Note(absl::string_view key, absl::string_view value) {
  absl::StrAppend(&note_, ",\"", key, "\":\"", value, "\"");
}

grpc::Status RpcCall::Finish(const absl::Status& status, const v1::Diagnostics& diagnostics) {
  grpc::Status st = ToGrpcStatus(status, diagnostics);
  std::string code = absl::StatusCodeToString(status.code());
  double seconds = absl::ToDoubleSeconds(absl::Now() - start_);
  state_->requests_.Inc({method_, code});
  state_->request_seconds_.Observe({method_}, seconds);
  if (state_->log_requests_ && !quiet_) {
    // One JSON object per line: what log shippers parse without configuration.
    std::string line = absl::StrFormat(
        "{\"ts\":\"%s\",\"method\":\"%s\",\"client\":\"%s\",\"peer\":\"%s\",\"code\":\"%s\",\"ms\":%.3f%s}\n",
        absl::FormatTime(absl::RFC3339_full, absl::Now(), absl::UTCTimeZone()), method_, client_, ctx_->peer(), code,
        seconds * 1e3, note_);
    std::fputs(line.c_str(), stderr);
  }
  return st;
}

}  // namespace kiln::server
