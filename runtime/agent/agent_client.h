// A small C++ client of kiln.v1.AgentService: the RPCs with vm::Values in and out, tensors
// streamed in chunks where the API streams them. The agent's tests use it; it is the piece a fuller
// C++ client (client/cpp) can wrap.
#ifndef KILN_RUNTIME_AGENT_AGENT_CLIENT_H_
#define KILN_RUNTIME_AGENT_AGENT_CLIENT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "proto/agent.grpc.pb.h"
#include "runtime/vm/value.h"

namespace kiln::agent {

class AgentClient {
 public:
  // `token`: sent as "authorization: Bearer <token>" when not empty.
  explicit AgentClient(std::shared_ptr<grpc::Channel> channel, std::string token = "");
  // An insecure channel to `address` that accepts messages of any size.
  static std::shared_ptr<grpc::Channel> Connect(const std::string& address);

  absl::StatusOr<kiln::v1::OpenSessionResponse> OpenSession(const kiln::v1::OpenSessionRequest& req);
  // By digest only (the agent's cache or kilnd).
  absl::StatusOr<kiln::v1::LoadExecutableResponse> LoadExecutable(const std::string& session,
                                                                  const std::string& digest);
  // Uploads `bytes` in chunks of `chunk_bytes`.
  absl::StatusOr<kiln::v1::LoadExecutableResponse> UploadExecutable(const std::string& session,
                                                                    const std::string& digest, const std::string& bytes,
                                                                    size_t chunk_bytes = size_t{1} << 20);
  // Positional arguments; every tensor streamed in chunks of `chunk_bytes`.
  absl::Status SetInput(const std::string& session, const std::string& function, const std::vector<vm::Value>& args,
                        size_t chunk_bytes = size_t{1} << 20);
  // `trace`, when given, receives what the session's instrument recorded during the call.
  absl::StatusOr<vm::Value> Invoke(const std::string& session, const std::string& function,
                                   const std::vector<vm::Value>& args, kiln::v1::InstrumentTrace* trace = nullptr);
  absl::Status InvokeStateful(const std::string& session, const std::string& function,
                              kiln::v1::InstrumentTrace* trace = nullptr);
  absl::StatusOr<vm::Value> GetOutputs(const std::string& session, const std::string& function,
                                       uint32_t chunk_bytes = 0);
  absl::Status SaveFunction(const std::string& session, const std::string& function, const std::string& saved_name,
                            const std::vector<vm::Value>& args, bool include_return);
  // req.session_id and req.function must be set; `args` are encoded into req.
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> TimeEvaluator(kiln::v1::TimeEvaluatorRequest req,
                                                                const std::vector<vm::Value>& args = {});
  // req.session_id must be set.
  absl::Status SetInstrument(const kiln::v1::SetInstrumentRequest& req);
  // The lease remaining, in ms.
  absl::StatusOr<uint64_t> KeepAlive(const std::string& session);
  absl::Status CloseSession(const std::string& session);

  kiln::v1::AgentService::Stub& stub() { return *stub_; }
  // A context carrying the token.
  std::unique_ptr<grpc::ClientContext> NewContext() const;

 private:
  std::unique_ptr<kiln::v1::AgentService::Stub> stub_;
  std::string token_;
};

// grpc::Status -> absl::Status (same codes, same message).
absl::Status FromGrpc(const grpc::Status& s);

}  // namespace kiln::agent

#endif  // KILN_RUNTIME_AGENT_AGENT_CLIENT_H_
