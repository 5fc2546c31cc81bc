// kiln.v1.AgentService (proto/agent.proto) over a SessionManager and an ExecutableStore: each RPC
// authenticates, takes its session (renewing the lease), and drives the session's VirtualMachine.
// Errors are the VM's and the loader's absl::Status, passed through with their codes and messages.
#ifndef KILN_RUNTIME_AGENT_AGENT_SERVICE_H_
#define KILN_RUNTIME_AGENT_AGENT_SERVICE_H_

#include <dlpack/dlpack.h>

#include <string>

#include "absl/status/status.h"
#include "proto/agent.grpc.pb.h"
#include "runtime/agent/executable_store.h"
#include "runtime/agent/session.h"

namespace kiln::agent {

struct AgentServiceOptions {
  // The device kind this agent serves ("cpu").
  std::string device = "cpu";
  // Non-empty: every call must carry "authorization: Bearer <token>".
  std::string token;
};

class AgentServiceImpl final : public kiln::v1::AgentService::Service {
 public:
  // `sessions` and `store` must outlive the service.
  AgentServiceImpl(AgentServiceOptions options, SessionManager* sessions, ExecutableStore* store);

  grpc::Status OpenSession(grpc::ServerContext* ctx, const kiln::v1::OpenSessionRequest* req,
                           kiln::v1::OpenSessionResponse* resp) override;
  grpc::Status LoadExecutable(grpc::ServerContext* ctx, grpc::ServerReader<kiln::v1::LoadExecutableRequest>* reader,
                              kiln::v1::LoadExecutableResponse* resp) override;
  grpc::Status SetInput(grpc::ServerContext* ctx, grpc::ServerReader<kiln::v1::SetInputRequest>* reader,
                        kiln::v1::SetInputResponse* resp) override;
  grpc::Status Invoke(grpc::ServerContext* ctx, const kiln::v1::InvokeRequest* req,
                      kiln::v1::InvokeResponse* resp) override;
  grpc::Status InvokeStateful(grpc::ServerContext* ctx, const kiln::v1::InvokeStatefulRequest* req,
                              kiln::v1::InvokeStatefulResponse* resp) override;
  grpc::Status GetOutputs(grpc::ServerContext* ctx, const kiln::v1::GetOutputsRequest* req,
                          grpc::ServerWriter<kiln::v1::GetOutputsResponse>* writer) override;
  grpc::Status SaveFunction(grpc::ServerContext* ctx, const kiln::v1::SaveFunctionRequest* req,
                            kiln::v1::SaveFunctionResponse* resp) override;
  grpc::Status TimeEvaluator(grpc::ServerContext* ctx, const kiln::v1::TimeEvaluatorRequest* req,
                             kiln::v1::TimeEvaluatorResponse* resp) override;
  grpc::Status SetInstrument(grpc::ServerContext* ctx, const kiln::v1::SetInstrumentRequest* req,
                             kiln::v1::SetInstrumentResponse* resp) override;
  grpc::Status KeepAlive(grpc::ServerContext* ctx, const kiln::v1::KeepAliveRequest* req,
                         kiln::v1::KeepAliveResponse* resp) override;
  grpc::Status CloseSession(grpc::ServerContext* ctx, const kiln::v1::CloseSessionRequest* req,
                            kiln::v1::CloseSessionResponse* resp) override;

 private:
  absl::Status Authenticate(const grpc::ServerContext& ctx) const;
  absl::Status DoOpenSession(const kiln::v1::OpenSessionRequest& req, kiln::v1::OpenSessionResponse* resp);
  absl::Status DoLoadExecutable(grpc::ServerReader<kiln::v1::LoadExecutableRequest>* reader,
                                kiln::v1::LoadExecutableResponse* resp);
  absl::Status DoSetInput(grpc::ServerReader<kiln::v1::SetInputRequest>* reader);
  absl::Status DoInvoke(const kiln::v1::InvokeRequest& req, kiln::v1::InvokeResponse* resp);
  absl::Status DoInvokeStateful(const kiln::v1::InvokeStatefulRequest& req, kiln::v1::InvokeStatefulResponse* resp);
  absl::Status DoSetInstrument(const kiln::v1::SetInstrumentRequest& req);
  absl::Status DoGetOutputs(const kiln::v1::GetOutputsRequest& req,
                            grpc::ServerWriter<kiln::v1::GetOutputsResponse>* writer);
  absl::Status DoSaveFunction(const kiln::v1::SaveFunctionRequest& req);
  absl::Status DoTimeEvaluator(const kiln::v1::TimeEvaluatorRequest& req, kiln::v1::TimeEvaluatorResponse* resp);

  const AgentServiceOptions options_;
  SessionManager* sessions_;
  ExecutableStore* store_;
};

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_AGENT_SERVICE_H_
