#include "runtime/agent/farm_registration.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/time/clock.h"

namespace kiln::agent {

FarmRegistration::FarmRegistration(std::shared_ptr<grpc::Channel> kilnd, FarmRegistrationOptions options,
                                   std::function<uint32_t()> active_sessions)
    : stub_(v1::FarmService::NewStub(std::move(kilnd))),
      options_(std::move(options)),
      active_sessions_(std::move(active_sessions)),
      thread_([this] { Run(); }) {}

FarmRegistration::~FarmRegistration() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

std::string FarmRegistration::agent_id() const {
  absl::MutexLock lock(&mu_);
  return agent_id_;
}

int FarmRegistration::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

std::unique_ptr<grpc::ClientContext> FarmRegistration::Context(absl::Duration timeout) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!options_.token.empty()) ctx->AddMetadata("authorization", "Bearer " + options_.token);
  return ctx;
}

void FarmRegistration::Run() {
  absl::Duration interval = absl::Seconds(2);  // until kilnd says otherwise
  absl::Duration backoff = absl::Milliseconds(100);
  std::string id;
  while (true) {
    grpc::Status st;
    if (id.empty()) {
      v1::RegisterAgentRequest req;
      req.set_key(options_.key);
      req.set_address(options_.address);
      req.set_device(options_.device);
      for (const std::string& c : options_.capabilities) req.add_capabilities(c);
      req.set_capacity(options_.capacity);
      v1::RegisterAgentResponse resp;
      st = stub_->RegisterAgent(Context(absl::Seconds(5)).get(), req, &resp);
      if (st.ok()) {
        id = resp.agent_id();
        interval = absl::Seconds(resp.heartbeat_interval().seconds()) +
                   absl::Nanoseconds(resp.heartbeat_interval().nanos());
        absl::MutexLock lock(&mu_);
        agent_id_ = id;
        ++registrations_;
      }
    } else {
      v1::HeartbeatRequest req;
      req.set_agent_id(id);
      req.set_active_sessions(active_sessions_ ? active_sessions_() : 0);
      v1::HeartbeatResponse resp;
      st = stub_->Heartbeat(Context(interval).get(), req, &resp);
      if (st.error_code() == grpc::StatusCode::NOT_FOUND) {
        id.clear();  // kilnd forgot us: register again at once
        continue;
      }
    }
    absl::Duration wait = interval;
    if (st.ok()) {
      backoff = absl::Milliseconds(100);
    } else {
      if (st.error_code() == grpc::StatusCode::UNAUTHENTICATED || st.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
          st.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
        std::fprintf(stderr, "kiln-agent: kilnd refused the registration: %s\n", st.error_message().c_str());
      }
      wait = backoff;
      backoff = std::min(backoff * 2, options_.max_backoff);
    }
    absl::MutexLock lock(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), wait)) return;
  }
}

}  // namespace kiln::agent
