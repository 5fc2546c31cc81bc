#include "runtime/agent/agent_server.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "runtime/port_file.h"

namespace kiln::agent {

absl::StatusOr<std::unique_ptr<AgentServer>> AgentServer::Start(AgentConfig config) {
  std::unique_ptr<AgentServer> agent(new AgentServer(std::move(config)));
  const AgentConfig& c = agent->config_;
  if (c.device != "cpu") {
    return absl::UnimplementedError(
        absl::StrCat("kiln-agent: device \"", c.device, "\" is not supported by the runtime yet (only cpu)"));
  }
  if (!c.cache_dir.empty()) {
    mkdir(c.cache_dir.c_str(), 0755);  // an existing directory is fine; a bad one fails on first write
  }
  ExecutableStoreOptions store;
  store.cache_dir = c.cache_dir;
  store.kilnd_token = c.kilnd_token;
  std::shared_ptr<grpc::Channel> kilnd;
  if (!c.kilnd.empty()) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    kilnd = grpc::CreateCustomChannel(c.kilnd, grpc::InsecureChannelCredentials(), args);
    store.kilnd = kilnd;
  }
  agent->sessions_ = std::make_unique<SessionManager>(c.sessions);
  agent->store_ = std::make_unique<ExecutableStore>(std::move(store));
  agent->service_ = std::make_unique<AgentServiceImpl>(AgentServiceOptions{c.device, c.token}, agent->sessions_.get(),
                                                       agent->store_.get());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(c.listen, grpc::InsecureServerCredentials(), &agent->port_);
  builder.RegisterService(agent->service_.get());
  builder.SetMaxReceiveMessageSize(c.max_message_bytes);
  builder.SetMaxSendMessageSize(-1);
  agent->server_ = builder.BuildAndStart();
  if (agent->server_ == nullptr || agent->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("kiln-agent: cannot listen on ", c.listen));
  }
  if (kilnd != nullptr && !c.key.empty()) {
    FarmRegistrationOptions farm;
    farm.key = c.key;
    farm.address = absl::StrCat(c.listen.substr(0, c.listen.rfind(':')), ":", agent->port_);
    farm.device = c.device;
    farm.capacity = c.capacity;
    farm.token = c.kilnd_token;
    SessionManager* sessions = agent->sessions_.get();
    agent->farm_ = std::make_unique<FarmRegistration>(kilnd, std::move(farm),
                                                      [sessions] { return static_cast<uint32_t>(sessions->size()); });
  }
  if (!c.port_file.empty()) {
    absl::Status s = runtime::WritePortFile(c.port_file, agent->port_);
    if (!s.ok()) return s;
  }
  return agent;
}

AgentServer::~AgentServer() { Shutdown(); }

void AgentServer::Shutdown(int grace_ms) {
  farm_.reset();  // kilnd stops leasing the agent before it stops serving
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(grace_ms));
  server_->Wait();
  server_.reset();
}

}  // namespace kiln::agent
