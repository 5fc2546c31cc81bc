#include "server/farm/farm.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "server/farm/farm_service.h"

namespace kiln::server {
namespace {

// A clock the test moves by hand.
class FakeClock {
 public:
  absl::Time Now() const {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ = absl::FromUnixSeconds(1000000);
};

FarmOptions FastOptions() {
  FarmOptions o;
  o.heartbeat_interval = absl::Milliseconds(40);  // waiters re-check every 10 ms of real time
  o.heartbeat_timeout = absl::Seconds(5);
  o.default_lease = absl::Seconds(60);
  return o;
}

AgentSpec Agent(const std::string& key, uint32_t capacity = 1) {
  AgentSpec s;
  s.key = key;
  s.address = "127.0.0.1:9000";
  s.capacity = capacity;
  return s;
}

class FarmTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  Farm farm_{FastOptions(), [this] { return clock_.Now(); }};
  absl::Time Far() { return clock_.Now() + absl::Hours(1); }
};

TEST_F(FarmTest, LeasesGoToTheHighestPriorityThenFirstCome) {
  ASSERT_TRUE(farm_.Register(Agent("cpu")).ok());
  absl::StatusOr<Lease> held = farm_.Request("cpu", 0, absl::ZeroDuration(), Far());
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(held->duration, absl::Seconds(60));

  absl::Mutex mu;
  std::vector<std::string> order;
  std::vector<std::string> lease_ids(3);
  std::vector<std::thread> threads;
  struct Who {
    const char* name;
    int priority;
  } who[] = {{"low", 0}, {"high-1", 5}, {"high-2", 5}};
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<Lease> l = farm_.Request("cpu", who[i].priority, absl::ZeroDuration(), Far());
      ASSERT_TRUE(l.ok()) << l.status();
      absl::MutexLock lock(&mu);
      order.push_back(who[i].name);
      lease_ids[i] = l->id;
    });
    // Arrival order is the thread start order.
    while (farm_.Waiting()["cpu"] != static_cast<uint32_t>(i + 1)) absl::SleepFor(absl::Milliseconds(1));
  }
  auto granted = [&](size_t n) {
    for (int spin = 0; spin < 2000; ++spin) {
      {
        absl::MutexLock lock(&mu);
        if (order.size() >= n) return;
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
  };
  ASSERT_TRUE(farm_.Release(held->id).ok());
  granted(1);
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(order.size(), 1u);
    ASSERT_TRUE(farm_.Release(lease_ids[1]).ok());
  }
  granted(2);
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(order.size(), 2u);
    ASSERT_TRUE(farm_.Release(lease_ids[2]).ok());
  }
  granted(3);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<std::string>{"high-1", "high-2", "low"}));
  EXPECT_EQ(farm_.Release(held->id).code(), absl::StatusCode::kNotFound);
}

TEST_F(FarmTest, KeysAreSeparateAndCapacityIsHonoured) {
  ASSERT_TRUE(farm_.Register(Agent("h100", 2)).ok());
  ASSERT_TRUE(farm_.Register(Agent("cpu")).ok());
  absl::StatusOr<Lease> a = farm_.Request("h100", 0, absl::ZeroDuration(), Far());
  absl::StatusOr<Lease> b = farm_.Request("h100", 0, absl::ZeroDuration(), Far());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->agent.id, b->agent.id);
  EXPECT_EQ(a->agent.spec.key, "h100");
  absl::StatusOr<Lease> c = farm_.Request("h100", 0, absl::ZeroDuration(), clock_.Now());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(c.status().message().find("\"h100\""), std::string::npos);
  EXPECT_NE(c.status().message().find("1 registered"), std::string::npos) << c.status();
  EXPECT_TRUE(farm_.Request("cpu", 0, absl::ZeroDuration(), clock_.Now()).ok());
  EXPECT_EQ(farm_.Request("tpu", 0, absl::ZeroDuration(), clock_.Now()).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(farm_.Request("", 0, absl::ZeroDuration(), Far()).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FarmTest, ExpiredLeasesFreeTheAgentAndRenewalKeepsThem) {
  ASSERT_TRUE(farm_.Register(Agent("cpu")).ok());
  absl::StatusOr<Lease> l = farm_.Request("cpu", 0, absl::Seconds(10), Far());
  ASSERT_TRUE(l.ok());
  for (int i = 0; i < 5; ++i) {  // 40 s of renewals every 8 s, with heartbeats every 4 s
    clock_.Advance(absl::Seconds(4));
    ASSERT_TRUE(farm_.Heartbeat(l->agent.id, 1).ok());
    clock_.Advance(absl::Seconds(4));
    ASSERT_TRUE(farm_.Heartbeat(l->agent.id, 1).ok());
    ASSERT_TRUE(farm_.Renew(l->id).ok()) << i;
  }
  clock_.Advance(absl::Seconds(4));
  ASSERT_TRUE(farm_.Heartbeat(l->agent.id, 0).ok());
  clock_.Advance(absl::Seconds(4));
  ASSERT_TRUE(farm_.Heartbeat(l->agent.id, 0).ok());
  clock_.Advance(absl::Seconds(3));  // 11 s without renewal
  ASSERT_TRUE(farm_.Heartbeat(l->agent.id, 0).ok());
  EXPECT_EQ(farm_.Renew(l->id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(farm_.Request("cpu", 0, absl::ZeroDuration(), clock_.Now()).ok());
}

TEST_F(FarmTest, ADeadAgentIsDroppedAndItsWaitersGoElsewhere) {
  absl::StatusOr<std::string> dying = farm_.Register(Agent("cpu"));
  ASSERT_TRUE(dying.ok());
  absl::StatusOr<Lease> on_dying = farm_.Request("cpu", 0, absl::ZeroDuration(), Far());
  ASSERT_TRUE(on_dying.ok());
  std::atomic<bool> done{false};
  absl::StatusOr<Lease> waited;
  std::thread waiter([&] {
    waited = farm_.Request("cpu", 0, absl::ZeroDuration(), Far());
    done = true;
  });
  while (farm_.Waiting()["cpu"] != 1) absl::SleepFor(absl::Milliseconds(1));
  absl::StatusOr<std::string> healthy = farm_.Register(Agent("cpu"));
  ASSERT_TRUE(healthy.ok());
  waiter.join();
  ASSERT_TRUE(waited.ok());
  EXPECT_EQ(waited->agent.id, *healthy);

  // The dying agent stops heartbeating; the healthy one goes on.
  clock_.Advance(absl::Seconds(3));
  ASSERT_TRUE(farm_.Heartbeat(*healthy, 1).ok());
  clock_.Advance(absl::Seconds(3));
  ASSERT_TRUE(farm_.Heartbeat(*healthy, 1).ok());
  std::vector<AgentState> agents = farm_.Agents("cpu");
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].id, *healthy);
  EXPECT_EQ(farm_.Renew(on_dying->id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(farm_.Heartbeat(*dying, 0).code(), absl::StatusCode::kNotFound);
}

TEST(ReachableAddressTest, WildcardHostsTakeThePeersAddress) {
  EXPECT_EQ(ReachableAddress("0.0.0.0:7000", "ipv4:10.1.2.3:51234"), "10.1.2.3:7000");
  EXPECT_EQ(ReachableAddress(":7000", "ipv4:10.1.2.3:51234"), "10.1.2.3:7000");
  EXPECT_EQ(ReachableAddress("[::]:7000", "ipv6:[::1]:51234"), "[::1]:7000");
  EXPECT_EQ(ReachableAddress("gpu-box:7000", "ipv4:10.1.2.3:51234"), "gpu-box:7000");
}

}  // namespace
}  // namespace kiln::server
