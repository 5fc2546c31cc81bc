// kiln-agent end to end on loopback: an AgentServer on 127.0.0.1:0 in process, the AgentClient,
// and a real executable (testdata/model.py built by the kiln CLI). Numerics against C++ references.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/agent/agent_client.h"
#include "runtime/agent/agent_server.h"
#include "runtime/agent/digest.h"
#include "tests/agent/test_model.h"

#ifndef KILN_AGENT_LARGE_MIB
#define KILN_AGENT_LARGE_MIB 64
#endif

namespace kiln::agent {
namespace {

using runtime::Tensor;
constexpr DLDataType kF32{kDLFloat, 32, 1};

Tensor RandomTensor(const std::vector<int64_t>& shape, std::mt19937* rng) {
  Tensor t = *Tensor::Empty(shape, kF32);
  std::uniform_real_distribution<float> dist(-1, 1);
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(*rng);
  return t;
}

const float* F(const Tensor& t) { return static_cast<const float*>(t.data()); }

// y = x @ w for x (m, k), w (k, n), in double.
std::vector<double> MatMulRef(const Tensor& x, const Tensor& w) {
  int64_t m = x.shape()[0], k = x.shape()[1], n = w.shape()[1];
  std::vector<double> y(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) y[i * n + j] += double(F(x)[i * k + p]) * F(w)[p * n + j];
  return y;
}

void ExpectMatMul(const vm::Value& out, const Tensor& x, const Tensor& w) {
  ASSERT_TRUE(out.is_tuple()) << out.DebugString();
  ASSERT_EQ(out.as_tuple().size(), 2u);
  const Tensor& y = out.as_tuple()[0].as_tensor();
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{x.shape()[0], w.shape()[1]}));
  std::vector<double> ref = MatMulRef(x, w);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(F(y)[i], ref[i], 1e-4) << "at " << i;
  const Tensor& xb = out.as_tuple()[1].as_tensor();
  ASSERT_EQ(std::memcmp(xb.data(), x.data(), x.nbytes()), 0);
}

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> exe = TestModelExecutable();
    ASSERT_TRUE(exe.ok()) << exe.status();
    exe_ = *exe;
    digest_ = Sha256Hex(exe_);
  }

  void StartAgent(const std::string& token = "") {
    AgentConfig config;
    config.token = token;
    config.sessions.reap_interval = std::chrono::milliseconds(20);
    absl::StatusOr<std::unique_ptr<AgentServer>> agent = AgentServer::Start(config);
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = *std::move(agent);
    channel_ = AgentClient::Connect("127.0.0.1:" + std::to_string(agent_->port()));
    client_ = std::make_unique<AgentClient>(channel_, token);
  }

  // A session with model.kx uploaded.
  std::string OpenLoaded(uint32_t lease_seconds = 0, uint64_t memory_limit = 0) {
    kiln::v1::OpenSessionRequest req;
    req.set_lease_seconds(lease_seconds);
    req.set_memory_limit_bytes(memory_limit);
    req.set_num_threads(1);
    absl::StatusOr<kiln::v1::OpenSessionResponse> s = client_->OpenSession(req);
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) return "";
    absl::StatusOr<kiln::v1::LoadExecutableResponse> loaded =
        client_->UploadExecutable(s->session_id(), digest_, exe_, /*chunk_bytes=*/4096);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return s->session_id();
  }

  std::string exe_, digest_;
  std::unique_ptr<AgentServer> agent_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<AgentClient> client_;
  std::mt19937 rng_{42};
};

TEST_F(AgentTest, UploadThenInvokeDirect) {
  StartAgent();
  kiln::v1::OpenSessionRequest open;
  open.set_allocator(kiln::v1::ALLOCATOR_NAIVE);
  absl::StatusOr<kiln::v1::OpenSessionResponse> s = client_->OpenSession(open);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->lease_seconds(), 60u);
  absl::StatusOr<kiln::v1::LoadExecutableResponse> loaded =
      client_->UploadExecutable(s->session_id(), digest_, exe_, 1000);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->source(), "upload");
  EXPECT_EQ(loaded->size(), exe_.size());
  EXPECT_EQ(std::vector<std::string>(loaded->functions().begin(), loaded->functions().end()),
            (std::vector<std::string>{"add", "matmul", "double", "matmul256"}));

  Tensor x = RandomTensor({4, 8}, &rng_), y = RandomTensor({4, 8}, &rng_);
  absl::StatusOr<vm::Value> z = client_->Invoke(s->session_id(), "add", {vm::Value::Tensor(x), vm::Value::Tensor(y)});
  ASSERT_TRUE(z.ok()) << z.status();
  for (int i = 0; i < 32; ++i) ASSERT_EQ(F(z->as_tensor())[i], F(x)[i] + F(y)[i]);

  Tensor a = RandomTensor({16, 32}, &rng_), w = RandomTensor({32, 8}, &rng_);
  absl::StatusOr<vm::Value> mm =
      client_->Invoke(s->session_id(), "matmul", {vm::Value::Tensor(a), vm::Value::Tensor(w)});
  ASSERT_TRUE(mm.ok()) << mm.status();
  ExpectMatMul(*mm, a, w);

  // A second session takes the executable by digest from the agent's memory.
  absl::StatusOr<kiln::v1::OpenSessionResponse> s2 = client_->OpenSession({});
  ASSERT_TRUE(s2.ok());
  absl::StatusOr<kiln::v1::LoadExecutableResponse> by_digest = client_->LoadExecutable(s2->session_id(), digest_);
  ASSERT_TRUE(by_digest.ok()) << by_digest.status();
  EXPECT_EQ(by_digest->source(), "memory");
  // Unknown digest, no kilnd: NOT_FOUND.
  EXPECT_EQ(client_->LoadExecutable(s2->session_id(), Sha256Hex("nope")).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(AgentTest, StatefulRoundsNumericallyChecked) {
  StartAgent();
  std::string sid = OpenLoaded();
  for (int round = 0; round < 100; ++round) {
    Tensor x = RandomTensor({16, 32}, &rng_), w = RandomTensor({32, 8}, &rng_);
    ASSERT_TRUE(client_->SetInput(sid, "matmul", {vm::Value::Tensor(x), vm::Value::Tensor(w)}, 512).ok());
    ASSERT_TRUE(client_->InvokeStateful(sid, "matmul").ok());
    absl::StatusOr<vm::Value> out = client_->GetOutputs(sid, "matmul", 256);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectMatMul(*out, x, w);
  }
}

TEST_F(AgentTest, SetInputByParameterName) {
  StartAgent();
  std::string sid = OpenLoaded();
  Tensor x = RandomTensor({4, 8}, &rng_), y = RandomTensor({4, 8}, &rng_);
  kiln::v1::SetInputRequest header;
  header.mutable_header()->set_session_id(sid);
  header.mutable_header()->set_function("add");
  for (auto [name, t] : {std::pair<const char*, Tensor>{"y", y}, {"x", x}}) {
    kiln::v1::NamedValue* a = header.mutable_header()->add_args();
    a->set_name(name);
    ASSERT_TRUE(EncodeValue(vm::Value::Tensor(t), a->mutable_value(), nullptr).ok());
  }
  auto ctx = client_->NewContext();
  kiln::v1::SetInputResponse resp;
  auto writer = client_->stub().SetInput(ctx.get(), &resp);
  writer->Write(header);
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());
  ASSERT_TRUE(client_->InvokeStateful(sid, "add").ok());
  absl::StatusOr<vm::Value> z = client_->GetOutputs(sid, "add");
  ASSERT_TRUE(z.ok()) << z.status();
  for (int i = 0; i < 32; ++i) ASSERT_EQ(F(z->as_tensor())[i], F(x)[i] + F(y)[i]);
}

TEST_F(AgentTest, TimeEvaluatorReturnsOneResultPerRepeat) {
  StartAgent();
  std::string sid = OpenLoaded();
  Tensor x = RandomTensor({16, 32}, &rng_), w = RandomTensor({32, 8}, &rng_);
  ASSERT_TRUE(client_->SetInput(sid, "matmul", {vm::Value::Tensor(x), vm::Value::Tensor(w)}).ok());
  kiln::v1::TimeEvaluatorRequest req;
  req.set_session_id(sid);
  req.set_function("matmul");
  req.set_stateful(true);
  req.set_number(3);
  req.set_repeat(4);
  req.set_cache_flush_bytes(1 << 16);
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> r = client_->TimeEvaluator(req);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->results_size(), 4);
  for (double t : r->results()) EXPECT_GT(t, 0);
  EXPECT_LE(r->min(), r->median());
  EXPECT_LE(r->median(), r->max());

  // Over invoke, with the arguments saved under a new name (TVM's save_function + time_evaluator).
  ASSERT_TRUE(
      client_->SaveFunction(sid, "matmul", "matmul_saved", {vm::Value::Tensor(x), vm::Value::Tensor(w)}, false).ok());
  absl::StatusOr<vm::Value> none = client_->Invoke(sid, "matmul_saved", {});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->is_none());
  kiln::v1::TimeEvaluatorRequest saved;
  saved.set_session_id(sid);
  saved.set_function("matmul_saved");
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> r2 = client_->TimeEvaluator(saved);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->results_size(), 1);  // TVM's default repeat
  // Inline arguments.
  kiln::v1::TimeEvaluatorRequest direct;
  direct.set_session_id(sid);
  direct.set_function("add");
  direct.set_repeat(2);
  Tensor a = RandomTensor({4, 8}, &rng_);
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> r3 =
      client_->TimeEvaluator(direct, {vm::Value::Tensor(a), vm::Value::Tensor(a)});
  ASSERT_TRUE(r3.ok()) << r3.status();
  EXPECT_EQ(r3->results_size(), 2);
}

TEST_F(AgentTest, LeaseExpiryReclaimsTheSessionAndItsMemory) {
  StartAgent();
  std::string dead = OpenLoaded(/*lease_seconds=*/1);
  // Leases of 3 s with keep-alives every 250 ms: margin for a loaded CI machine.
  std::string kept = OpenLoaded(/*lease_seconds=*/3);
  Tensor big = RandomTensor({1 << 18}, &rng_);  // 1 MiB
  ASSERT_TRUE(client_->SetInput(dead, "double", {vm::Value::Tensor(big)}).ok());
  ASSERT_TRUE(client_->SetInput(kept, "double", {vm::Value::Tensor(big)}).ok());
  EXPECT_EQ(agent_->sessions().memory_in_use(), 2 << 20);
  // `kept` is renewed by keep-alives; `dead`'s client went silent.
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    absl::StatusOr<uint64_t> left = client_->KeepAlive(kept);
    ASSERT_TRUE(left.ok()) << left.status();
    EXPECT_EQ(*left, 3000u);
  }
  EXPECT_EQ(client_->InvokeStateful(dead, "double").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(agent_->sessions().size(), 1u);
  EXPECT_EQ(agent_->sessions().memory_in_use(), 1 << 20);  // the dead session's input is freed
  ASSERT_TRUE(client_->InvokeStateful(kept, "double").ok());
  ASSERT_TRUE(client_->CloseSession(kept).ok());
  EXPECT_EQ(agent_->sessions().memory_in_use(), 0);
  EXPECT_EQ(client_->KeepAlive(kept).status().code(), absl::StatusCode::kNotFound);
}

// A call longer than the lease does not lose its session: time_evaluator with cooldowns (~2.4 s)
// on a 1 s lease, with no keep-alive.
TEST_F(AgentTest, CallLongerThanTheLeaseKeepsItsSession) {
  StartAgent();
  std::string busy = OpenLoaded(/*lease_seconds=*/1);
  Tensor x = RandomTensor({1024}, &rng_);
  ASSERT_TRUE(client_->SetInput(busy, "double", {vm::Value::Tensor(x)}).ok());
  kiln::v1::TimeEvaluatorRequest slow;
  slow.set_session_id(busy);
  slow.set_function("double");
  slow.set_stateful(true);
  slow.set_number(1);
  slow.set_repeat(4);
  slow.set_cooldown_interval_ms(600);
  absl::StatusOr<kiln::v1::TimeEvaluatorResponse> r = client_->TimeEvaluator(slow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->results_size(), 4);
  // The call's end renewed the lease.
  EXPECT_TRUE(client_->KeepAlive(busy).ok());
  EXPECT_TRUE(client_->InvokeStateful(busy, "double").ok());
}

TEST_F(AgentTest, ErrorsCarryTheRightCodeAndAClearMessage) {
  StartAgent();
  // Unknown session.
  EXPECT_EQ(client_->InvokeStateful("0123", "add").code(), absl::StatusCode::kNotFound);
  // Calls before an executable.
  absl::StatusOr<kiln::v1::OpenSessionResponse> empty = client_->OpenSession({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(client_->InvokeStateful(empty->session_id(), "add").code(), absl::StatusCode::kFailedPrecondition);
  // Devices the agent does not serve.
  kiln::v1::OpenSessionRequest cuda;
  cuda.set_device("cuda");
  EXPECT_EQ(client_->OpenSession(cuda).status().code(), absl::StatusCode::kUnimplemented);

  std::string sid = OpenLoaded();
  Tensor wrong_shape = RandomTensor({8, 4}, &rng_), ok = RandomTensor({4, 8}, &rng_);
  absl::Status s = client_->SetInput(sid, "add", {vm::Value::Tensor(wrong_shape), vm::Value::Tensor(ok)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("set_input(add): argument 0 (x): expect shape (4, 8) but got (8, 4)"), std::string::npos)
      << s;
  Tensor f64 = *Tensor::Empty({4, 8}, DLDataType{kDLFloat, 64, 1});
  s = client_->SetInput(sid, "add", {vm::Value::Tensor(ok), vm::Value::Tensor(f64)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expect dtype float32 but got float64"), std::string::npos) << s;
  EXPECT_EQ(client_->SetInput(sid, "add", {vm::Value::Tensor(ok)}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client_->Invoke(sid, "nope", {}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->GetOutputs(sid, "add").status().code(), absl::StatusCode::kFailedPrecondition);

  // A stream that stops before its tensor is complete leaves the function unrunnable.
  kiln::v1::SetInputRequest header;
  header.mutable_header()->set_session_id(sid);
  header.mutable_header()->set_function("double");
  kiln::v1::Tensor* t = header.mutable_header()->add_args()->mutable_value()->mutable_tensor();
  *t->mutable_dtype() = ToProto(kF32);
  t->add_shape(1000);
  t->set_streamed(true);
  kiln::v1::SetInputRequest chunk;
  chunk.mutable_chunk()->set_data(std::string(400, '\0'));
  auto ctx = client_->NewContext();
  kiln::v1::SetInputResponse resp;
  auto writer = client_->stub().SetInput(ctx.get(), &resp);
  writer->Write(header);
  writer->Write(chunk);
  writer->WritesDone();
  grpc::Status partial = writer->Finish();
  EXPECT_EQ(partial.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << partial.error_message();
  EXPECT_EQ(client_->InvokeStateful(sid, "double").code(), absl::StatusCode::kFailedPrecondition);

  // The memory limit.
  std::string small = OpenLoaded(0, /*memory_limit=*/1 << 20);
  Tensor two_mib = RandomTensor({1 << 19}, &rng_);
  s = client_->SetInput(small, "double", {vm::Value::Tensor(two_mib)});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
}

TEST_F(AgentTest, CorruptOrMismatchedExecutablesAreRefused) {
  StartAgent();
  absl::StatusOr<kiln::v1::OpenSessionResponse> s = client_->OpenSession({});
  ASSERT_TRUE(s.ok());
  std::string corrupt = exe_;
  corrupt[20] ^= 0x7f;  // inside the header's version string / first section
  absl::Status st = client_->UploadExecutable(s->session_id(), Sha256Hex(corrupt), corrupt).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("does not load"), std::string::npos) << st;
  std::string truncated = exe_.substr(0, exe_.size() / 2);
  st = client_->UploadExecutable(s->session_id(), Sha256Hex(truncated), truncated).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  st = client_->UploadExecutable(s->session_id(), Sha256Hex("other"), exe_).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("not the requested"), std::string::npos) << st;
  // The session is still usable.
  EXPECT_TRUE(client_->UploadExecutable(s->session_id(), digest_, exe_).ok());
}

TEST_F(AgentTest, TokenIsRequiredWhenConfigured) {
  StartAgent("sekrit");
  EXPECT_TRUE(client_->OpenSession({}).ok());
  AgentClient anonymous(channel_);
  absl::Status s = anonymous.OpenSession({}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated) << s;
  AgentClient wrong(channel_, "sekrot");
  EXPECT_EQ(wrong.OpenSession({}).status().code(), absl::StatusCode::kUnauthenticated);
  std::string sid = OpenLoaded();
  EXPECT_EQ(anonymous.InvokeStateful(sid, "add").code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(anonymous.SetInput(sid, "add", {}).code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(anonymous.CloseSession(sid).code(), absl::StatusCode::kUnauthenticated);
}

// KILN_AGENT_LARGE_MIB of float32 up, doubled, and back, bit for bit.
TEST_F(AgentTest, LargeInputRoundTrip) {
  StartAgent();
  std::string sid = OpenLoaded();
  const int64_t n = int64_t{KILN_AGENT_LARGE_MIB} << 18;
  Tensor x = *Tensor::Empty({n}, kF32);
  float* p = static_cast<float*>(x.data());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 1000003) * 0.25f;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_->SetInput(sid, "double", {vm::Value::Tensor(x)}).ok());
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_TRUE(client_->InvokeStateful(sid, "double").ok());
  absl::StatusOr<vm::Value> y = client_->GetOutputs(sid, "double", 4 << 20);
  auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->as_tensor().shape(), std::vector<int64_t>{n});
  const float* q = F(y->as_tensor());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(q[i], p[i] * 2) << "at " << i;
  double up = std::chrono::duration<double>(t1 - t0).count();
  double down = std::chrono::duration<double>(t2 - t1).count();
  std::printf("%d MiB: set_input %.3f s (%.0f MiB/s); invoke_stateful + get_outputs %.3f s\n", KILN_AGENT_LARGE_MIB, up,
              KILN_AGENT_LARGE_MIB / up, down);
}

}  // namespace
}  // namespace kiln::agent
