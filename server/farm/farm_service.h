// kiln.v1.FarmService (proto/farm.proto) over a Farm: agents register and heartbeat with the
// `agent` permission, clients lease them with `compile`.
#ifndef KILN_SERVER_FARM_FARM_SERVICE_H_
#define KILN_SERVER_FARM_FARM_SERVICE_H_

#include <string>

#include "grpcpp/grpcpp.h"
#include "proto/farm.grpc.pb.h"
#include "server/farm/farm.h"
#include "server/service/rpc_call.h"

namespace kiln::server {

class FarmServiceImpl final : public v1::FarmService::Service {
 public:
  // `state` and `farm` must outlive the service.
  FarmServiceImpl(ServiceState* state, Farm* farm) : state_(state), farm_(farm) {}

  grpc::Status RegisterAgent(grpc::ServerContext* ctx, const v1::RegisterAgentRequest* req,
                             v1::RegisterAgentResponse* resp) override;
  grpc::Status Heartbeat(grpc::ServerContext* ctx, const v1::HeartbeatRequest* req,
                         v1::HeartbeatResponse* resp) override;
  grpc::Status RequestAgent(grpc::ServerContext* ctx, const v1::RequestAgentRequest* req, v1::AgentLease* resp) override;
  grpc::Status RenewLease(grpc::ServerContext* ctx, const v1::RenewLeaseRequest* req, v1::AgentLease* resp) override;
  grpc::Status ReleaseLease(grpc::ServerContext* ctx, const v1::ReleaseLeaseRequest* req,
                            v1::ReleaseLeaseResponse* resp) override;
  grpc::Status ListAgents(grpc::ServerContext* ctx, const v1::ListAgentsRequest* req,
                          v1::ListAgentsResponse* resp) override;

  // kiln_farm_agents{key} and kiln_farm_waiting{key}.
  void RenderMetrics(std::string* out) const;

 private:
  ServiceState* const state_;
  Farm* const farm_;
};

// "0.0.0.0:7000" or ":7000" from a peer "ipv4:10.1.2.3:51234" -> "10.1.2.3:7000": an agent that
// listens on every interface is reached at the address it connected from. Other addresses are kept.
std::string ReachableAddress(const std::string& advertised, const std::string& peer);

}  // namespace kiln::server

#endif  // KILN_SERVER_FARM_FARM_SERVICE_H_
