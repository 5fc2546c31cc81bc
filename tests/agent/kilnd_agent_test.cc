// kilnd and kiln-agent as real processes on loopback, both with tokens: a module compiled by kilnd
// is loaded by the agent by digest alone (the agent fetches it from kilnd and caches it on disk),
// then run through the agent; the agent registers in kilnd's farm. And an agent killed mid-call.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "proto/compile.grpc.pb.h"
#include "proto/farm.grpc.pb.h"
#include "runtime/agent/agent_client.h"
#include "runtime/agent/digest.h"
#include "server/testing/kilnd_process.h"
#include "tests/agent/test_model.h"

namespace kiln::agent {
namespace {

using server::testing::KilndProcess;
using server::testing::MakeTempDir;
using server::testing::RunfilePath;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(KilndAgentTest, AgentFetchesFromKilndByDigestAndRuns) {
  std::string dir = MakeTempDir("kilnd-agent-");
  std::ofstream(dir + "/kilnd_tokens") << "compile-token-0123456789 tester compile\n"
                                       << "kilnd-token-0123456789 farm-agent agent\n";
  std::ofstream(dir + "/kilnd_token") << "kilnd-token-0123456789\n";
  std::ofstream(dir + "/agent_token") << "agent-token-0123456789\n";
  absl::StatusOr<KilndProcess> kilnd = KilndProcess::Start(
      RunfilePath("server/kilnd"),
      {"--cache-dir", dir + "/kilnd_cache", "--log-requests=false", "--token-file", dir + "/kilnd_tokens"});
  ASSERT_TRUE(kilnd.ok()) << kilnd.status();
  absl::StatusOr<KilndProcess> agent =
      KilndProcess::Start(RunfilePath("runtime/agent/kiln-agent"),
                          {"--kilnd", kilnd->address(), "--kilnd-token-file", dir + "/kilnd_token", "--token-file",
                           dir + "/agent_token", "--key", "cpu", "--cache-dir", dir + "/agent_cache"});
  ASSERT_TRUE(agent.ok()) << agent.status();

  // Compile on kilnd.
  auto compile =
      kiln::v1::CompileService::NewStub(grpc::CreateChannel(kilnd->address(), grpc::InsecureChannelCredentials()));
  kiln::v1::CompileRequest req;
  req.set_source(ReadFile(RunfilePath("tests/agent/testdata/model.py")));
  req.set_filename("model.py");
  req.set_target("llvm");
  kiln::v1::CompileResponse compiled;
  {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer compile-token-0123456789");
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    grpc::Status st = compile->Compile(&ctx, req, &compiled);
    ASSERT_TRUE(st.ok()) << st.error_message();
  }

  // The agent registered itself in kilnd's farm under its key, at the address it listens on.
  auto farm = kiln::v1::FarmService::NewStub(grpc::CreateChannel(kilnd->address(), grpc::InsecureChannelCredentials()));
  kiln::v1::ListAgentsResponse agents;
  for (int i = 0; i < 100 && agents.agents_size() == 0; ++i) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer compile-token-0123456789");
    kiln::v1::ListAgentsRequest list;
    list.set_key("cpu");
    grpc::Status st = farm->ListAgents(&ctx, list, &agents);
    ASSERT_TRUE(st.ok()) << st.error_message();
    if (agents.agents_size() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(agents.agents_size(), 1);
  EXPECT_EQ(agents.agents(0).address(), agent->address());
  EXPECT_EQ(agents.agents(0).device(), "cpu");

  AgentClient client(AgentClient::Connect(agent->address()), "agent-token-0123456789");
  absl::StatusOr<kiln::v1::OpenSessionResponse> s = client.OpenSession({});
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<kiln::v1::LoadExecutableResponse> loaded = client.LoadExecutable(s->session_id(), compiled.digest());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->source(), "kilnd");
  EXPECT_EQ(loaded->size(), compiled.metadata().size());

  runtime::Tensor x = *runtime::Tensor::Empty({4, 8}, DLDataType{kDLFloat, 32, 1});
  float* p = static_cast<float*>(x.data());
  for (int i = 0; i < 32; ++i) p[i] = 0.5f * i - 3;
  absl::StatusOr<vm::Value> z = client.Invoke(s->session_id(), "add", {vm::Value::Tensor(x), vm::Value::Tensor(x)});
  ASSERT_TRUE(z.ok()) << z.status();
  const float* q = static_cast<const float*>(z->as_tensor().data());
  for (int i = 0; i < 32; ++i) ASSERT_EQ(q[i], 2 * p[i]);

  // With kilnd gone and no session holding the executable, the agent's disk cache serves it.
  ASSERT_TRUE(kilnd->Stop().ok());
  ASSERT_TRUE(client.CloseSession(s->session_id()).ok());
  absl::StatusOr<kiln::v1::OpenSessionResponse> s2 = client.OpenSession({});
  ASSERT_TRUE(s2.ok());
  loaded = client.LoadExecutable(s2->session_id(), compiled.digest());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->source(), "disk");
  // A digest nobody has, with kilnd down: UNAVAILABLE, naming kilnd.
  absl::Status missing = client.LoadExecutable(s2->session_id(), std::string(64, 'a')).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kUnavailable) << missing;

  // SIGTERM: the agent drains and exits 0.
  absl::StatusOr<int> exit = agent->Stop();
  ASSERT_TRUE(exit.ok()) << exit.status();
  EXPECT_TRUE(WIFEXITED(*exit) && WEXITSTATUS(*exit) == 0) << *exit;
}

// An agent killed in the middle of a call: the client gets UNAVAILABLE, not a hang.
TEST(KilndAgentTest, KilledAgentGivesUnavailable) {
  absl::StatusOr<KilndProcess> agent = KilndProcess::Start(RunfilePath("runtime/agent/kiln-agent"), {"--key", "cpu"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  AgentClient client(AgentClient::Connect(agent->address()));
  absl::StatusOr<kiln::v1::OpenSessionResponse> s = client.OpenSession({});
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<std::string> exe = TestModelExecutable();
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_TRUE(client.UploadExecutable(s->session_id(), Sha256Hex(*exe), *exe).ok());
  // A call that would run for 100 s: time_evaluator with 1 s cooldowns.
  runtime::Tensor x = *runtime::Tensor::Empty({4, 8}, DLDataType{kDLFloat, 32, 1});
  kiln::v1::TimeEvaluatorRequest slow;
  slow.set_session_id(s->session_id());
  slow.set_function("add");
  slow.set_repeat(100);
  slow.set_cooldown_interval_ms(1000);
  absl::Status during;
  std::thread call([&] { during = client.TimeEvaluator(slow, {vm::Value::Tensor(x), vm::Value::Tensor(x)}).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(agent->pid(), SIGKILL);
  call.join();
  EXPECT_EQ(during.code(), absl::StatusCode::kUnavailable) << during;
}

}  // namespace
}  // namespace kiln::agent
