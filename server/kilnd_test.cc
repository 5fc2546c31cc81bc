// Integration tests of kilnd (issue 12's acceptance): a real kilnd process on a loopback port,
// driven through the generated gRPC stub.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/compile.grpc.pb.h"
#include "proto/farm.grpc.pb.h"
#include "server/cache/sha256.h"
#include "server/testing/kilnd_process.h"
#include "server/testing/redis_process.h"

namespace kiln::server {
namespace {

using testing::KilndProcess;
using testing::MakeTempDir;
using testing::RunfilePath;

constexpr char kMlp[] = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.relu(y)
            R.output(z)
        return z
)";

std::string Kilnd() { return RunfilePath("server/kilnd"); }

std::unique_ptr<v1::CompileService::Stub> Connect(const KilndProcess& k) {
  return v1::CompileService::NewStub(grpc::CreateChannel(k.address(), grpc::InsecureChannelCredentials()));
}

v1::CompileRequest Request(const std::string& source, const std::string& target = "llvm") {
  v1::CompileRequest req;
  req.set_source(source);
  req.set_filename("mlp.py");
  req.set_target(target);
  return req;
}

// What a local `kiln build` of `source` writes.
std::string LocalBuild(const std::string& source, const std::string& target = "llvm") {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "mlp.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<vm::Executable> exec = driver::BuildModuleExecutable(script::AsModule(*parsed), target);
  EXPECT_TRUE(exec.ok()) << exec.status();
  return exec.ok() ? exec->Serialize() : "";
}

v1::RpcStatus Details(const grpc::Status& st) {
  v1::RpcStatus details;
  EXPECT_TRUE(details.ParseFromString(st.error_details()));
  return details;
}

v1::StatResponse Stat(v1::CompileService::Stub& stub) {
  grpc::ClientContext ctx;
  v1::StatRequest req;
  v1::StatResponse resp;
  grpc::Status st = stub.Stat(&ctx, req, &resp);
  EXPECT_TRUE(st.ok()) << st.error_message();
  return resp;
}

const v1::CacheTierStats& Tier(const v1::StatResponse& s, const std::string& name) {
  for (const v1::CacheTierStats& t : s.cache()) {
    if (t.tier() == name) return t;
  }
  static const v1::CacheTierStats kNone;
  ADD_FAILURE() << "no tier " << name;
  return kNone;
}

uint64_t Compiles(const v1::StatResponse& s) {
  uint64_t n = 0;
  for (const v1::PoolStats& p : s.pools()) n += p.completed() + p.failed();
  return n;
}

grpc::Status Compile(v1::CompileService::Stub& stub, const v1::CompileRequest& req, v1::CompileResponse* resp) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  return stub.Compile(&ctx, req, resp);
}

class KilndTest : public ::testing::Test {
 protected:
  void SetUp() override { cache_dir_ = MakeTempDir("kilnd-cache-"); }
  absl::StatusOr<KilndProcess> StartKilnd(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--cache-dir", cache_dir_, "--log-requests=false"};
    args.insert(args.end(), extra.begin(), extra.end());
    return KilndProcess::Start(Kilnd(), args);
  }
  std::string cache_dir_;
};

TEST_F(KilndTest, CompileMissThenMemoryHitGivesTheBytesOfALocalBuild) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileResponse miss, hit;
  grpc::Status st = Compile(*stub, Request(kMlp), &miss);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(miss.cache(), v1::CACHE_MISS);
  EXPECT_EQ(miss.executable(), LocalBuild(kMlp));
  EXPECT_EQ(miss.digest(), ToHex(Sha256Digest(miss.executable())));
  EXPECT_EQ(miss.metadata().size(), miss.executable().size());
  EXPECT_GT(miss.metadata().compile_micros(), 0u);
  ASSERT_EQ(miss.metadata().functions_size(), 1);
  EXPECT_EQ(miss.metadata().functions(0), "main");

  // Formatting and comments do not change the key.
  std::string reformatted = absl::StrReplaceAll(kMlp, {{"        return z", "        # the result\n        return z"}});
  st = Compile(*stub, Request(reformatted), &hit);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(hit.cache(), v1::CACHE_MEMORY);
  EXPECT_EQ(hit.cache_key(), miss.cache_key());
  EXPECT_EQ(hit.executable(), miss.executable());
  EXPECT_EQ(hit.metadata().compile_micros(), 0u);
  EXPECT_EQ(hit.metadata().original_compile_micros(), miss.metadata().compile_micros());
  // The identical request again: answered from the request index, without parsing.
  v1::CompileResponse again;
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &again).ok());
  EXPECT_EQ(again.cache(), v1::CACHE_MEMORY);
  EXPECT_EQ(again.cache_key(), miss.cache_key());
  EXPECT_EQ(again.executable(), miss.executable());
  EXPECT_EQ(Compiles(Stat(*stub)), 1u);

  // Another target is another entry.
  v1::CompileResponse c;
  st = Compile(*stub, Request(kMlp, "c"), &c);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(c.cache(), v1::CACHE_MISS);
  EXPECT_NE(c.cache_key(), miss.cache_key());
  EXPECT_EQ(c.metadata().target(), "c");
}

TEST_F(KilndTest, ExtraVarsAreCapturedValuesAndPartOfTheKey) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  std::string templated = absl::StrReplaceAll(kMlp, {{"(8, 3)", "(8, N)"}, {"(4, 3)", "(4, N)"}});
  v1::CompileRequest req = Request(templated);
  (*req.mutable_extra_vars())["N"] = "3";
  v1::CompileResponse three, five;
  grpc::Status st = Compile(*stub, req, &three);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(three.executable(), LocalBuild(kMlp));  // the same kernel as the literal source
  (*req.mutable_extra_vars())["N"] = "5";
  ASSERT_TRUE(Compile(*stub, req, &five).ok());
  EXPECT_NE(five.cache_key(), three.cache_key());
  EXPECT_EQ(five.cache(), v1::CACHE_MISS);
  req.clear_extra_vars();
  st = Compile(*stub, req, &five);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("Undefined variable: N"), std::string::npos) << st.error_message();
}

// A kernel whose accesses checked mode checks (A[i + n] with n a parameter).
constexpr char kShifted[] = R"(@T.prim_func
def shifted(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        A[i + n] = A[i] * 2
)";

// What a local `kiln build --checked` of `source` writes.
std::string LocalCheckedBuild(const std::string& source, const std::string& target) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "mlp.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  driver::BuildOptions options;
  options.checked = true;
  absl::StatusOr<vm::Executable> exec = driver::BuildModuleExecutable(script::AsModule(*parsed), target, options);
  EXPECT_TRUE(exec.ok()) << exec.status();
  return exec.ok() ? exec->Serialize() : "";
}

TEST_F(KilndTest, CheckedIsPartOfTheRequestAndTheKey) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    v1::CompileRequest req = Request(kShifted, target);
    v1::CompileResponse plain, checked, moved;
    ASSERT_TRUE(Compile(*stub, req, &plain).ok());
    req.set_checked(true);
    grpc::Status st = Compile(*stub, req, &checked);
    ASSERT_TRUE(st.ok()) << st.error_message();
    EXPECT_EQ(checked.cache(), v1::CACHE_MISS);
    EXPECT_NE(checked.cache_key(), plain.cache_key());
    EXPECT_NE(checked.executable(), plain.executable());
    // The bytes of a local checked build: the source locations its messages carry included.
    EXPECT_EQ(checked.executable(), LocalCheckedBuild(kShifted, target));
    // So a checked build keys on the spans: the same program a line lower is another entry (an
    // unchecked one is not).
    req.set_source(absl::StrCat("# a comment\n", kShifted));
    ASSERT_TRUE(Compile(*stub, req, &moved).ok());
    EXPECT_EQ(moved.cache(), v1::CACHE_MISS);
    EXPECT_NE(moved.cache_key(), checked.cache_key());
    EXPECT_EQ(moved.executable(), LocalCheckedBuild(absl::StrCat("# a comment\n", kShifted), target));
    req.set_checked(false);
    ASSERT_TRUE(Compile(*stub, req, &moved).ok());
    EXPECT_EQ(moved.cache(), v1::CACHE_MEMORY);
    EXPECT_EQ(moved.cache_key(), plain.cache_key());
  }
}

TEST_F(KilndTest, RestartKeepsTheDiskCacheAndACorruptEntryIsRecompiled) {
  v1::CompileResponse first;
  {
    absl::StatusOr<KilndProcess> k = StartKilnd();
    ASSERT_TRUE(k.ok()) << k.status();
    ASSERT_TRUE(Compile(*Connect(*k), Request(kMlp), &first).ok());
    absl::StatusOr<int> exit = k->Stop();
    ASSERT_TRUE(exit.ok()) << exit.status();
    EXPECT_TRUE(WIFEXITED(*exit) && WEXITSTATUS(*exit) == 0) << *exit;
  }
  {
    absl::StatusOr<KilndProcess> k = StartKilnd();
    ASSERT_TRUE(k.ok()) << k.status();
    auto stub = Connect(*k);
    v1::CompileResponse again;
    ASSERT_TRUE(Compile(*stub, Request(kMlp), &again).ok());
    EXPECT_EQ(again.cache(), v1::CACHE_DISK);
    EXPECT_EQ(again.executable(), first.executable());
    EXPECT_EQ(Compiles(Stat(*stub)), 0u);
  }
  // Flip one byte in the middle of every file of the cache.
  int corrupted = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache_dir_)) {
    if (!e.is_regular_file() || e.file_size() == 0) continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(e.file_size() / 2);
    char c = 0;
    f.get(c);
    f.seekp(e.file_size() / 2);
    f.put(static_cast<char>(c ^ 0x5a));
    ++corrupted;
  }
  ASSERT_GE(corrupted, 2);  // the action record and the executable
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileResponse fresh;
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &fresh).ok());
  EXPECT_EQ(fresh.cache(), v1::CACHE_MISS);
  EXPECT_EQ(fresh.executable(), first.executable());
  v1::StatResponse s = Stat(*stub);
  EXPECT_GE(Tier(s, "disk").corrupt(), 1u);
  EXPECT_EQ(Compiles(s), 1u);
}

TEST_F(KilndTest, TwoKilndsSharingRedisServeEachOthersEntries) {
  if (!testing::RedisServerInstalled()) {
    GTEST_SKIP() << testing::kRedisServer << " is not installed (Debian package redis-server); skipping";
  }
  testing::RedisServer redis;
  ASSERT_TRUE(redis.Start());
  // Two replicas, each with its own disk cache: only Redis is shared.
  std::string other_dir = MakeTempDir("kilnd-cache-b-");
  absl::StatusOr<KilndProcess> a = StartKilnd({"--redis", redis.address()});
  absl::StatusOr<KilndProcess> b =
      KilndProcess::Start(Kilnd(), {"--cache-dir", other_dir, "--log-requests=false", "--redis", redis.address()});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  auto stub_a = Connect(*a), stub_b = Connect(*b);
  v1::CompileResponse from_a, from_b;
  ASSERT_TRUE(Compile(*stub_a, Request(kMlp), &from_a).ok());
  EXPECT_EQ(from_a.cache(), v1::CACHE_MISS);
  ASSERT_TRUE(Compile(*stub_b, Request(kMlp), &from_b).ok());
  EXPECT_EQ(from_b.cache(), v1::CACHE_REDIS);
  EXPECT_EQ(from_b.executable(), from_a.executable());
  EXPECT_EQ(Compiles(Stat(*stub_b)), 0u);
  // FetchArtifact on b of what a compiled: the executable came through Redis too.
  grpc::ClientContext ctx;
  v1::FetchArtifactRequest fetch;
  fetch.set_digest(from_a.digest());
  auto reader = stub_b->FetchArtifact(&ctx, fetch);
  v1::ArtifactChunk chunk;
  std::string bytes;
  while (reader->Read(&chunk)) bytes += chunk.data();
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(bytes, from_a.executable());

  // Redis going away costs the shared tier, not the service.
  redis.Kill();
  std::string unique = absl::StrReplaceAll(kMlp, {{"(8, 3)", "(8, 6)"}, {"(4, 3)", "(4, 6)"}});
  v1::CompileResponse after;
  grpc::Status st = Compile(*stub_a, Request(unique), &after);
  EXPECT_TRUE(st.ok()) << st.error_message();
}

TEST_F(KilndTest, IdenticalConcurrentRequestsCompileOnce) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  std::string unique = absl::StrReplaceAll(kMlp, {{"(8, 3)", "(8, 5)"}, {"(4, 3)", "(4, 5)"}});
  std::vector<std::thread> threads;
  std::vector<std::string> digests(32);
  std::atomic<int> failures{0};
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&, i] {
      v1::CompileResponse resp;
      grpc::Status st = Compile(*stub, Request(unique), &resp);
      if (!st.ok()) ++failures;
      digests[i] = resp.digest();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string& d : digests) EXPECT_EQ(d, digests[0]);
  v1::StatResponse s = Stat(*stub);
  EXPECT_EQ(Compiles(s), 1u);
}

// The pids of `parent`'s children named `name` (from /proc/*/stat).
std::vector<pid_t> Children(pid_t parent, const std::string& name) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::string comm = line.substr(open + 1, close - open - 1);
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == parent && comm == name.substr(0, 15)) out.push_back(std::atoi(e.path().filename().c_str()));
  }
  return out;
}

// About 3 s of compiling: 120 distinct normalization kernels.
std::string SlowModule() {
  std::string text = "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n@I.ir_module\nclass Module:\n";
  for (int i = 0; i < 120; ++i) {
    text += absl::StrReplaceAll(R"(
    @T.prim_func
    def norm_NAME(X: T.Buffer((8, 32), "float32"), Y: T.Buffer((8, 32), "float32")):
        mean = T.alloc_buffer((8,))
        for i, k in T.grid(8, 32):
            with T.sblock("stats"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    mean[vi] = T.float32(0.0)
                mean[vi] = mean[vi] + X[vi, vk] * T.float32(0.03125)
        for i, j in T.grid(8, 32):
            with T.sblock("center"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.rsqrt(X[vi, vj] - mean[vi] + T.float32(NAME))
)", {{"NAME", absl::StrCat(i)}});
  }
  return text;
}

TEST_F(KilndTest, AWorkerKilledMidCompileFailsOnlyThatRequest) {
  absl::StatusOr<KilndProcess> k = StartKilnd({"--workers-per-target", "1"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileResponse resp;
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &resp).ok());  // starts the llvm pool's worker
  std::vector<pid_t> workers = Children(k->pid(), "kilnd-worker");
  ASSERT_EQ(workers.size(), 1u);

  grpc::Status killed;
  std::thread t([&] {
    v1::CompileResponse r;
    killed = Compile(*stub, Request(SlowModule()), &r);
  });
  // Kill it once it is compiling (kilnd parses and verifies the module first).
  for (absl::Time give_up = absl::Now() + absl::Seconds(60); absl::Now() < give_up;) {
    v1::StatResponse s = Stat(*stub);
    if (s.pools_size() == 1 && s.pools(0).busy() == 1) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  absl::SleepFor(absl::Milliseconds(200));
  ASSERT_EQ(kill(workers[0], SIGKILL), 0);
  t.join();
  EXPECT_EQ(killed.error_code(), grpc::StatusCode::INTERNAL) << killed.error_message();
  EXPECT_NE(killed.error_message().find("SIGKILL"), std::string::npos) << killed.error_message();

  // The next request is served by a fresh worker.
  std::string unique = absl::StrReplaceAll(kMlp, {{"(8, 3)", "(8, 4)"}, {"(4, 3)", "(4, 4)"}});
  grpc::Status next = Compile(*stub, Request(unique), &resp);
  EXPECT_TRUE(next.ok()) << next.error_message();
  v1::StatResponse s = Stat(*stub);
  ASSERT_EQ(s.pools_size(), 1);
  EXPECT_EQ(s.pools(0).worker_restarts(), 1u);
  EXPECT_EQ(s.pools(0).failed(), 1u);
  EXPECT_NE(Children(k->pid(), "kilnd-worker"), workers);
}

TEST_F(KilndTest, InvalidSourceIsInvalidArgumentWithLocatedDiagnostics) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  std::string bad = absl::StrReplaceAll(kMlp, {{"R.nn.relu(y)", "R.nn.relu(y, q)"}});
  v1::CompileResponse resp;
  grpc::Status st = Compile(*stub, Request(bad), &resp);
  ASSERT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::RpcStatus details = Details(st);
  ASSERT_EQ(details.details_size(), 1);
  v1::Diagnostics diags;
  ASSERT_TRUE(details.details(0).UnpackTo(&diags));
  ASSERT_GE(diags.diagnostics_size(), 1);
  const v1::Diagnostic& d = diags.diagnostics(0);
  EXPECT_EQ(d.file(), "mlp.py");
  EXPECT_EQ(d.line(), 10);
  EXPECT_GT(d.col(), 0);
  EXPECT_NE(d.excerpt().find("R.nn.relu(y, q)"), std::string::npos) << d.excerpt();

  // A bad target, an unknown option, a non-integer extra var, no module, garbage IR.
  v1::CompileRequest bad_target = Request(kMlp, "tpu -arch=v5");
  v1::CompileRequest bad_option = Request(kMlp);
  (*bad_option.mutable_options())["opt_level"] = "3";
  v1::CompileRequest bad_var = Request(kMlp);
  (*bad_var.mutable_extra_vars())["n"] = "f(x)";
  v1::CompileRequest none;
  v1::CompileRequest garbage;
  garbage.set_ir("KILNIR\x01garbage");
  for (const auto& [req, fragment] : std::vector<std::pair<v1::CompileRequest, std::string>>{
           {bad_target, "target"}, {bad_option, "unknown compile option \"opt_level\""},
           {bad_var, "define n=f(x): the value must be a number"}, {none, "neither `source` nor `ir`"}, {garbage, "not a serialized IRModule"}}) {
    grpc::Status s = Compile(*stub, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << fragment;
    EXPECT_NE(s.error_message().find(fragment), std::string::npos) << s.error_message();
  }
}

TEST_F(KilndTest, OversizedRequestsAreResourceExhausted) {
  absl::StatusOr<KilndProcess> k = StartKilnd({"--max-request-mb", "1"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileRequest big = Request(std::string(kMlp) + "\n#" + std::string(2 << 20, 'x') + "\n");
  v1::CompileResponse resp;
  grpc::Status st = Compile(*stub, big, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();
  // The server lives on.
  EXPECT_TRUE(Compile(*stub, Request(kMlp), &resp).ok());
}

TEST_F(KilndTest, FetchArtifactAndCompileStreamChunkAndResume) {
  absl::StatusOr<KilndProcess> k = StartKilnd({"--max-inline-kb", "0"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileResponse resp;
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &resp).ok());
  EXPECT_TRUE(resp.executable().empty());  // over the inline bound: fetch by digest
  std::string expected = LocalBuild(kMlp);

  auto fetch = [&](const std::string& digest, uint64_t offset, uint32_t chunk, std::string* out) {
    grpc::ClientContext ctx;
    v1::FetchArtifactRequest req;
    req.set_digest(digest);
    req.set_offset(offset);
    req.set_chunk_bytes(chunk);
    auto reader = stub->FetchArtifact(&ctx, req);
    v1::ArtifactChunk c;
    int chunks = 0;
    while (reader->Read(&c)) {
      EXPECT_EQ(c.offset(), offset + out->size());
      EXPECT_EQ(c.total_size(), expected.size());
      *out += c.data();
      ++chunks;
    }
    grpc::Status st = reader->Finish();
    return std::make_pair(st, chunks);
  };
  std::string whole;
  auto [st, chunks] = fetch(resp.digest(), 0, 1000, &whole);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(whole, expected);
  EXPECT_EQ(chunks, static_cast<int>((expected.size() + 999) / 1000));
  std::string tail;
  ASSERT_TRUE(fetch(resp.digest(), 1234, 0, &tail).first.ok());
  EXPECT_EQ(tail, expected.substr(1234));

  std::string ignored;
  EXPECT_EQ(fetch(std::string(64, 'a'), 0, 0, &ignored).first.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(fetch("../../etc/passwd", 0, 0, &ignored).first.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(fetch(resp.digest(), expected.size() + 1, 0, &ignored).first.error_code(), grpc::StatusCode::OUT_OF_RANGE);

  {
    grpc::ClientContext ictx;
    v1::InspectArtifactRequest ireq;
    ireq.set_digest(resp.digest());
    v1::InspectArtifactResponse iresp;
    ASSERT_TRUE(stub->InspectArtifact(&ictx, ireq, &iresp).ok());
    EXPECT_NE(iresp.text().find("@main:"), std::string::npos) << iresp.text();
    EXPECT_EQ(iresp.metadata().size(), expected.size());
  }

  grpc::ClientContext ctx;
  auto reader = stub->CompileStream(&ctx, Request(kMlp));
  v1::ArtifactChunk c;
  std::string streamed;
  bool first = true;
  while (reader->Read(&c)) {
    EXPECT_EQ(c.has_header(), first);
    if (first) {
      EXPECT_EQ(c.header().digest(), resp.digest());
    }
    first = false;
    streamed += c.data();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(streamed, expected);
}

TEST_F(KilndTest, CheckFormatAndListTargets) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  {
    grpc::ClientContext ctx;
    v1::CheckRequest req;
    req.set_source(kMlp);
    v1::CheckResponse resp;
    EXPECT_TRUE(stub->Check(&ctx, req, &resp).ok());
  }
  {
    grpc::ClientContext ctx;
    v1::CheckRequest req;
    req.set_source("def f(:\n");
    req.set_filename("broken.py");
    v1::CheckResponse resp;
    grpc::Status st = stub->Check(&ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("broken.py:1:"), std::string::npos) << st.error_message();
  }
  {
    grpc::ClientContext ctx;
    v1::FormatRequest req;
    req.set_source(absl::StrReplaceAll(kMlp, {{"R.matmul(x, w)", "R.matmul(x,   w)"}}));
    v1::FormatResponse resp;
    ASSERT_TRUE(stub->Format(&ctx, req, &resp).ok());
    EXPECT_NE(resp.text().find("= R.matmul(x, w, "), std::string::npos) << resp.text();
  }
  {
    grpc::ClientContext ctx;
    v1::ListTargetsResponse resp;
    ASSERT_TRUE(stub->ListTargets(&ctx, v1::ListTargetsRequest(), &resp).ok());
    ASSERT_EQ(resp.targets_size(), 2);
    EXPECT_EQ(resp.targets(0).kind(), "llvm");
    EXPECT_EQ(resp.targets(0).default_target().rfind("llvm -mtriple=", 0), 0u) << resp.targets(0).default_target();
    EXPECT_EQ(resp.targets(1).default_target(), "c");
  }
}

TEST_F(KilndTest, TokensAreRequiredAndPermissionsChecked) {
  std::string dir = MakeTempDir("kilnd-tokens-");
  std::ofstream(dir + "/tokens") << "compile-token-0123456789 alice compile\nadmin-token-0123456789 ops admin\n";
  absl::StatusOr<KilndProcess> k = StartKilnd({"--token-file", dir + "/tokens"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  auto stat = [&](const char* token) {
    grpc::ClientContext ctx;
    if (token != nullptr) ctx.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    v1::StatResponse resp;
    return stub->Stat(&ctx, v1::StatRequest(), &resp).error_code();
  };
  EXPECT_EQ(stat(nullptr), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(stat("wrong-token-0123456789"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(stat("compile-token-0123456789"), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(stat("admin-token-0123456789"), grpc::StatusCode::OK);
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", "Bearer compile-token-0123456789");
  v1::CompileResponse resp;
  grpc::Status st = stub->Compile(&ctx, Request(kMlp), &resp);
  EXPECT_TRUE(st.ok()) << st.error_message();
}

// Runs openssl; false if it failed.
bool Openssl(const std::string& args) { return std::system(("openssl " + args + " >/dev/null 2>&1").c_str()) == 0; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(KilndTest, TlsAndMutualTls) {
  std::string d = MakeTempDir("kilnd-tls-");
  ASSERT_TRUE(Openssl("req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=kiln-test-ca -keyout " + d + "/ca.key -out " +
                      d + "/ca.pem"));
  for (const char* who : {"server", "client"}) {
    std::string p = absl::StrCat(d, "/", who);
    ASSERT_TRUE(Openssl(absl::StrCat("req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout ", p, ".key -out ", p, ".csr")));
    std::ofstream(p + ".ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n";
    ASSERT_TRUE(Openssl(absl::StrCat("x509 -req -days 1 -in ", p, ".csr -CA ", d, "/ca.pem -CAkey ", d,
                                     "/ca.key -CAcreateserial -extfile ", p, ".ext -out ", p, ".pem")));
  }
  absl::StatusOr<KilndProcess> k = StartKilnd({"--tls-cert", d + "/server.pem", "--tls-key", d + "/server.key",
                                               "--tls-client-ca", d + "/ca.pem"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto list = [&](std::shared_ptr<grpc::ChannelCredentials> creds) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    auto stub = v1::CompileService::NewStub(grpc::CreateCustomChannel(k->address(), creds, args));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ListTargetsResponse resp;
    return stub->ListTargets(&ctx, v1::ListTargetsRequest(), &resp).error_code();
  };
  grpc::SslCredentialsOptions with_cert{Slurp(d + "/ca.pem"), Slurp(d + "/client.key"), Slurp(d + "/client.pem")};
  grpc::SslCredentialsOptions without_cert{Slurp(d + "/ca.pem"), "", ""};
  EXPECT_EQ(list(grpc::SslCredentials(with_cert)), grpc::StatusCode::OK);
  EXPECT_EQ(list(grpc::SslCredentials(without_cert)), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(list(grpc::InsecureChannelCredentials()), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(KilndTest, FarmRegistersAgentsAndLeasesThemByKey) {
  absl::StatusOr<KilndProcess> k = StartKilnd({"--heartbeat-ms", "200"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto farm = v1::FarmService::NewStub(grpc::CreateChannel(k->address(), grpc::InsecureChannelCredentials()));
  std::string agent_id;
  {
    grpc::ClientContext ctx;
    v1::RegisterAgentRequest req;
    req.set_key("cpu");
    req.set_address("0.0.0.0:9123");  // listening everywhere: kilnd records the address it saw
    v1::RegisterAgentResponse resp;
    ASSERT_TRUE(farm->RegisterAgent(&ctx, req, &resp).ok());
    agent_id = resp.agent_id();
    EXPECT_EQ(resp.heartbeat_interval().nanos(), 200000000);
  }
  v1::AgentLease lease;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::RequestAgentRequest req;
    req.set_key("cpu");
    ASSERT_TRUE(farm->RequestAgent(&ctx, req, &lease).ok());
    EXPECT_EQ(lease.agent().agent_id(), agent_id);
    EXPECT_EQ(lease.agent().address(), "127.0.0.1:9123");
  }
  {
    // Busy: a second request times out with a clear status.
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
    v1::RequestAgentRequest req;
    req.set_key("cpu");
    v1::AgentLease second;
    EXPECT_EQ(farm->RequestAgent(&ctx, req, &second).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // Without heartbeats the agent is dropped within ~2.5 intervals, and its lease with it.
  absl::SleepFor(absl::Milliseconds(700));
  {
    grpc::ClientContext ctx;
    v1::ListAgentsResponse resp;
    ASSERT_TRUE(farm->ListAgents(&ctx, v1::ListAgentsRequest(), &resp).ok());
    EXPECT_EQ(resp.agents_size(), 0);
  }
  {
    grpc::ClientContext ctx;
    v1::RenewLeaseRequest req;
    req.set_lease_id(lease.lease_id());
    v1::AgentLease renewed;
    EXPECT_EQ(farm->RenewLease(&ctx, req, &renewed).error_code(), grpc::StatusCode::NOT_FOUND);
  }
}

TEST_F(KilndTest, MetricsEndpointCountsRequestsAndCacheTiers) {
  std::string dir = MakeTempDir("kilnd-metrics-");
  std::string log = dir + "/kilnd.log";
  absl::StatusOr<KilndProcess> k = KilndProcess::Start(
      Kilnd(), {"--cache-dir", cache_dir_, "--metrics-listen", "127.0.0.1:0"}, log);
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  v1::CompileResponse resp;
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &resp).ok());
  ASSERT_TRUE(Compile(*stub, Request(kMlp), &resp).ok());
  // kilnd logs the metrics port it bound, and one JSON line per request.
  std::string text = Slurp(log);
  size_t at = text.find("/metrics (port ");
  ASSERT_NE(at, std::string::npos) << text;
  int port = std::atoi(text.c_str() + at + std::strlen("/metrics (port "));
  EXPECT_NE(text.find("\"method\":\"Compile\",\"client\":\"anonymous\""), std::string::npos) << text;
  std::string metrics = testing::HttpGet(port, "/metrics");
  EXPECT_NE(metrics.find("kiln_requests_total{method=\"Compile\",code=\"OK\"} 2"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kiln_compile_answers_total{source=\"memory\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kiln_cache_hits_total{tier=\"memory\"}"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kiln_compile_seconds_count{target=\"llvm\"} 1"), std::string::npos) << metrics;
}

TEST_F(KilndTest, SigtermDrainsAndExitsCleanly) {
  absl::StatusOr<KilndProcess> k = StartKilnd();
  ASSERT_TRUE(k.ok()) << k.status();
  auto stub = Connect(*k);
  // A compile in flight when SIGTERM arrives still completes.
  std::string unique = absl::StrReplaceAll(kMlp, {{"(8, 3)", "(8, 7)"}, {"(4, 3)", "(4, 7)"}});
  v1::CompileResponse resp;
  grpc::Status in_flight;
  std::thread t([&] { in_flight = Compile(*stub, Request(unique), &resp); });
  absl::SleepFor(absl::Milliseconds(100));
  absl::StatusOr<int> exit = k->Stop();
  t.join();
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_TRUE(WIFEXITED(*exit) && WEXITSTATUS(*exit) == 0) << *exit;
  EXPECT_TRUE(in_flight.ok() || in_flight.error_code() == grpc::StatusCode::UNAVAILABLE) << in_flight.error_message();
}

}  // namespace
}  // namespace kiln::server
