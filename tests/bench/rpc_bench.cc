// kilnd's cache-hit Compile beside the gRPC floor, measured in the same run (manual, never in CI):
//   p50/p99 of one client calling Compile on a module kilnd has cached, vs a raw gRPC unary echo
//   moving the same request and reply sizes; then throughput of 64 concurrent clients (one
//   connection each) on both. The echo server runs in a child process, as kilnd does, so that
//   neither server shares the client's process. Both sides use the generated stubs directly (no
//   kiln::Client checks), one ClientContext per call.
//
//   bazel build -c opt //tests/bench:rpc_bench //server:kilnd
//   bazel-bin/server/kilnd --listen 127.0.0.1:0 --port-file /tmp/port --cache-dir /tmp/kc &
//   bazel-bin/tests/bench/rpc_bench --server 127.0.0.1:$(cat /tmp/port)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/grpcpp.h"
#include "proto/compile.grpc.pb.h"
#include "tests/bench/echo_service.h"
#include "tests/load/load.h"

ABSL_FLAG(std::string, server, "", "the kilnd, HOST:PORT");
ABSL_FLAG(int, calls, 2000, "sequential calls for the latency figures");
ABSL_FLAG(int, concurrency, 64, "clients for the throughput figures");
ABSL_FLAG(double, seconds, 5, "seconds of each throughput run");
ABSL_FLAG(std::string, token_file, "", "file whose first line is kilnd's bearer token");
ABSL_FLAG(std::string, target, "llvm", "the target of the cached module");

namespace {

using Clock = std::chrono::steady_clock;

// Forked before this process makes any gRPC object: the child serves the echo on a loopback port
// and writes the port to `fd`.
[[noreturn]] void EchoServerMain(int fd) {
  kiln::bench::EchoService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (write(fd, &port, sizeof(port)) != sizeof(port) || !server) _exit(1);
  close(fd);
  server->Wait();
  _exit(0);
}

std::shared_ptr<grpc::Channel> Channel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // one connection per client
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

// One call of the measured kind; false on an error (printed once).
using Call = std::function<bool()>;

struct Latency {
  double p50_ms = 0, p99_ms = 0;
  int errors = 0;
};

Latency Measure(const Call& call, int calls) {
  for (int i = 0; i < std::min(calls / 10 + 1, 200); ++i) call();  // warm the connection
  std::vector<double> ms;
  Latency l;
  for (int i = 0; i < calls; ++i) {
    auto start = Clock::now();
    if (!call()) ++l.errors;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  l.p50_ms = kiln::load::Percentile(ms, 0.5);
  l.p99_ms = kiln::load::Percentile(ms, 0.99);
  return l;
}

// Calls per second of `clients` threads, each with the call `make(i)` returns, for `seconds`.
double Throughput(const std::function<Call(int)>& make, int clients, double seconds, int* errors) {
  std::vector<Call> calls;
  for (int i = 0; i < clients; ++i) calls.push_back(make(i));
  for (Call& c : calls) c();  // connect
  std::atomic<int64_t> done{0};
  std::atomic<int> failed{0};
  auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      int64_t n = 0;
      while (Clock::now() < end) {
        if (!calls[i]()) failed.fetch_add(1);
        ++n;
      }
      done.fetch_add(n);
    });
  }
  for (std::thread& t : threads) t.join();
  *errors = failed.load();
  return done.load() / std::chrono::duration<double>(Clock::now() - start).count();
}

Call CompileCall(std::shared_ptr<kiln::v1::CompileService::Stub> stub, const kiln::v1::CompileRequest& request,
                 const std::string& token, const std::string& digest) {
  return [stub, request, token, digest] {
    grpc::ClientContext ctx;
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
    kiln::v1::CompileResponse response;
    grpc::Status st = stub->Compile(&ctx, request, &response);
    if (!st.ok()) {
      std::fprintf(stderr, "rpc_bench: Compile: %s\n", st.error_message().c_str());
      return false;
    }
    return response.digest() == digest && response.cache() == kiln::v1::CACHE_MEMORY;
  };
}

Call EchoCall(std::shared_ptr<kiln::bench::Echo::Stub> stub, const kiln::bench::EchoRequest& request) {
  return [stub, request] {
    grpc::ClientContext ctx;
    kiln::bench::EchoReply reply;
    grpc::Status st = stub->Echo(&ctx, request, &reply);
    return st.ok() && reply.payload().size() == request.reply_bytes();
  };
}

int Run(int echo_port) {
  std::string server = absl::GetFlag(FLAGS_server);
  std::string token;
  if (std::string path = absl::GetFlag(FLAGS_token_file); !path.empty()) {
    std::ifstream in(path);
    std::getline(in, token);
    token = std::string(absl::StripAsciiWhitespace(token));
  }
  kiln::v1::CompileRequest request;
  request.set_source(kiln::load::HitSource());
  request.set_filename("hit.py");
  request.set_target(absl::GetFlag(FLAGS_target));

  // The first compile puts the module in kilnd's cache; every later one is a memory hit.
  auto stub = std::shared_ptr<kiln::v1::CompileService::Stub>(kiln::v1::CompileService::NewStub(Channel(server)));
  kiln::v1::CompileResponse first;
  {
    grpc::ClientContext ctx;
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
    grpc::Status st = stub->Compile(&ctx, request, &first);
    if (!st.ok()) {
      std::fprintf(stderr, "rpc_bench: Compile on %s: %s\n", server.c_str(), st.error_message().c_str());
      return 1;
    }
  }
  if (first.executable().empty()) {
    std::fprintf(stderr, "rpc_bench: the module's executable did not come inline\n");
    return 1;
  }
  first.set_cache(kiln::v1::CACHE_MEMORY);
  first.mutable_metadata()->set_compile_micros(0);
  kiln::bench::EchoRequest echo;
  echo.set_payload(std::string(request.ByteSizeLong(), 'r'));
  echo.set_reply_bytes(static_cast<uint32_t>(first.ByteSizeLong()));
  std::string echo_address = absl::StrCat("127.0.0.1:", echo_port);
  auto echo_stub = std::shared_ptr<kiln::bench::Echo::Stub>(kiln::bench::Echo::NewStub(Channel(echo_address)));

  int calls = absl::GetFlag(FLAGS_calls), clients = absl::GetFlag(FLAGS_concurrency);
  double seconds = absl::GetFlag(FLAGS_seconds);
  std::printf("rpc_bench: kilnd %s (cache-hit Compile) vs gRPC unary echo %s; request %zu B, reply %zu B\n",
              server.c_str(), echo_address.c_str(), request.ByteSizeLong(), first.ByteSizeLong());
  std::printf("latency: %d sequential calls, one client; throughput: %d clients (one connection each), %.1f s;\n"
              "hardware threads here: %u\n\n",
              calls, clients, seconds, std::thread::hardware_concurrency());
  Latency hit = Measure(CompileCall(stub, request, token, first.digest()), calls);
  Latency floor = Measure(EchoCall(echo_stub, echo), calls);
  int hit_errors = 0, echo_errors = 0;
  double hit_rps = Throughput(
      [&](int) {
        auto s = std::shared_ptr<kiln::v1::CompileService::Stub>(kiln::v1::CompileService::NewStub(Channel(server)));
        return CompileCall(s, request, token, first.digest());
      },
      clients, seconds, &hit_errors);
  double echo_rps = Throughput(
      [&](int) {
        auto s = std::shared_ptr<kiln::bench::Echo::Stub>(kiln::bench::Echo::NewStub(Channel(echo_address)));
        return EchoCall(s, echo);
      },
      clients, seconds, &echo_errors);
  std::printf("%-22s %10s %10s %16s %8s\n", "", "p50_ms", "p99_ms", "throughput_rps", "errors");
  std::printf("%-22s %10.3f %10.3f %16.0f %8d\n", "kilnd Compile (hit)", hit.p50_ms, hit.p99_ms, hit_rps,
              hit.errors + hit_errors);
  std::printf("%-22s %10.3f %10.3f %16.0f %8d\n", "gRPC echo (same size)", floor.p50_ms, floor.p99_ms, echo_rps,
              floor.errors + echo_errors);
  std::printf("%-22s %9.2fx %9.2fx %15.2fx\n", "kilnd / echo", hit.p50_ms / floor.p50_ms, hit.p99_ms / floor.p99_ms,
              hit_rps / echo_rps);
  return hit.errors + hit_errors + floor.errors + echo_errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_server).empty()) {
    std::fprintf(stderr, "usage: rpc_bench --server HOST:PORT [--calls N] [--concurrency C] [--seconds S]\n");
    return 2;
  }
  int fds[2];
  if (pipe(fds) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(fds[0]);
    EchoServerMain(fds[1]);
  }
  close(fds[1]);
  int port = 0;
  bool started = read(fds[0], &port, sizeof(port)) == sizeof(port) && port > 0;
  close(fds[0]);
  int rc = started ? Run(port) : 1;
  if (!started) std::fprintf(stderr, "rpc_bench: the echo server did not start\n");
  kill(child, SIGTERM);
  waitpid(child, nullptr, 0);
  return rc;
}
