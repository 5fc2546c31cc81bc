// kiln::RemoteDevice against real kilnd and kiln-agent processes on loopback (started by the test;
// the agent with a token, registered in kilnd's farm under key "cpu"): a leased device loads by
// digest what kilnd compiled and runs TVM's VM calls; a device opened by address uploads; the
// keep-alive outlives a 1 s lease; SetInstrument's trace and skip; a kernel that divides by zero
// fails its call (INTERNAL, naming the kernel and SIGFPE) while another session keeps running;
// clear errors for an unknown key and an unreachable agent.
#include <atomic>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/cpp/client.h"
#include "client/cpp/remote_device.h"
#include "gtest/gtest.h"
#include "runtime/agent/agent_client.h"
#include "runtime/tensor.h"
#include "server/testing/kilnd_process.h"

namespace kiln {
namespace {

using server::testing::KilndProcess;
using server::testing::RunfilePath;
using vm::Value;

constexpr char kAgentToken[] = "agent-token-0123456789";

// `div` traps on a zero divisor: an integer division by zero is SIGFPE on x86.
constexpr char kDivModule[] = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def div(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
        for i in range(8):
            C[i] = T.truncdiv(A[i], B[i])

    @R.function
    def main(a: R.Tensor((8,), dtype="int32"), b: R.Tensor((8,), dtype="int32")) -> R.Tensor((8,), dtype="int32"):
        cls = Module
        c = R.call_tir(cls.div, (a, b), out_ty=R.Tensor((8,), dtype="int32"))
        return c
)";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

runtime::Tensor Floats(std::vector<int64_t> shape, float start) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, DLDataType{kDLFloat, 32, 1});
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = start + 0.5f * i;
  return t;
}

runtime::Tensor Ints(int32_t first, int32_t step) {
  runtime::Tensor t = *runtime::Tensor::Empty({8}, DLDataType{kDLInt, 32, 1});
  int32_t* p = static_cast<int32_t*>(t.data());
  for (int i = 0; i < 8; ++i) p[i] = first + step * i;
  return t;
}

class RemoteDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = server::testing::MakeTempDir("remote_device");
    std::ofstream(dir + "/agent_token") << kAgentToken << "\n";
    absl::StatusOr<KilndProcess> k = KilndProcess::Start(
        RunfilePath("server/kilnd"), {"--cache-dir", dir + "/kilnd_cache", "--workers-per-target", "1",
                                      "--log-requests=false"});
    ASSERT_TRUE(k.ok()) << k.status();
    kilnd_ = new KilndProcess(std::move(*k));
    absl::StatusOr<KilndProcess> a = KilndProcess::Start(
        RunfilePath("runtime/agent/kiln-agent"),
        {"--kilnd", kilnd_->address(), "--key", "cpu", "--token-file", dir + "/agent_token", "--capacity", "4"});
    ASSERT_TRUE(a.ok()) << a.status();
    agent_ = new KilndProcess(std::move(*a));
  }
  static void TearDownTestSuite() {
    delete agent_;
    delete kilnd_;
    agent_ = kilnd_ = nullptr;
  }

  void SetUp() override {
    ClientOptions o;
    o.address = kilnd_->address();
    o.deadline = absl::Seconds(120);
    absl::StatusOr<std::unique_ptr<Client>> c = Client::Create(o);
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
  }

  // Compiles on kilnd; the digest.
  std::string Compile(const std::string& source) {
    v1::CompileRequest req;
    req.set_source(source);
    req.set_filename("m.py");
    req.set_target("llvm");
    absl::StatusOr<CompileResult> r = client_->Compile(req);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->response.digest() : "";
  }

  RemoteDeviceOptions Options() const {
    RemoteDeviceOptions o;
    o.token = kAgentToken;
    return o;
  }

  // A leased device, once the agent has registered (it does so right after it starts).
  std::unique_ptr<RemoteDevice> LeaseCpu(RemoteDeviceOptions options) {
    for (int i = 0;; ++i) {
      absl::StatusOr<std::unique_ptr<RemoteDevice>> d = RemoteDevice::Lease(*client_, "cpu", 0, options);
      if (d.ok()) return *std::move(d);
      if (d.status().code() != absl::StatusCode::kNotFound || i == 100) {
        ADD_FAILURE() << d.status();
        return nullptr;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  static KilndProcess* kilnd_;
  static KilndProcess* agent_;
  std::unique_ptr<Client> client_;
};

KilndProcess* RemoteDeviceTest::kilnd_ = nullptr;
KilndProcess* RemoteDeviceTest::agent_ = nullptr;

TEST_F(RemoteDeviceTest, LeasedDeviceRunsWhatKilndCompiled) {
  std::string digest = Compile(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  std::unique_ptr<RemoteDevice> dev = LeaseCpu(Options());
  ASSERT_NE(dev, nullptr);
  EXPECT_FALSE(dev->lease().lease_id().empty());
  EXPECT_EQ(dev->address(), agent_->address());
  absl::StatusOr<v1::LoadExecutableResponse> loaded = dev->LoadExecutable(digest);
  ASSERT_TRUE(loaded.ok()) << loaded.status();

  runtime::Tensor x = Floats({4, 8}, -3);
  absl::StatusOr<Value> z = dev->Invoke("add", {Value::Tensor(x), Value::Tensor(x)});
  ASSERT_TRUE(z.ok()) << z.status();
  for (int i = 0; i < 32; ++i) {
    ASSERT_EQ(static_cast<const float*>(z->as_tensor().data())[i], 2 * static_cast<const float*>(x.data())[i]);
  }

  // The stateful API: set_input, invoke_stateful, get_outputs (a tuple: (x @ w, x)).
  runtime::Tensor a = Floats({16, 32}, 0.25f), w = Floats({32, 8}, -1);
  ASSERT_TRUE(dev->SetInput("matmul", {Value::Tensor(a), Value::Tensor(w)}).ok());
  ASSERT_TRUE(dev->InvokeStateful("matmul").ok());
  absl::StatusOr<Value> out = dev->GetOutputs("matmul");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->kind(), Value::Kind::kTuple);
  const float* y = static_cast<const float*>(out->as_tuple()[0].as_tensor().data());
  const float* pa = static_cast<const float*>(a.data());
  const float* pw = static_cast<const float*>(w.data());
  double expect = 0;
  for (int k = 0; k < 32; ++k) expect += double{pa[k]} * pw[k * 8];
  EXPECT_NEAR(y[0], expect, 1e-3 * std::abs(expect) + 1e-4);

  // time_evaluator over a saved function: one result per repeat.
  ASSERT_TRUE(dev->SaveFunction("add", "add_saved", {Value::Tensor(x), Value::Tensor(x)}, false).ok());
  v1::TimeEvaluatorRequest params;
  params.set_function("add_saved");
  params.set_number(3);
  params.set_repeat(4);
  absl::StatusOr<v1::TimeEvaluatorResponse> timing = dev->TimeEvaluator(params);
  ASSERT_TRUE(timing.ok()) << timing.status();
  EXPECT_EQ(timing->results_size(), 4);
  EXPECT_GT(timing->mean(), 0);
  EXPECT_TRUE(dev->Close().ok());
  EXPECT_TRUE(dev->Close().ok());  // idempotent
}

TEST_F(RemoteDeviceTest, OpenedByAddressUploadsAndWrongTokenIsRejected) {
  absl::StatusOr<std::unique_ptr<RemoteDevice>> dev = RemoteDevice::Open(agent_->address(), Options());
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_TRUE((*dev)->lease().lease_id().empty());
  v1::CompileRequest req;
  req.set_source(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  req.set_target("llvm");
  absl::StatusOr<CompileResult> compiled = client_->Compile(req);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<v1::LoadExecutableResponse> loaded = (*dev)->UploadExecutable(compiled->executable);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  runtime::Tensor x = Floats({4, 8}, 1);
  EXPECT_TRUE((*dev)->Invoke("add", {Value::Tensor(x), Value::Tensor(x)}).ok());

  RemoteDeviceOptions wrong = Options();
  wrong.token = "not-the-token";
  EXPECT_EQ(RemoteDevice::Open(agent_->address(), wrong).status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(RemoteDeviceTest, KeepAliveOutlivesAShortLease) {
  std::string digest = Compile(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  // Without a keep-alive, a 1 s session is gone after 3 s of silence...
  agent::AgentClient raw(agent::AgentClient::Connect(agent_->address()), kAgentToken);
  v1::OpenSessionRequest short_lease;
  short_lease.set_lease_seconds(1);
  absl::StatusOr<v1::OpenSessionResponse> bare = raw.OpenSession(short_lease);
  ASSERT_TRUE(bare.ok()) << bare.status();
  // ... while a RemoteDevice with 2 s leases (session and farm) keeps both for as long: the
  // keep-alive renews them every 300 ms (slack for a loaded machine).
  RemoteDeviceOptions o = Options();
  o.session.set_lease_seconds(2);
  o.farm_lease_seconds = 2;
  o.keep_alive_interval = absl::Milliseconds(300);
  std::unique_ptr<RemoteDevice> dev = LeaseCpu(o);
  ASSERT_NE(dev, nullptr);
  ASSERT_TRUE(dev->LoadExecutable(digest).ok());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(raw.KeepAlive(bare->session_id()).status().code(), absl::StatusCode::kNotFound);
  runtime::Tensor x = Floats({4, 8}, 1);
  absl::StatusOr<Value> z = dev->Invoke("add", {Value::Tensor(x), Value::Tensor(x)});
  EXPECT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(dev->keep_alive_status().ok()) << dev->keep_alive_status();
  EXPECT_TRUE(dev->Close().ok());  // the farm lease was still there to release
}

TEST_F(RemoteDeviceTest, InstrumentTracesAndSkipsCalls) {
  std::string digest = Compile(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  absl::StatusOr<std::unique_ptr<RemoteDevice>> dev = RemoteDevice::Open(agent_->address(), Options());
  ASSERT_TRUE(dev.ok()) << dev.status();
  ASSERT_TRUE((*dev)->LoadExecutable(digest).ok());
  runtime::Tensor x = Floats({4, 8}, 1);
  std::vector<Value> args = {Value::Tensor(x), Value::Tensor(x)};

  v1::InstrumentTrace trace;
  ASSERT_TRUE((*dev)->Invoke("add", args, &trace).ok());
  EXPECT_EQ(trace.records_size(), 0);  // off by default

  ASSERT_TRUE((*dev)->SetInstrument(v1::INSTRUMENT_TRACE).ok());
  ASSERT_TRUE((*dev)->Invoke("add", args, &trace).ok());
  std::string kernel;
  for (const v1::InstrumentRecord& r : trace.records()) {
    if (r.args_size() == 3 && r.args(0) == "float32[4, 8]" && r.args(2) == "float32[4, 8]") kernel = r.callee();
  }
  ASSERT_FALSE(kernel.empty()) << trace.DebugString();
  // The same through the stateful API.
  ASSERT_TRUE((*dev)->SetInput("add", args).ok());
  ASSERT_TRUE((*dev)->InvokeStateful("add", &trace).ok());
  EXPECT_GT(trace.records_size(), 0);

  // Skipping the kernel: its call is recorded as skipped and does not run.
  ASSERT_TRUE((*dev)->SetInstrument(v1::INSTRUMENT_TRACE, {kernel}).ok());
  ASSERT_TRUE((*dev)->Invoke("add", args, &trace).ok());
  bool skipped = false;
  for (const v1::InstrumentRecord& r : trace.records()) skipped |= r.callee() == kernel && r.skipped();
  EXPECT_TRUE(skipped) << trace.DebugString();

  ASSERT_TRUE((*dev)->SetInstrument(v1::INSTRUMENT_OFF).ok());
  absl::StatusOr<Value> z = (*dev)->Invoke("add", args, &trace);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(trace.records_size(), 0);
  EXPECT_EQ(static_cast<const float*>(z->as_tensor().data())[31], 2 * static_cast<const float*>(x.data())[31]);
}

TEST_F(RemoteDeviceTest, TrappingKernelFailsItsCallAndTheAgentKeepsServing) {
  std::string div = Compile(kDivModule);
  std::string model = Compile(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  absl::StatusOr<std::unique_ptr<RemoteDevice>> trapping = RemoteDevice::Open(agent_->address(), Options());
  absl::StatusOr<std::unique_ptr<RemoteDevice>> other = RemoteDevice::Open(agent_->address(), Options());
  ASSERT_TRUE(trapping.ok() && other.ok());
  absl::Status loaded = (*trapping)->LoadExecutable(div).status();
  ASSERT_TRUE(loaded.ok()) << loaded;
  loaded = (*other)->LoadExecutable(model).status();
  ASSERT_TRUE(loaded.ok()) << loaded;

  // Another session measures on the agent the whole time.
  std::atomic<bool> stop{false};
  std::atomic<int> other_ok{0}, other_failed{0};
  std::thread busy([&] {
    runtime::Tensor x = Floats({4, 8}, 1);
    v1::TimeEvaluatorRequest params;
    params.set_function("add");
    params.set_number(20);
    while (!stop) {
      bool ok = (*other)->TimeEvaluator(params, {Value::Tensor(x), Value::Tensor(x)}).ok();
      (ok ? other_ok : other_failed)++;
    }
  });
  // Measurements complete before and after the traps: waiting for them (not for a fixed time)
  // keeps the test meaningful on a loaded machine, where one measurement may outlast the traps.
  auto wait_for_ok_beyond = [&](int n) {
    absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (other_ok.load() <= n && other_failed.load() == 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
  };
  wait_for_ok_beyond(0);
  ASSERT_GT(other_ok.load(), 0);
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<Value> r = (*trapping)->Invoke("main", {Value::Tensor(Ints(0, 7)), Value::Tensor(Ints(0, 0))});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal) << r.status();
    EXPECT_TRUE(absl::StrContains(r.status().message(), "kernel div trapped: SIGFPE (integer division by zero)"))
        << r.status();
  }
  // The trapped session itself goes on: the same kernel with a non-zero divisor.
  absl::StatusOr<Value> good = (*trapping)->Invoke("main", {Value::Tensor(Ints(0, 7)), Value::Tensor(Ints(3, 0))});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(static_cast<const int32_t*>(good->as_tensor().data())[7], 49 / 3);
  wait_for_ok_beyond(other_ok.load());
  int after_traps = other_ok.load();
  stop = true;
  busy.join();
  EXPECT_GT(after_traps, 0);
  EXPECT_EQ(other_failed.load(), 0);
  // And a new session afterwards.
  absl::StatusOr<std::unique_ptr<RemoteDevice>> later = RemoteDevice::Open(agent_->address(), Options());
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_TRUE((*later)->LoadExecutable(div).ok());
}

TEST_F(RemoteDeviceTest, UnknownKeyAndUnreachableAgentAreClearErrors) {
  absl::StatusOr<std::unique_ptr<RemoteDevice>> none = RemoteDevice::Lease(*client_, "h100", 0, Options());
  ASSERT_EQ(none.status().code(), absl::StatusCode::kNotFound) << none.status();
  EXPECT_TRUE(absl::StrContains(none.status().message(), "no agent with key \"h100\"")) << none.status();

  // Port 1 on loopback: nothing listens there.
  absl::StatusOr<std::unique_ptr<RemoteDevice>> gone = RemoteDevice::Open("127.0.0.1:1", Options());
  ASSERT_EQ(gone.status().code(), absl::StatusCode::kUnavailable) << gone.status();
  EXPECT_TRUE(absl::StrContains(gone.status().message(), "kiln-agent at 127.0.0.1:1: UNAVAILABLE: "))
      << gone.status();
}

}  // namespace
}  // namespace kiln
