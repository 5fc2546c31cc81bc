// A running kiln-agent: the gRPC server with the AgentService, its sessions and its executable
// store, and, with both a kilnd and a key, its membership in kilnd's farm (FarmRegistration,
// advertising the --listen host with the bound port). kiln-agent's main and the tests (in process,
// on 127.0.0.1:0) start it the same way.
#ifndef KILN_RUNTIME_AGENT_AGENT_SERVER_H_
#define KILN_RUNTIME_AGENT_AGENT_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "runtime/agent/agent_service.h"
#include "runtime/agent/executable_store.h"
#include "runtime/agent/farm_registration.h"
#include "runtime/agent/session.h"

namespace kiln::agent {

struct AgentConfig {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free one
  std::string port_file;               // written (tmp + rename) once the server listens
  std::string kilnd;                   // host:port of kilnd's CompileService; empty: none
  std::string key;                     // the farm key this agent serves (e.g. "cpu-zen4")
  uint32_t capacity = 1;               // farm leases served at once
  std::string device = "cpu";
  std::string token;        // clients must present it (empty: no auth)
  std::string kilnd_token;  // presented to kilnd
  std::string cache_dir;    // local executable cache; empty: none
  SessionManagerOptions sessions;
  // Largest message (unary calls' inline tensors); streamed tensors are not bound by it.
  int max_message_bytes = 64 << 20;
};

class AgentServer {
 public:
  // Listens and serves on background threads. UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<AgentServer>> Start(AgentConfig config);
  ~AgentServer();  // Shutdown()

  int port() const { return port_; }
  const AgentConfig& config() const { return config_; }
  SessionManager& sessions() { return *sessions_; }

  // The farm membership; null without a kilnd or a key.
  const FarmRegistration* farm() const { return farm_.get(); }

  // Leaves the farm, stops accepting calls and waits up to `grace_ms` for the ones in progress.
  void Shutdown(int grace_ms = 2000);

 private:
  explicit AgentServer(AgentConfig config) : config_(std::move(config)) {}

  AgentConfig config_;
  std::unique_ptr<SessionManager> sessions_;
  std::unique_ptr<ExecutableStore> store_;
  std::unique_ptr<AgentServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<FarmRegistration> farm_;
  int port_ = 0;
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_AGENT_SERVER_H_
