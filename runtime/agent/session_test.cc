#include "runtime/agent/session.h"

#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace kiln::agent {
namespace {

using std::chrono::milliseconds;

SessionManagerOptions FastReaper() {
  SessionManagerOptions o;
  o.reap_interval = milliseconds(10);
  o.max_sessions = 2;
  return o;
}

SessionConfig Lease(milliseconds ms) {
  SessionConfig c;
  c.lease = ms;
  return c;
}

TEST(SessionTest, ExpiredSessionIsReaped) {
  SessionManager m(FastReaper());
  absl::StatusOr<std::string> id = m.Open(Lease(milliseconds(50)));
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(m.Acquire(*id).ok());
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.Acquire(*id).status().code(), absl::StatusCode::kNotFound);
}

TEST(SessionTest, KeepAliveAndCallsInProgressHoldTheLease) {
  SessionManager m(FastReaper());
  std::string kept = *m.Open(Lease(milliseconds(100)));
  std::string busy = *m.Open(Lease(milliseconds(100)));
  {
    absl::StatusOr<SessionManager::Handle> h = m.Acquire(busy);  // a long call
    for (int i = 0; i < 6; ++i) {
      std::this_thread::sleep_for(milliseconds(50));
      ASSERT_TRUE(m.KeepAlive(kept).ok());
    }
    EXPECT_EQ(m.size(), 2u);
  }
  // The call's end renewed the lease; no keep-alive after it: both expire.
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(m.size(), 0u);
}

TEST(SessionTest, CapacityCloseAndClamping) {
  SessionManagerOptions o = FastReaper();
  o.max_lease = std::chrono::seconds(5);
  o.max_memory_limit = 1000;
  SessionManager m(o);
  SessionConfig c;
  c.lease = std::chrono::hours(9);
  std::string a = *m.Open(c);
  EXPECT_EQ(m.ConfigOf(a)->lease, std::chrono::seconds(5));
  EXPECT_EQ(m.ConfigOf(a)->memory_limit, 1000u);
  std::string b = *m.Open(c);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(m.Open(c).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(m.Close(a).ok());
  EXPECT_EQ(m.Close(a).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(m.KeepAlive(a).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(m.Open(c).ok());
}

}  // namespace
}  // namespace kiln::agent
