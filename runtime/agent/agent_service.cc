#include "runtime/agent/agent_service.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/profiling/time_evaluator.h"
#include "runtime/vm/value.h"

#define RETURN_IF_ERROR(expr)  \
  do {                         \
    absl::Status _st = (expr); \
    if (!_st.ok()) return _st; \
  } while (0)
#define AGENT_CONCAT_INNER(a, b) a##b
#define AGENT_CONCAT(a, b) AGENT_CONCAT_INNER(a, b)
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(AGENT_CONCAT(_sor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  auto lhs = *std::move(tmp)

namespace kiln::agent {
namespace {

constexpr size_t kDefaultChunkBytes = size_t{1} << 20;
constexpr size_t kMaxChunkBytes = size_t{4} << 20;

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

// Equal strings in time independent of where they differ (the token check).
bool ConstantTimeEqual(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

absl::Status NoExecutable() {
  return absl::FailedPreconditionError("the session has no executable: call LoadExecutable first");
}

absl::StatusOr<vm::VirtualMachine*> VMOf(Session& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  if (s.vm == nullptr) return NoExecutable();
  return s.vm.get();
}

// Puts the session's recorder (or none) into its VM.
void InstallInstrument(Session& s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  if (s.vm == nullptr) return;
  std::shared_ptr<CallRecorder> recorder = s.instrument;
  if (recorder == nullptr) {
    s.vm->SetInstrument(nullptr);
    return;
  }
  s.vm->SetInstrument(
      [recorder](absl::string_view callee, bool before_run, const vm::Value&, absl::Span<const vm::Value> args) {
        return recorder->OnCall(callee, before_run, args);
      });
}

// Runs `call` with the session's recorder tracing it; the records go to `trace`.
template <typename Call>
absl::Status Traced(Session& s, kiln::v1::InstrumentTrace* trace, Call call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  if (s.instrument == nullptr) return call();
  s.instrument->Begin();
  absl::Status st = call();
  *trace = s.instrument->Finish();
  return st;
}

absl::StatusOr<std::vector<vm::Value>> DecodeArgs(Session& s,
                                                  const google::protobuf::RepeatedPtrField<kiln::v1::Value>& args) {
  ValueDecoder decoder(&s.budget, s.config.device, /*allow_streamed=*/false);
  std::vector<vm::Value> out;
  out.reserve(args.size());
  for (int i = 0; i < args.size(); ++i) {
    absl::StatusOr<vm::Value> v = decoder.Decode(args[i]);
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat("argument ", i, ": ", v.status().message()));
    out.push_back(*std::move(v));
  }
  return out;
}

}  // namespace

AgentServiceImpl::AgentServiceImpl(AgentServiceOptions options, SessionManager* sessions, ExecutableStore* store)
    : options_(std::move(options)), sessions_(sessions), store_(store) {}

absl::Status AgentServiceImpl::Authenticate(const grpc::ServerContext& ctx) const {
  if (options_.token.empty()) return absl::OkStatus();
  const std::string expected = "Bearer " + options_.token;
  auto range = ctx.client_metadata().equal_range("authorization");
  for (auto it = range.first; it != range.second; ++it) {
    if (ConstantTimeEqual(absl::string_view(it->second.data(), it->second.size()), expected)) return absl::OkStatus();
  }
  return absl::UnauthenticatedError(range.first == range.second
                                        ? "kiln-agent requires a token: send \"authorization: Bearer <token>\""
                                        : "kiln-agent: wrong token in the authorization metadata");
}

// ---------------------------------------------------------------- sessions

grpc::Status AgentServiceImpl::OpenSession(grpc::ServerContext* ctx, const kiln::v1::OpenSessionRequest* req,
                                           kiln::v1::OpenSessionResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoOpenSession(*req, resp) : s);
}

absl::Status AgentServiceImpl::DoOpenSession(const kiln::v1::OpenSessionRequest& req,
                                             kiln::v1::OpenSessionResponse* resp) {
  std::string device = req.device().empty() ? "cpu" : req.device();
  if (device != options_.device) {
    return absl::UnimplementedError(
        absl::StrCat("this agent serves device \"", options_.device, "\", not \"", device.substr(0, 64), "\""));
  }
  if (req.device_id() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("device ", device, " has only device_id 0, not ", req.device_id()));
  }
  SessionConfig config;
  config.device = DLDevice{kDLCPU, 0};
  switch (req.allocator()) {
    case kiln::v1::ALLOCATOR_NAIVE:
      config.allocator = vm::AllocatorKind::kNaive;
      break;
    case kiln::v1::ALLOCATOR_KIND_UNSPECIFIED:
    case kiln::v1::ALLOCATOR_POOLED:
      config.allocator = vm::AllocatorKind::kPooled;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown allocator kind ", req.allocator()));
  }
  if (req.num_threads() < 0) return absl::InvalidArgumentError("num_threads must not be negative");
  config.num_threads = req.num_threads();
  config.memory_limit = req.memory_limit_bytes();
  config.lease = std::chrono::seconds(req.lease_seconds());
  ASSIGN_OR_RETURN(id, sessions_->Open(config));
  ASSIGN_OR_RETURN(granted, sessions_->ConfigOf(id));
  resp->set_session_id(id);
  resp->set_lease_seconds(
      static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(granted.lease).count()));
  resp->set_memory_limit_bytes(granted.memory_limit);
  return absl::OkStatus();
}

grpc::Status AgentServiceImpl::KeepAlive(grpc::ServerContext* ctx, const kiln::v1::KeepAliveRequest* req,
                                         kiln::v1::KeepAliveResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  if (!s.ok()) return ToGrpc(s);
  absl::StatusOr<Clock::duration> lease = sessions_->KeepAlive(req->session_id());
  if (!lease.ok()) return ToGrpc(lease.status());
  resp->set_lease_remaining_ms(std::chrono::duration_cast<std::chrono::milliseconds>(*lease).count());
  return grpc::Status::OK;
}

grpc::Status AgentServiceImpl::CloseSession(grpc::ServerContext* ctx, const kiln::v1::CloseSessionRequest* req,
                                            kiln::v1::CloseSessionResponse*) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? sessions_->Close(req->session_id()) : s);
}

// ---------------------------------------------------------------- executables

grpc::Status AgentServiceImpl::LoadExecutable(grpc::ServerContext* ctx,
                                              grpc::ServerReader<kiln::v1::LoadExecutableRequest>* reader,
                                              kiln::v1::LoadExecutableResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoLoadExecutable(reader, resp) : s);
}

absl::Status AgentServiceImpl::DoLoadExecutable(grpc::ServerReader<kiln::v1::LoadExecutableRequest>* reader,
                                                kiln::v1::LoadExecutableResponse* resp) {
  kiln::v1::LoadExecutableRequest msg;
  if (!reader->Read(&msg)) return absl::InvalidArgumentError("LoadExecutable: empty stream");
  ASSIGN_OR_RETURN(session, sessions_->Acquire(msg.session_id()));
  const std::string digest = msg.digest();
  const uint64_t total_size = msg.total_size();
  if (total_size > store_->max_bytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("executable of ", msg.total_size(), " bytes is over the agent's limit of ", store_->max_bytes()));
  }
  // The upload, if any: every message's data in order.
  std::string bytes;
  bytes.reserve(total_size);
  bool upload = false;
  do {
    if (msg.offset() != bytes.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("LoadExecutable: data at offset ", msg.offset(), ", expected ", bytes.size()));
    }
    if (msg.data().size() > store_->max_bytes() - bytes.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("executable upload is over the agent's limit of ", store_->max_bytes(), " bytes"));
    }
    upload = upload || !msg.data().empty();
    bytes.append(msg.data());
  } while (reader->Read(&msg));
  if (upload && total_size != 0 && bytes.size() != total_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("executable upload ended after ", bytes.size(), " of its ", total_size, " bytes"));
  }
  absl::StatusOr<LoadedExecutable> loaded = upload ? store_->Put(digest, std::move(bytes)) : store_->Get(digest);
  if (!loaded.ok()) return loaded.status();

  vm::VMOptions options;
  options.devices = {session->config.device};
  options.allocator = session->config.allocator;
  options.num_threads = session->config.num_threads;
  ASSIGN_OR_RETURN(machine, vm::VirtualMachine::Create(loaded->executable, options));
  {
    absl::MutexLock lock(&session->mu);
    session->vm.swap(machine);  // the old VM, if any, is freed below, outside the lock
    session->incomplete_inputs.clear();
    InstallInstrument(*session);
  }
  machine.reset();
  resp->set_digest(digest);
  resp->set_size(loaded->size);
  resp->set_source(loaded->source);
  for (const vm::FuncInfo& f : loaded->executable->func_table) {
    if (f.kind == vm::FuncInfo::Kind::kVMFunc) resp->add_functions(f.name);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- calls

grpc::Status AgentServiceImpl::SetInput(grpc::ServerContext* ctx, grpc::ServerReader<kiln::v1::SetInputRequest>* reader,
                                        kiln::v1::SetInputResponse*) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoSetInput(reader) : s);
}

absl::Status AgentServiceImpl::DoSetInput(grpc::ServerReader<kiln::v1::SetInputRequest>* reader) {
  kiln::v1::SetInputRequest msg;
  if (!reader->Read(&msg) || !msg.has_header() || msg.has_chunk()) {
    return absl::InvalidArgumentError("SetInput: the first message must be the header alone");
  }
  kiln::v1::SetInputHeader header;
  header.Swap(msg.mutable_header());
  const std::string func = header.function();
  ASSIGN_OR_RETURN(session, sessions_->Acquire(header.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  ASSIGN_OR_RETURN(arity, machine->GetFunctionArity(func));

  // Arguments by position, then by parameter name (Python's keyword arguments).
  std::vector<vm::Value> args(static_cast<size_t>(std::max<int64_t>(arity, 0)));
  std::vector<bool> given(args.size(), false);
  ValueDecoder decoder(&session->budget, session->config.device, /*allow_streamed=*/true);
  size_t next_positional = 0;
  for (int i = 0; i < header.args_size(); ++i) {
    const kiln::v1::NamedValue& a = header.args(i);
    size_t slot = next_positional;
    if (a.name().empty()) {
      if (next_positional != static_cast<size_t>(i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("set_input(", func, "): positional argument ", i, " after a named one"));
      }
      ++next_positional;
    } else {
      slot = args.size();
      for (int64_t p = 0; p < arity; ++p) {
        absl::StatusOr<std::string> name = machine->GetFunctionParamName(func, p);
        if (name.ok() && *name == a.name()) slot = static_cast<size_t>(p);
      }
      if (slot == args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("set_input(", func, "): no parameter named \"", a.name().substr(0, 64), "\""));
      }
    }
    if (slot >= args.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("set_input: \"", func, "\" takes ", arity, " arguments, got ", header.args_size()));
    }
    if (given[slot]) {
      return absl::InvalidArgumentError(absl::StrCat("set_input(", func, "): argument ", slot, " given twice"));
    }
    absl::StatusOr<vm::Value> v = decoder.Decode(a.value());
    if (!v.ok()) {
      return absl::Status(v.status().code(),
                          absl::StrCat("set_input(", func, "): argument ", slot, ": ", v.status().message()));
    }
    args[slot] = *std::move(v);
    given[slot] = true;
  }
  for (size_t i = 0; i < given.size(); ++i) {
    if (!given[i] && header.args_size() != 0) {
      absl::StatusOr<std::string> name = machine->GetFunctionParamName(func, static_cast<int64_t>(i));
      return absl::InvalidArgumentError(absl::StrCat("set_input(", func, "): argument ", i,
                                                     name.ok() ? absl::StrCat(" (", *name, ")") : "", " is missing"));
    }
  }
  if (header.args_size() == 0) args.clear();  // the VM reports the count mismatch

  // The VM checks counts, shapes and dtypes now, before the data is sent: a wrong shape costs no
  // upload. The streamed tensors it now holds are filled in place below.
  RETURN_IF_ERROR(machine->SetInput(func, std::move(args)));
  session->incomplete_inputs.insert(func);
  while (reader->Read(&msg)) {
    if (msg.has_header() || !msg.has_chunk()) {
      return absl::InvalidArgumentError("SetInput: after the header, every message is a chunk alone");
    }
    RETURN_IF_ERROR(decoder.AddChunk(msg.chunk()));
  }
  RETURN_IF_ERROR(decoder.CheckComplete());
  session->incomplete_inputs.erase(func);
  return absl::OkStatus();
}

grpc::Status AgentServiceImpl::Invoke(grpc::ServerContext* ctx, const kiln::v1::InvokeRequest* req,
                                      kiln::v1::InvokeResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoInvoke(*req, resp) : s);
}

absl::Status AgentServiceImpl::DoInvoke(const kiln::v1::InvokeRequest& req, kiln::v1::InvokeResponse* resp) {
  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  ASSIGN_OR_RETURN(args, DecodeArgs(*session, req.args()));
  // A kernel entry (a PrimFunc the executable exports) writes into its arguments (destination
  // passing) and returns nothing: the answer is every argument after the call, as a tuple.
  bool kernel = false;
  for (const vm::FuncInfo& f : machine->executable().func_table) {
    if (f.name == req.function()) kernel = f.kind == vm::FuncInfo::Kind::kPackedFunc;
  }
  std::vector<vm::Value> kept = kernel ? args : std::vector<vm::Value>();
  absl::StatusOr<vm::Value> result;
  RETURN_IF_ERROR(Traced(*session, resp->mutable_trace(), [&] {
    result = machine->Invoke(req.function(), std::move(args));
    return result.status();
  }));
  if (kernel) result = vm::Value::Tuple(std::move(kept));
  return EncodeValue(*result, resp->mutable_result(), nullptr);
}

grpc::Status AgentServiceImpl::InvokeStateful(grpc::ServerContext* ctx, const kiln::v1::InvokeStatefulRequest* req,
                                              kiln::v1::InvokeStatefulResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoInvokeStateful(*req, resp) : s);
}

absl::Status AgentServiceImpl::DoInvokeStateful(const kiln::v1::InvokeStatefulRequest& req,
                                                kiln::v1::InvokeStatefulResponse* resp) {
  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  if (session->incomplete_inputs.count(req.function())) {
    return absl::FailedPreconditionError(
        absl::StrCat("invoke_stateful(\"", req.function(), "\"): its last set_input did not complete"));
  }
  return Traced(*session, resp->mutable_trace(), [&] { return machine->InvokeStateful(req.function()); });
}

grpc::Status AgentServiceImpl::SetInstrument(grpc::ServerContext* ctx, const kiln::v1::SetInstrumentRequest* req,
                                             kiln::v1::SetInstrumentResponse*) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoSetInstrument(*req) : s);
}

absl::Status AgentServiceImpl::DoSetInstrument(const kiln::v1::SetInstrumentRequest& req) {
  if (req.mode() != kiln::v1::INSTRUMENT_OFF && req.mode() != kiln::v1::INSTRUMENT_TRACE) {
    return absl::InvalidArgumentError(absl::StrCat("unknown instrument mode ", req.mode()));
  }
  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  if (req.mode() == kiln::v1::INSTRUMENT_OFF && req.skip().empty()) {
    session->instrument = nullptr;
  } else {
    session->instrument = std::make_shared<CallRecorder>(req.mode() == kiln::v1::INSTRUMENT_TRACE,
                                                         std::set<std::string>(req.skip().begin(), req.skip().end()),
                                                         req.max_records());
  }
  InstallInstrument(*session);
  return absl::OkStatus();
}

grpc::Status AgentServiceImpl::GetOutputs(grpc::ServerContext* ctx, const kiln::v1::GetOutputsRequest* req,
                                          grpc::ServerWriter<kiln::v1::GetOutputsResponse>* writer) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoGetOutputs(*req, writer) : s);
}

absl::Status AgentServiceImpl::DoGetOutputs(const kiln::v1::GetOutputsRequest& req,
                                            grpc::ServerWriter<kiln::v1::GetOutputsResponse>* writer) {
  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  ASSIGN_OR_RETURN(result, machine->GetOutput(req.function()));
  kiln::v1::GetOutputsResponse msg;
  std::vector<runtime::Tensor> tensors;
  RETURN_IF_ERROR(EncodeValue(result, msg.mutable_header()->mutable_result(), &tensors));
  if (!writer->Write(msg)) return absl::CancelledError("GetOutputs: the client went away");
  size_t chunk = req.chunk_bytes() == 0 ? kDefaultChunkBytes : std::min<size_t>(req.chunk_bytes(), kMaxChunkBytes);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const char* data = static_cast<const char*>(tensors[i].data());
    const size_t size = static_cast<size_t>(tensors[i].nbytes());
    for (size_t off = 0; off < size; off += chunk) {
      msg.Clear();
      kiln::v1::TensorChunk* c = msg.mutable_chunk();
      c->set_tensor(static_cast<uint32_t>(i));
      c->set_offset(off);
      c->set_data(data + off, std::min(chunk, size - off));
      if (!writer->Write(msg)) return absl::CancelledError("GetOutputs: the client went away");
    }
  }
  return absl::OkStatus();
}

grpc::Status AgentServiceImpl::SaveFunction(grpc::ServerContext* ctx, const kiln::v1::SaveFunctionRequest* req,
                                            kiln::v1::SaveFunctionResponse*) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoSaveFunction(*req) : s);
}

absl::Status AgentServiceImpl::DoSaveFunction(const kiln::v1::SaveFunctionRequest& req) {
  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  ASSIGN_OR_RETURN(args, DecodeArgs(*session, req.args()));
  return machine->SaveFunction(req.function(), req.saved_name(), std::move(args), req.include_return());
}

grpc::Status AgentServiceImpl::TimeEvaluator(grpc::ServerContext* ctx, const kiln::v1::TimeEvaluatorRequest* req,
                                             kiln::v1::TimeEvaluatorResponse* resp) {
  absl::Status s = Authenticate(*ctx);
  return ToGrpc(s.ok() ? DoTimeEvaluator(*req, resp) : s);
}

absl::Status AgentServiceImpl::DoTimeEvaluator(const kiln::v1::TimeEvaluatorRequest& req,
                                               kiln::v1::TimeEvaluatorResponse* resp) {
  // 0 is TVM's default for every parameter (proto3 has no "unset" for scalars).
  profiling::TimeEvalOptions options;
  if (req.number() != 0) options.number = req.number();
  if (req.repeat() != 0) options.repeat = req.repeat();
  options.min_repeat_ms = req.min_repeat_ms();
  if (req.limit_zero_time_iterations() != 0) options.limit_zero_time_iterations = req.limit_zero_time_iterations();
  options.cooldown_interval_ms = req.cooldown_interval_ms();
  if (req.repeats_to_cooldown() != 0) options.repeats_to_cooldown = req.repeats_to_cooldown();
  options.cache_flush_bytes = req.cache_flush_bytes();

  ASSIGN_OR_RETURN(session, sessions_->Acquire(req.session_id()));
  absl::MutexLock lock(&session->mu);
  ASSIGN_OR_RETURN(machine, VMOf(*session));
  absl::StatusOr<std::vector<double>> results;
  if (req.stateful()) {
    if (!req.args().empty()) {
      return absl::InvalidArgumentError("time_evaluator over invoke_stateful takes no arguments (use set_input)");
    }
    if (session->incomplete_inputs.count(req.function())) {
      return absl::FailedPreconditionError(
          absl::StrCat("time_evaluator(\"", req.function(), "\"): its last set_input did not complete"));
    }
    results = machine->TimeEvaluatorStateful(req.function(), options);
  } else {
    ASSIGN_OR_RETURN(args, DecodeArgs(*session, req.args()));
    results = machine->TimeEvaluator(req.function(), std::move(args), options);
  }
  if (!results.ok()) return results.status();
  for (double r : *results) resp->add_results(r);
  profiling::BenchmarkSummary summary = profiling::Summarize(*results);
  resp->set_mean(summary.mean);
  resp->set_median(summary.median);
  resp->set_min(summary.min);
  resp->set_max(summary.max);
  resp->set_std(summary.std);
  return absl::OkStatus();
}

}  // namespace kiln::agent
