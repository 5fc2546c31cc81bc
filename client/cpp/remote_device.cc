#include "client/cpp/remote_device.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/client_context.h"
#include "runtime/agent/digest.h"

namespace kiln {
namespace {

void PrepareFarmCall(const std::string& token, absl::Duration deadline, grpc::ClientContext* ctx) {
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  if (!token.empty()) ctx->AddMetadata("authorization", absl::StrCat("Bearer ", token));
}

absl::Duration SecondsOf(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

}  // namespace

RemoteDevice::RemoteDevice(std::string address, RemoteDeviceOptions options)
    : address_(std::move(address)),
      options_(std::move(options)),
      agent_(agent::AgentClient::Connect(address_), options_.token) {}

RemoteDevice::~RemoteDevice() { Close().IgnoreError(); }

absl::Status RemoteDevice::Named(absl::Status s) const {
  if (s.code() != absl::StatusCode::kUnavailable) return s;
  return absl::UnavailableError(absl::StrCat("kiln-agent at ", address_, ": UNAVAILABLE: ", s.message()));
}

absl::StatusOr<std::unique_ptr<RemoteDevice>> RemoteDevice::Open(const std::string& address,
                                                                 RemoteDeviceOptions options) {
  if (address.empty()) return absl::InvalidArgumentError("no agent address");
  std::unique_ptr<RemoteDevice> device(new RemoteDevice(address, std::move(options)));
  if (absl::Status s = device->OpenSession(); !s.ok()) return s;
  device->StartKeepAlive();
  return device;
}

absl::StatusOr<std::unique_ptr<RemoteDevice>> RemoteDevice::Lease(const Client& kilnd, const std::string& key,
                                                                  int priority, RemoteDeviceOptions options) {
  if (key.empty()) return absl::InvalidArgumentError("lease an agent by key (e.g. \"cpu\")");
  std::unique_ptr<v1::FarmService::Stub> farm = v1::FarmService::NewStub(kilnd.channel());
  const std::string& token = kilnd.options().token;
  const std::string& kilnd_address = kilnd.options().address;
  // A key no agent registered would wait the whole farm_wait for nothing: say so at once.
  {
    grpc::ClientContext ctx;
    PrepareFarmCall(token, kilnd.options().deadline, &ctx);
    v1::ListAgentsResponse all;
    absl::Status s = FromGrpcStatus(farm->ListAgents(&ctx, v1::ListAgentsRequest(), &all));
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("kilnd at ", kilnd_address, ": ", s.message()));
    std::set<std::string> keys;
    for (const v1::AgentInfo& a : all.agents()) keys.insert(a.key());
    if (keys.count(key) == 0) {
      return absl::NotFoundError(absl::StrCat("kilnd at ", kilnd_address, " has no agent with key \"", key, "\" (",
                                              keys.empty() ? "no agents registered"
                                                           : absl::StrCat("keys: ", absl::StrJoin(keys, ", ")),
                                              ")"));
    }
  }
  v1::AgentLease lease;
  {
    grpc::ClientContext ctx;
    PrepareFarmCall(token, options.farm_wait, &ctx);
    v1::RequestAgentRequest req;
    req.set_key(key);
    req.set_priority(priority);
    req.set_lease_seconds(options.farm_lease_seconds);
    absl::Status s = FromGrpcStatus(farm->RequestAgent(&ctx, req, &lease));
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("kilnd at ", kilnd_address, ": ", s.message()));
  }
  std::unique_ptr<RemoteDevice> device(new RemoteDevice(lease.agent().address(), std::move(options)));
  device->lease_ = lease;
  device->farm_ = std::move(farm);
  device->farm_token_ = token;
  if (absl::Status s = device->OpenSession(); !s.ok()) return s;  // the destructor releases the lease
  device->StartKeepAlive();
  return device;
}

absl::Status RemoteDevice::OpenSession() {
  absl::StatusOr<v1::OpenSessionResponse> s = agent_.OpenSession(options_.session);
  if (!s.ok()) return Named(s.status());
  session_id_ = s->session_id();
  session_lease_seconds_ = s->lease_seconds();
  return absl::OkStatus();
}

void RemoteDevice::StartKeepAlive() {
  absl::Duration shortest = absl::Seconds(std::max<uint32_t>(session_lease_seconds_, 1));
  if (!lease_.lease_id().empty()) shortest = std::min(shortest, SecondsOf(lease_.lease()));
  absl::Duration interval = options_.keep_alive_interval > absl::ZeroDuration() ? options_.keep_alive_interval
                                                                                 : shortest / 3;
  keeper_ = std::thread([this, interval] { KeepAliveLoop(interval); });
}

void RemoteDevice::KeepAliveLoop(absl::Duration interval) {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&closing_), interval)) {
    mu_.Unlock();
    absl::Status s = Named(agent_.KeepAlive(session_id_).status());
    if (s.ok() && farm_ != nullptr) {
      grpc::ClientContext ctx;
      PrepareFarmCall(farm_token_, interval, &ctx);
      v1::RenewLeaseRequest req;
      req.set_lease_id(lease_.lease_id());
      v1::AgentLease renewed;
      s = FromGrpcStatus(farm_->RenewLease(&ctx, req, &renewed));
    }
    mu_.Lock();
    // A transient failure is retried at the next tick; the last one is kept for the caller.
    keep_alive_status_ = s;
  }
}

absl::Status RemoteDevice::keep_alive_status() const {
  absl::MutexLock lock(&mu_);
  return keep_alive_status_;
}

absl::Status RemoteDevice::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
    closing_ = true;
  }
  if (keeper_.joinable()) keeper_.join();
  absl::Status status;
  if (!session_id_.empty()) status = Named(agent_.CloseSession(session_id_));
  if (farm_ != nullptr) {
    grpc::ClientContext ctx;
    PrepareFarmCall(farm_token_, absl::Seconds(10), &ctx);
    v1::ReleaseLeaseRequest req;
    req.set_lease_id(lease_.lease_id());
    v1::ReleaseLeaseResponse resp;
    absl::Status released = FromGrpcStatus(farm_->ReleaseLease(&ctx, req, &resp));
    if (status.ok()) status = released;
  }
  return status;
}

absl::StatusOr<v1::LoadExecutableResponse> RemoteDevice::LoadExecutable(const std::string& digest) {
  absl::StatusOr<v1::LoadExecutableResponse> r = agent_.LoadExecutable(session_id_, digest);
  if (!r.ok()) return Named(r.status());
  return r;
}

absl::StatusOr<v1::LoadExecutableResponse> RemoteDevice::UploadExecutable(const std::string& bytes) {
  absl::StatusOr<v1::LoadExecutableResponse> r =
      agent_.UploadExecutable(session_id_, agent::Sha256Hex(bytes), bytes);
  if (!r.ok()) return Named(r.status());
  return r;
}

absl::Status RemoteDevice::SetInput(const std::string& function, const std::vector<vm::Value>& args) {
  return Named(agent_.SetInput(session_id_, function, args));
}

absl::StatusOr<vm::Value> RemoteDevice::Invoke(const std::string& function, const std::vector<vm::Value>& args,
                                               v1::InstrumentTrace* trace) {
  absl::StatusOr<vm::Value> r = agent_.Invoke(session_id_, function, args, trace);
  if (!r.ok()) return Named(r.status());
  return r;
}

absl::Status RemoteDevice::InvokeStateful(const std::string& function, v1::InstrumentTrace* trace) {
  return Named(agent_.InvokeStateful(session_id_, function, trace));
}

absl::StatusOr<vm::Value> RemoteDevice::GetOutputs(const std::string& function) {
  absl::StatusOr<vm::Value> r = agent_.GetOutputs(session_id_, function);
  if (!r.ok()) return Named(r.status());
  return r;
}

absl::Status RemoteDevice::SaveFunction(const std::string& function, const std::string& saved_name,
                                        const std::vector<vm::Value>& args, bool include_return) {
  return Named(agent_.SaveFunction(session_id_, function, saved_name, args, include_return));
}

absl::StatusOr<v1::TimeEvaluatorResponse> RemoteDevice::TimeEvaluator(v1::TimeEvaluatorRequest params,
                                                                      const std::vector<vm::Value>& args) {
  params.set_session_id(session_id_);
  params.clear_args();
  absl::StatusOr<v1::TimeEvaluatorResponse> r = agent_.TimeEvaluator(std::move(params), args);
  if (!r.ok()) return Named(r.status());
  return r;
}

absl::Status RemoteDevice::SetInstrument(v1::InstrumentMode mode, const std::vector<std::string>& skip,
                                         uint32_t max_records) {
  v1::SetInstrumentRequest req;
  req.set_session_id(session_id_);
  req.set_mode(mode);
  for (const std::string& s : skip) req.add_skip(s);
  req.set_max_records(max_records);
  return Named(agent_.SetInstrument(req));
}

}  // namespace kiln
