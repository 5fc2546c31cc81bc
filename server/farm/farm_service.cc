#include "server/farm/farm_service.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kiln::server {
namespace {

void SetDuration(absl::Duration d, google::protobuf::Duration* out) {
  int64_t nanos = absl::ToInt64Nanoseconds(d);
  out->set_seconds(nanos / 1000000000);
  out->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

void ToProto(const AgentState& a, v1::AgentInfo* out) {
  out->set_agent_id(a.id);
  out->set_key(a.spec.key);
  out->set_address(a.spec.address);
  out->set_device(a.spec.device);
  for (const std::string& c : a.spec.capabilities) out->add_capabilities(c);
  out->set_capacity(a.spec.capacity);
  out->set_leased(a.leased);
  out->set_last_heartbeat_unix_ms(absl::ToUnixMillis(a.last_heartbeat));
}

void ToProto(const Lease& l, v1::AgentLease* out) {
  out->set_lease_id(l.id);
  ToProto(l.agent, out->mutable_agent());
  SetDuration(l.duration, out->mutable_lease());
}

}  // namespace

std::string ReachableAddress(const std::string& advertised, const std::string& peer) {
  size_t colon = advertised.rfind(':');
  if (colon == std::string::npos) return advertised;
  std::string host = advertised.substr(0, colon);
  if (!host.empty() && host != "0.0.0.0" && host != "[::]") return advertised;
  // gRPC peers look like "ipv4:1.2.3.4:5678" or "ipv6:[::1]:5678".
  std::string p = peer;
  if (absl::StartsWith(p, "ipv4:") || absl::StartsWith(p, "ipv6:")) p = p.substr(5);
  size_t pc = p.rfind(':');
  if (pc == std::string::npos) return advertised;
  return absl::StrCat(p.substr(0, pc), advertised.substr(colon));
}

grpc::Status FarmServiceImpl::RegisterAgent(grpc::ServerContext* ctx, const v1::RegisterAgentRequest* req,
                                            v1::RegisterAgentResponse* resp) {
  RpcCall call(state_, ctx, "RegisterAgent", Permission::kAgent);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  AgentSpec spec;
  spec.key = req->key();
  spec.address = ReachableAddress(req->address(), ctx->peer());
  spec.device = req->device().empty() ? "cpu" : req->device();
  spec.capabilities.assign(req->capabilities().begin(), req->capabilities().end());
  spec.capacity = req->capacity();
  absl::StatusOr<std::string> id = farm_->Register(spec);
  if (!id.ok()) return call.Finish(id.status());
  call.Note("agent", *id);
  call.Note("key", spec.key);
  resp->set_agent_id(*id);
  SetDuration(farm_->options().heartbeat_interval, resp->mutable_heartbeat_interval());
  return call.Finish(absl::OkStatus());
}

grpc::Status FarmServiceImpl::Heartbeat(grpc::ServerContext* ctx, const v1::HeartbeatRequest* req,
                                        v1::HeartbeatResponse*) {
  RpcCall call(state_, ctx, "Heartbeat", Permission::kAgent);
  call.Quiet();  // one line per agent every interval would drown the request log
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  return call.Finish(farm_->Heartbeat(req->agent_id(), req->active_sessions()));
}

grpc::Status FarmServiceImpl::RequestAgent(grpc::ServerContext* ctx, const v1::RequestAgentRequest* req,
                                           v1::AgentLease* resp) {
  RpcCall call(state_, ctx, "RequestAgent", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  // Without a deadline a request would wait forever for a key no agent has: bound it.
  absl::Time deadline = std::min(absl::FromChrono(ctx->deadline()), absl::Now() + absl::Minutes(10));
  absl::StatusOr<Lease> lease =
      farm_->Request(req->key(), req->priority(), absl::Seconds(req->lease_seconds()), deadline);
  if (!lease.ok()) return call.Finish(lease.status());
  call.Note("lease", lease->id);
  call.Note("agent", lease->agent.id);
  ToProto(*lease, resp);
  return call.Finish(absl::OkStatus());
}

grpc::Status FarmServiceImpl::RenewLease(grpc::ServerContext* ctx, const v1::RenewLeaseRequest* req,
                                         v1::AgentLease* resp) {
  RpcCall call(state_, ctx, "RenewLease", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  absl::StatusOr<Lease> lease = farm_->Renew(req->lease_id());
  if (!lease.ok()) return call.Finish(lease.status());
  ToProto(*lease, resp);
  return call.Finish(absl::OkStatus());
}

grpc::Status FarmServiceImpl::ReleaseLease(grpc::ServerContext* ctx, const v1::ReleaseLeaseRequest* req,
                                           v1::ReleaseLeaseResponse*) {
  RpcCall call(state_, ctx, "ReleaseLease", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  return call.Finish(farm_->Release(req->lease_id()));
}

grpc::Status FarmServiceImpl::ListAgents(grpc::ServerContext* ctx, const v1::ListAgentsRequest* req,
                                         v1::ListAgentsResponse* resp) {
  RpcCall call(state_, ctx, "ListAgents", Permission::kCompile);
  if (!call.refusal().ok()) return call.Finish(call.refusal());
  for (const AgentState& a : farm_->Agents(req->key())) ToProto(a, resp->add_agents());
  for (const auto& [key, n] : farm_->Waiting()) {
    if (req->key().empty() || key == req->key()) (*resp->mutable_waiting())[key] = n;
  }
  return call.Finish(absl::OkStatus());
}

void FarmServiceImpl::RenderMetrics(std::string* out) const {
  std::map<std::string, uint32_t> agents, leased;
  for (const AgentState& a : farm_->Agents("")) {
    ++agents[a.spec.key];
    leased[a.spec.key] += a.leased;
  }
  bool first = true;
  for (const auto& [key, n] : agents) {
    AppendSample(out, "kiln_farm_agents", "gauge", "Registered agents by key.", {{"key", key}}, n, first);
    first = false;
  }
  first = true;
  for (const auto& [key, n] : leased) {
    AppendSample(out, "kiln_farm_leases", "gauge", "Leases held by key.", {{"key", key}}, n, first);
    first = false;
  }
  first = true;
  for (const auto& [key, n] : farm_->Waiting()) {
    AppendSample(out, "kiln_farm_waiting", "gauge", "Requests waiting for an agent by key.", {{"key", key}}, n, first);
    first = false;
  }
}

}  // namespace kiln::server
