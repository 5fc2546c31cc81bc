// kilnd: the compile service (DESIGN.md §2). See `kilnd --help`; every flag can also come from a
// config file with --flagfile=FILE (one --flag=value per line).
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "compiler/version.h"
#include "runtime/port_file.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/cache/disk_cache.h"
#include "server/cache/memory_cache.h"
#include "server/cache/redis_cache.h"
#include "server/cache/tiered_cache.h"
#include "server/farm/farm.h"
#include "server/farm/farm_service.h"
#include "server/pool/in_process_backend.h"
#include "server/pool/worker_pool.h"
#include "server/service/auth.h"
#include "server/service/command_line.h"
#include "server/service/compile_service.h"
#include "server/service/rpc_call.h"
#include "server/service/metrics.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7878", "HOST:PORT to serve gRPC on (port 0: any free port, see --port-file)");
ABSL_FLAG(std::string, port_file, "", "write the bound gRPC port to this file once serving");
ABSL_FLAG(std::string, cache_dir, "~/.cache/kiln", "the local disk cache's directory (created if missing)");
ABSL_FLAG(int64_t, memory_cache_mb, 256, "the in-memory LRU's capacity in MiB");
ABSL_FLAG(int64_t, disk_cache_mb, 4096, "the disk cache's capacity in MiB (least recently used entries go first)");
ABSL_FLAG(std::string, redis, "", "HOST:PORT of a Redis shared by kilnd replicas as the last cache tier; empty: none");
ABSL_FLAG(int64_t, redis_ttl_seconds, 7 * 24 * 3600, "time to live of the entries kilnd writes to Redis (0: none)");
ABSL_FLAG(int32_t, workers_per_target, 1,
          "compile worker processes per target; 0 compiles inside kilnd (no isolation, for debugging)");
ABSL_FLAG(std::string, worker_binary, "", "the kilnd-worker executable; empty: the one next to kilnd");
ABSL_FLAG(int32_t, max_queue, 64, "compiles that may wait per target; one more gets RESOURCE_EXHAUSTED");
ABSL_FLAG(uint32_t, job_cpu_seconds, 600, "CPU seconds one compile may use (0: no limit)");
ABSL_FLAG(int64_t, job_memory_mb, 8192, "memory one compile may add to its worker, in MiB (0: no limit)");
ABSL_FLAG(std::string, token_file, "",
          "bearer tokens with their permissions (lines \"<token> <name> compile|admin\"); empty: no auth");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain of the server (enables TLS, with --tls-key)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of the server");
ABSL_FLAG(std::string, tls_client_ca, "", "PEM CA bundle: require client certificates signed by it (mutual TLS)");
ABSL_FLAG(std::string, metrics_listen, "", "HOST:PORT of the Prometheus /metrics HTTP endpoint; empty: off");
ABSL_FLAG(int64_t, max_request_mb, 64, "largest request message in MiB (larger: RESOURCE_EXHAUSTED)");
ABSL_FLAG(int64_t, max_inline_kb, 1024, "executables up to this many KiB come back inline in CompileResponse");
ABSL_FLAG(int32_t, drain_seconds, 30, "on SIGTERM/SIGINT, how long in-flight calls may take to finish");
ABSL_FLAG(int32_t, heartbeat_ms, 2000,
          "how often farm agents heartbeat; one that misses about two (2.5 intervals) is dropped");
ABSL_FLAG(bool, log_requests, true, "log one JSON line per request to stderr");

namespace kiln::server {
namespace {

std::string ExpandHome(const std::string& path) {
  if (!absl::StartsWith(path, "~/")) return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    const passwd* pw = getpwuid(getuid());
    home = pw != nullptr ? pw->pw_dir : "/tmp";
  }
  return absl::StrCat(home, path.substr(1));
}

absl::StatusOr<std::string> ReadWhole(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", what, " ", path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials() {
  std::string cert = absl::GetFlag(FLAGS_tls_cert), key = absl::GetFlag(FLAGS_tls_key);
  std::string client_ca = absl::GetFlag(FLAGS_tls_client_ca);
  if (cert.empty() != key.empty()) return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  if (cert.empty()) {
    if (!client_ca.empty()) return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions ssl(client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                          : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  absl::StatusOr<std::string> cert_pem = ReadWhole(cert, "--tls-cert");
  absl::StatusOr<std::string> key_pem = ReadWhole(key, "--tls-key");
  if (!cert_pem.ok()) return cert_pem.status();
  if (!key_pem.ok()) return key_pem.status();
  ssl.pem_key_cert_pairs.push_back({*key_pem, *cert_pem});
  if (!client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadWhole(client_ca, "--tls-client-ca");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
  }
  return grpc::SslServerCredentials(ssl);
}

int Fail(const absl::Status& st) {
  std::fprintf(stderr, "kilnd: %s\n", std::string(st.message()).c_str());
  return 1;
}

int Main() {
  // Signals are taken by one thread with sigwait; every thread started after this inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that vanishes mid-write is an error return, not a death

  absl::StatusOr<TokenTable> tokens = TokenTable();
  if (!absl::GetFlag(FLAGS_token_file).empty()) tokens = TokenTable::Load(absl::GetFlag(FLAGS_token_file));
  if (!tokens.ok()) return Fail(tokens.status());
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds = Credentials();
  if (!creds.ok()) return Fail(creds.status());

  std::vector<std::unique_ptr<CacheTier>> tiers;
  tiers.push_back(std::make_unique<MemoryCache>(uint64_t(absl::GetFlag(FLAGS_memory_cache_mb)) << 20));
  std::string cache_dir = ExpandHome(absl::GetFlag(FLAGS_cache_dir));
  absl::StatusOr<std::unique_ptr<DiskCache>> disk =
      DiskCache::Open(cache_dir, uint64_t(absl::GetFlag(FLAGS_disk_cache_mb)) << 20);
  if (!disk.ok()) return Fail(disk.status());
  tiers.push_back(*std::move(disk));
  if (!absl::GetFlag(FLAGS_redis).empty()) {
    RedisCacheOptions ro;
    ro.address = absl::GetFlag(FLAGS_redis);
    ro.ttl = absl::Seconds(absl::GetFlag(FLAGS_redis_ttl_seconds));
    absl::StatusOr<std::unique_ptr<RedisCache>> redis = RedisCache::Open(ro);
    if (!redis.ok()) return Fail(redis.status());
    // Redis may come up after kilnd: until it answers, its tier misses and kilnd keeps serving.
    absl::Status ping = (*redis)->Ping();
    if (!ping.ok()) std::fprintf(stderr, "kilnd: warning: Redis at %s: %s\n", ro.address.c_str(), std::string(ping.message()).c_str());
    tiers.push_back(*std::move(redis));
  }
  TieredCache cache(std::move(tiers));

  std::unique_ptr<CompileBackend> backend;
  if (absl::GetFlag(FLAGS_workers_per_target) == 0) {
    backend = std::make_unique<InProcessBackend>();
  } else {
    WorkerPoolOptions po;
    if (absl::GetFlag(FLAGS_worker_binary).empty()) {
      absl::StatusOr<std::string> found = DefaultWorkerBinary();
      if (!found.ok()) return Fail(found.status());
      po.worker_binary = *found;
    } else {
      po.worker_binary = absl::GetFlag(FLAGS_worker_binary);
    }
    po.workers_per_target = absl::GetFlag(FLAGS_workers_per_target);
    po.max_queued_per_target = absl::GetFlag(FLAGS_max_queue);
    po.cpu_seconds_per_job = absl::GetFlag(FLAGS_job_cpu_seconds);
    po.memory_bytes_per_job = uint64_t(absl::GetFlag(FLAGS_job_memory_mb)) << 20;
    absl::StatusOr<std::unique_ptr<WorkerPool>> pool = WorkerPool::Create(po);
    if (!pool.ok()) return Fail(pool.status());
    backend = *std::move(pool);
  }

  ServiceState state(&*tokens, absl::GetFlag(FLAGS_log_requests));
  ServiceOptions options;
  options.max_inline_bytes = uint64_t(absl::GetFlag(FLAGS_max_inline_kb)) << 10;
  CompileServiceImpl service(options, &state, &cache, backend.get());
  FarmOptions farm_options;
  farm_options.heartbeat_interval = absl::Milliseconds(absl::GetFlag(FLAGS_heartbeat_ms));
  farm_options.heartbeat_timeout = farm_options.heartbeat_interval * 2.5;
  Farm farm(farm_options);
  FarmServiceImpl farm_service(&state, &farm);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), *creds, &port);
  builder.RegisterService(&service);
  builder.RegisterService(&farm_service);
  builder.SetMaxReceiveMessageSize(static_cast<int>(absl::GetFlag(FLAGS_max_request_mb) << 20));
  builder.SetMaxSendMessageSize(static_cast<int>(options.max_inline_bytes + (1 << 20)));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(absl::UnavailableError(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_listen))));
  }

  std::unique_ptr<MetricsHttpServer> metrics;
  if (!absl::GetFlag(FLAGS_metrics_listen).empty()) {
    absl::StatusOr<std::unique_ptr<MetricsHttpServer>> m =
        MetricsHttpServer::Start(absl::GetFlag(FLAGS_metrics_listen), [&] {
          std::string out;
          state.RenderMetrics(&out);
          out += service.RenderMetrics();
          farm_service.RenderMetrics(&out);
          return out;
        });
    if (!m.ok()) return Fail(m.status());
    metrics = *std::move(m);
    std::fprintf(stderr, "kilnd: metrics at http://%s/metrics (port %d)\n", absl::GetFlag(FLAGS_metrics_listen).c_str(),
                 metrics->port());
  }
  if (!absl::GetFlag(FLAGS_port_file).empty()) {
    absl::Status st = runtime::WritePortFile(absl::GetFlag(FLAGS_port_file), port);
    if (!st.ok()) return Fail(st);
  }
  std::fprintf(stderr, "kilnd %s: serving on %s (port %d), cache %s%s, %s, %s%s\n", kKilnVersion,
               absl::GetFlag(FLAGS_listen).c_str(), port, cache_dir.c_str(),
               absl::GetFlag(FLAGS_redis).empty() ? "" : absl::StrCat(" + redis ", absl::GetFlag(FLAGS_redis)).c_str(),
               absl::GetFlag(FLAGS_workers_per_target) == 0 ? "compiling in-process" : "worker pool",
               tokens->enabled() ? "token auth" : "no auth",
               absl::GetFlag(FLAGS_tls_cert).empty() ? "" : (absl::GetFlag(FLAGS_tls_client_ca).empty() ? ", TLS" : ", mTLS"));

  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::fprintf(stderr, "kilnd: %s: draining (up to %d s)\n", strsignal(sig), absl::GetFlag(FLAGS_drain_seconds));
    state.Drain();
    server->GetHealthCheckService()->SetServingStatus(false);
    absl::Time deadline = absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_drain_seconds));
    while (state.in_flight() > 0 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
    server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  });
  server->Wait();
  stopper.join();
  std::fprintf(stderr, "kilnd: stopped\n");
  return 0;
}

}  // namespace
}  // namespace kiln::server

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "the kiln compile service: TVMScript or serialized IR in, Relax VM executables out.\n"
      "  kilnd [--listen HOST:PORT] [--port-file F] [--cache-dir D] [--redis HOST:PORT] [--workers-per-target N]\n"
      "        [--token-file T] [--tls-cert C --tls-key K [--tls-client-ca CA]] [--metrics-listen HOST:PORT] [--flagfile CONFIG]\n"
      "With no flags it serves on 127.0.0.1:7878 with its cache in ~/.cache/kiln and one worker per target.\n"
      "Flag names take - or _ (--cache-dir or --cache_dir).");
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) { return absl::StrContains(file, "kilnd_main"); };
  usage.version_string = [] { return absl::StrCat("kilnd ", kiln::kKilnVersion, "\n"); };
  absl::SetFlagsUsageConfig(usage);
  std::vector<std::string> rest = kiln::server::ParseDashedCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "kilnd: unexpected argument \"%s\" (see --help)\n", rest[1].c_str());
    return 2;
  }
  return kiln::server::Main();
}
