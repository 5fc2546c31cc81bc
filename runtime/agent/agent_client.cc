#include "runtime/agent/agent_client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "runtime/agent/tensor_wire.h"
#include "runtime/tensor.h"

namespace kiln::agent {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

AgentClient::AgentClient(std::shared_ptr<grpc::Channel> channel, std::string token)
    : stub_(kiln::v1::AgentService::NewStub(std::move(channel))), token_(std::move(token)) {}

std::shared_ptr<grpc::Channel> AgentClient::Connect(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<grpc::ClientContext> AgentClient::NewContext() const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) ctx->AddMetadata("authorization", "Bearer " + token_);
  return ctx;
}

absl::StatusOr<kiln::v1::OpenSessionResponse> AgentClient::OpenSession(const kiln::v1::OpenSessionRequest& req) {
  kiln::v1::OpenSessionResponse resp;
  absl::Status s = FromGrpc(stub_->OpenSession(NewContext().get(), req, &resp));
  if (!s.ok()) return s;
  return resp;
}

absl::StatusOr<kiln::v1::LoadExecutableResponse> AgentClient::LoadExecutable(const std::string& session,
                                                                             const std::string& digest) {
  return UploadExecutable(session, digest, "");
}

absl::StatusOr<kiln::v1::LoadExecutableResponse> AgentClient::UploadExecutable(const std::string& session,
                                                                               const std::string& digest,
                                                                               const std::string& bytes,
                                                                               size_t chunk_bytes) {
  auto ctx = NewContext();
  kiln::v1::LoadExecutableResponse resp;
  auto writer = stub_->LoadExecutable(ctx.get(), &resp);
  kiln::v1::LoadExecutableRequest msg;
  msg.set_session_id(session);
  msg.set_digest(digest);
  msg.set_total_size(bytes.size());
  size_t off = 0;
  do {
    size_t n = std::min(chunk_bytes, bytes.size() - off);
    msg.set_offset(off);
    msg.set_data(bytes.data() + off, n);
    off += n;
    if (!writer->Write(msg)) break;  // the agent answered early; Finish says why
    msg.Clear();
  } while (off < bytes.size());
  writer->WritesDone();
  absl::Status s = FromGrpc(writer->Finish());
  if (!s.ok()) return s;
  return resp;
}

absl::Status AgentClient::SetInput(const std::string& session, const std::string& function,
                                   const std::vector<vm::Value>& args, size_t chunk_bytes) {
  kiln::v1::SetInputRequest header;
  header.mutable_header()->set_session_id(session);
  header.mutable_header()->set_function(function);
  std::vector<runtime::Tensor> tensors;
  for (const vm::Value& a : args) {
    absl::Status s = EncodeValue(a, header.mutable_header()->add_args()->mutable_value(), &tensors);
    if (!s.ok()) return s;
  }
  auto ctx = NewContext();
  kiln::v1::SetInputResponse resp;
  auto writer = stub_->SetInput(ctx.get(), &resp);
  bool open = writer->Write(header);
  kiln::v1::SetInputRequest msg;
  for (size_t i = 0; open && i < tensors.size(); ++i) {
    const char* data = static_cast<const char*>(tensors[i].data());
    const size_t size = static_cast<size_t>(tensors[i].nbytes());
    for (size_t off = 0; open && off < size; off += chunk_bytes) {
      kiln::v1::TensorChunk* c = msg.mutable_chunk();
      c->set_tensor(static_cast<uint32_t>(i));
      c->set_offset(off);
      c->set_data(data + off, std::min(chunk_bytes, size - off));
      open = writer->Write(msg);
    }
  }
  writer->WritesDone();
  return FromGrpc(writer->Finish());
}

absl::StatusOr<vm::Value> AgentClient::Invoke(const std::string& session, const std::string& function,
                                              const std::vector<vm::Value>& args,
                                              kiln::v1::InstrumentTrace* trace) {
  kiln::v1::InvokeRequest req;
  req.set_session_id(session);
  req.set_function(function);
  for (const vm::Value& a : args) {
    absl::Status s = EncodeValue(a, req.add_args(), nullptr);
    if (!s.ok()) return s;
  }
  kiln::v1::InvokeResponse resp;
  absl::Status s = FromGrpc(stub_->Invoke(NewContext().get(), req, &resp));
  if (!s.ok()) return s;
  if (trace != nullptr) trace->Swap(resp.mutable_trace());
  MemoryBudget unlimited(0, nullptr);
  ValueDecoder decoder(&unlimited, DLDevice{kDLCPU, 0}, /*allow_streamed=*/false);
  return decoder.Decode(resp.result());
}

absl::Status AgentClient::InvokeStateful(const std::string& session, const std::string& function,
                                         kiln::v1::InstrumentTrace* trace) {
  kiln::v1::InvokeStatefulRequest req;
  req.set_session_id(session);
  req.set_function(function);
  kiln::v1::InvokeStatefulResponse resp;
  absl::Status s = FromGrpc(stub_->InvokeStateful(NewContext().get(), req, &resp));
  if (s.ok() && trace != nullptr) trace->Swap(resp.mutable_trace());
  return s;
}

absl::Status AgentClient::SetInstrument(const kiln::v1::SetInstrumentRequest& req) {
  kiln::v1::SetInstrumentResponse resp;
  return FromGrpc(stub_->SetInstrument(NewContext().get(), req, &resp));
}

absl::StatusOr<vm::Value> AgentClient::GetOutputs(const std::string& session, const std::string& function,
                                                  uint32_t chunk_bytes) {
  kiln::v1::GetOutputsRequest req;
  req.set_session_id(session);
  req.set_function(function);
  req.set_chunk_bytes(chunk_bytes);
  auto ctx = NewContext();
  auto reader = stub_->GetOutputs(ctx.get(), req);
  MemoryBudget unlimited(0, nullptr);  // every byte is written by the chunks: no zero-filling
  ValueDecoder decoder(&unlimited, DLDevice{kDLCPU, 0}, /*allow_streamed=*/true);
  kiln::v1::GetOutputsResponse msg;
  absl::StatusOr<vm::Value> result = absl::InternalError("GetOutputs: no header");
  absl::Status bad;
  while (bad.ok() && reader->Read(&msg)) {
    if (msg.has_header()) {
      result = decoder.Decode(msg.header().result());
      bad = result.status();
    } else {
      bad = decoder.AddChunk(msg.chunk());
    }
  }
  if (!bad.ok()) ctx->TryCancel();
  absl::Status s = FromGrpc(reader->Finish());
  if (!bad.ok()) return bad;
  if (!s.ok()) return s;
  if (absl::Status c = decoder.CheckComplete(); !c.ok()) return c;
  return result;
}

absl::Status AgentClient::SaveFunction(const std::string& session, const std::string& function,
                                       const std::string& saved_name, const std::vector<vm::Value>& args,
                                       bool include_return) {
  kiln::v1::SaveFunctionRequest req;
  req.set_session_id(session);
  req.set_function(function);
  req.set_saved_name(saved_name);
  req.set_include_return(include_return);
  for (const vm::Value& a : args) {
    absl::Status s = EncodeValue(a, req.add_args(), nullptr);
    if (!s.ok()) return s;
  }
  kiln::v1::SaveFunctionResponse resp;
  return FromGrpc(stub_->SaveFunction(NewContext().get(), req, &resp));
}

absl::StatusOr<kiln::v1::TimeEvaluatorResponse> AgentClient::TimeEvaluator(kiln::v1::TimeEvaluatorRequest req,
                                                                           const std::vector<vm::Value>& args) {
  for (const vm::Value& a : args) {
    absl::Status s = EncodeValue(a, req.add_args(), nullptr);
    if (!s.ok()) return s;
  }
  kiln::v1::TimeEvaluatorResponse resp;
  absl::Status s = FromGrpc(stub_->TimeEvaluator(NewContext().get(), req, &resp));
  if (!s.ok()) return s;
  return resp;
}

absl::StatusOr<uint64_t> AgentClient::KeepAlive(const std::string& session) {
  kiln::v1::KeepAliveRequest req;
  req.set_session_id(session);
  kiln::v1::KeepAliveResponse resp;
  absl::Status s = FromGrpc(stub_->KeepAlive(NewContext().get(), req, &resp));
  if (!s.ok()) return s;
  return resp.lease_remaining_ms();
}

absl::Status AgentClient::CloseSession(const std::string& session) {
  kiln::v1::CloseSessionRequest req;
  req.set_session_id(session);
  kiln::v1::CloseSessionResponse resp;
  return FromGrpc(stub_->CloseSession(NewContext().get(), req, &resp));
}

}  // namespace kiln::agent
