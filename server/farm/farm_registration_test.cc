// kiln-agent's farm registration (runtime/agent/farm_registration.h) against a real kilnd.
#include "runtime/agent/farm_registration.h"

#include <fstream>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/farm.grpc.pb.h"
#include "server/testing/kilnd_process.h"

namespace kiln::agent {
namespace {

using server::testing::KilndProcess;
using server::testing::MakeTempDir;
using server::testing::RunfilePath;

v1::ListAgentsResponse List(const KilndProcess& k, const std::string& token) {
  auto stub = v1::FarmService::NewStub(grpc::CreateChannel(k.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  v1::ListAgentsResponse resp;
  grpc::Status st = stub->ListAgents(&ctx, v1::ListAgentsRequest(), &resp);
  EXPECT_TRUE(st.ok()) << st.error_message();
  return resp;
}

// Polls until `pred` holds or 10 s pass.
template <typename Pred>
bool Eventually(Pred pred) {
  for (absl::Time end = absl::Now() + absl::Seconds(10); absl::Now() < end; absl::SleepFor(absl::Milliseconds(20))) {
    if (pred()) return true;
  }
  return false;
}

TEST(FarmRegistrationTest, RegistersHeartbeatsAndDropsOutWhenStopped) {
  std::string dir = MakeTempDir("farm-reg-");
  std::ofstream(dir + "/tokens") << "agent-token-0123456789 box agent\nclient-token-0123456789 alice compile\n";
  absl::StatusOr<KilndProcess> k = KilndProcess::Start(
      RunfilePath("server/kilnd"), {"--cache-dir", dir + "/cache", "--heartbeat-ms", "200", "--log-requests=false",
                                    "--token-file", dir + "/tokens"});
  ASSERT_TRUE(k.ok()) << k.status();
  auto channel = grpc::CreateChannel(k->address(), grpc::InsecureChannelCredentials());
  FarmRegistrationOptions o;
  o.key = "cpu-test";
  o.address = "0.0.0.0:9555";
  o.capacity = 2;
  {
    FarmRegistrationOptions wrong = o;
    wrong.token = "client-token-0123456789";  // compile permission only
    FarmRegistration refused(channel, wrong, [] { return 0u; });
    absl::SleepFor(absl::Milliseconds(500));
    EXPECT_EQ(refused.registrations(), 0);
  }
  o.token = "agent-token-0123456789";
  auto reg = std::make_unique<FarmRegistration>(channel, o, [] { return 1u; });
  ASSERT_TRUE(Eventually([&] { return List(*k, "client-token-0123456789").agents_size() == 1; }));
  v1::ListAgentsResponse listed = List(*k, "client-token-0123456789");
  EXPECT_EQ(listed.agents(0).key(), "cpu-test");
  EXPECT_EQ(listed.agents(0).address(), "127.0.0.1:9555");
  EXPECT_EQ(listed.agents(0).capacity(), 2u);
  EXPECT_EQ(listed.agents(0).agent_id(), reg->agent_id());
  // Heartbeats keep it listed well past the 0.5 s timeout.
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(List(*k, "client-token-0123456789").agents_size(), 1);
  EXPECT_EQ(reg->registrations(), 1);
  reg.reset();
  EXPECT_TRUE(Eventually([&] { return List(*k, "client-token-0123456789").agents_size() == 0; }));
}

}  // namespace
}  // namespace kiln::agent
