// kiln-agent against the raw gRPC floor, side by side in one run, both servers on 127.0.0.1 in
// this process:
//   * invoke round trip: remote Invoke of `add` (two 4x8 float32 inline) vs a unary echo
//     (tests/bench/echo.proto) moving the same bytes each way;
//   * upload: SetInput of a 64 MiB tensor (1 MiB chunks) vs a client stream of 64 MiB that the
//     server only counts;
//   * time_evaluator of a 256^3 matmul over RPC vs the same VM call in process.
// Usage: bazel run -c opt //tests/agent:agent_bench -- model.kx   (model.kx: `kiln build
// tests/agent/testdata/model.py`; the bench does not depend on the compiler, so -c opt builds only
// the runtime and gRPC).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "runtime/agent/agent_client.h"
#include "runtime/agent/agent_server.h"
#include "runtime/agent/digest.h"
#include "runtime/vm/vm.h"
#include "tests/bench/echo_service.h"

namespace kiln::agent {
namespace {

using Seconds = std::chrono::duration<double>;

template <typename F>
std::vector<double> Time(int n, F f) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(Seconds(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t;
}

double P(const std::vector<double>& t, double q) { return t[static_cast<size_t>(q * (t.size() - 1))]; }

runtime::Tensor Filled(const std::vector<int64_t>& shape) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, DLDataType{kDLFloat, 32, 1});
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i % 97) * 0.01f;
  return t;
}

int Run(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: agent_bench MODEL.kx  (kiln build tests/agent/testdata/model.py)\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string exe = ss.str();
  AgentConfig config;
  absl::StatusOr<std::unique_ptr<AgentServer>> agent = AgentServer::Start(config);
  if (!agent.ok()) return 1;
  kiln::bench::EchoService echo;
  grpc::ServerBuilder b;
  int echo_port = 0;
  b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &echo_port);
  b.RegisterService(&echo);
  b.SetMaxReceiveMessageSize(config.max_message_bytes);
  std::unique_ptr<grpc::Server> echo_server = b.BuildAndStart();

  AgentClient client(AgentClient::Connect("127.0.0.1:" + std::to_string((*agent)->port())));
  auto echo_stub = kiln::bench::Echo::NewStub(AgentClient::Connect("127.0.0.1:" + std::to_string(echo_port)));
  kiln::v1::OpenSessionRequest open;
  open.set_num_threads(1);
  std::string sid = client.OpenSession(open)->session_id();
  absl::StatusOr<kiln::v1::LoadExecutableResponse> loaded = client.UploadExecutable(sid, Sha256Hex(exe), exe);
  if (!loaded.ok()) {
    std::fprintf(stderr, "load: %s\n", std::string(loaded.status().message()).c_str());
    return 1;
  }

  // 1. Round trip.
  runtime::Tensor x = Filled({4, 8});
  std::vector<vm::Value> args = {vm::Value::Tensor(x), vm::Value::Tensor(x)};
  kiln::v1::InvokeRequest probe;
  for (const vm::Value& a : args) static_cast<void>(EncodeValue(a, probe.add_args(), nullptr));
  kiln::v1::InvokeResponse answer;
  static_cast<void>(EncodeValue(args[0], answer.mutable_result(), nullptr));
  kiln::bench::EchoRequest blob;  // the bytes an invoke moves each way
  blob.set_payload(std::string(probe.ByteSizeLong() + 40, 'x'));  // + session id and function name
  blob.set_reply_bytes(static_cast<uint32_t>(answer.ByteSizeLong()));
  const int kCalls = 2000;
  Time(200, [&] { static_cast<void>(client.Invoke(sid, "add", args)); });  // warm-up
  std::vector<double> invoke = Time(kCalls, [&] { static_cast<void>(client.Invoke(sid, "add", args)); });
  std::vector<double> unary = Time(kCalls, [&] {
    grpc::ClientContext ctx;
    kiln::bench::EchoReply out;
    static_cast<void>(echo_stub->Echo(&ctx, blob, &out));
  });
  std::printf("round trip (%d calls)        p50 %7.1f us  p99 %7.1f us\n", kCalls, P(invoke, 0.5) * 1e6,
              P(invoke, 0.99) * 1e6);
  std::printf("  raw gRPC unary echo %zu B   p50 %7.1f us  p99 %7.1f us   ratio %.2fx\n", blob.payload().size(),
              P(unary, 0.5) * 1e6, P(unary, 0.99) * 1e6, P(invoke, 0.5) / P(unary, 0.5));

  // 2. Upload.
  const int64_t kMiB = 64;
  runtime::Tensor big = Filled({kMiB << 18});
  std::vector<double> upload = Time(5, [&] {
    absl::Status s = client.SetInput(sid, "double", {vm::Value::Tensor(big)});
    if (!s.ok()) std::fprintf(stderr, "set_input: %s\n", std::string(s.message()).c_str());
  });
  std::vector<double> sink = Time(5, [&] {
    grpc::ClientContext ctx;
    kiln::bench::SinkReply count;
    auto w = echo_stub->Sink(&ctx, &count);
    kiln::bench::EchoRequest chunk;
    const char* data = static_cast<const char*>(big.data());
    for (int64_t off = 0; off < big.nbytes(); off += 1 << 20) {
      chunk.set_payload(data + off, 1 << 20);
      w->Write(chunk);
    }
    w->WritesDone();
    static_cast<void>(w->Finish());
  });
  std::printf("upload %lld MiB (median of 5)  set_input %7.1f ms (%6.0f MiB/s)\n", static_cast<long long>(kMiB),
              P(upload, 0.5) * 1e3, kMiB / P(upload, 0.5));
  std::printf("  raw gRPC client stream       %7.1f ms (%6.0f MiB/s)   ratio %.2fx\n", P(sink, 0.5) * 1e3,
              kMiB / P(sink, 0.5), P(upload, 0.5) / P(sink, 0.5));

  // 3. time_evaluator, remote and local (same executable, one thread each).
  runtime::Tensor a = Filled({256, 256}), w = Filled({256, 256});
  kiln::v1::TimeEvaluatorRequest te;
  te.set_session_id(sid);
  te.set_function("matmul256");
  te.set_number(20);
  te.set_repeat(5);
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> remote =
      client.TimeEvaluator(te, {vm::Value::Tensor(a), vm::Value::Tensor(w)});
  absl::StatusOr<vm::Executable> parsed = vm::Executable::Deserialize(exe);
  vm::VMOptions options;
  options.num_threads = 1;
  auto local_vm = vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(parsed)), options);
  profiling::TimeEvalOptions teo;
  teo.number = 20;
  teo.repeat = 5;
  absl::StatusOr<std::vector<double>> local =
      (*local_vm)->TimeEvaluator("matmul256", {vm::Value::Tensor(a), vm::Value::Tensor(w)}, teo);
  if (!remote.ok() || !local.ok()) return 1;
  profiling::BenchmarkSummary ls = profiling::Summarize(*local);
  std::printf("time_evaluator matmul256     remote median %8.1f us (min %8.1f)\n", remote->median() * 1e6,
              remote->min() * 1e6);
  std::printf("  local VM                     local  median %8.1f us (min %8.1f)   ratio %.2fx\n", ls.median * 1e6,
              ls.min * 1e6, remote->median() / ls.median);
  (*agent)->Shutdown();
  echo_server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace kiln::agent

int main(int argc, char** argv) { return kiln::agent::Run(argc, argv); }
