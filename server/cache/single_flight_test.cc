#include "server/cache/single_flight.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "server/cache/sha256.h"

namespace kiln::server {
namespace {

CacheKey K(int i) { return *CacheKey::FromDigest(Sha256Digest(absl::StrCat("key", i))); }

// Blocks the producer until every other caller has joined its call, so that the test cannot pass
// by callers merely arriving one after another.
void WaitForJoiners(const SingleFlight& flight, uint64_t n) {
  while (flight.coalesced() < n) absl::SleepFor(absl::Milliseconds(1));
}

TEST(SingleFlightTest, ThirtyTwoIdenticalConcurrentCallsRunTheProducerOnce) {
  constexpr int kCallers = 32;
  SingleFlight flight;
  std::atomic<int> producer_calls{0}, shared_count{0};
  std::vector<Artifact> results(kCallers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] {
      bool shared = false;
      SingleFlight::Result r = flight.Do(K(1), [&]() -> SingleFlight::Result {
        producer_calls.fetch_add(1);
        WaitForJoiners(flight, kCallers - 1);
        return std::make_shared<const std::string>("compiled");
      }, &shared);
      ASSERT_TRUE(r.ok());
      results[i] = *r;
      if (shared) shared_count.fetch_add(1);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(producer_calls.load(), 1);
  EXPECT_EQ(shared_count.load(), kCallers - 1);
  EXPECT_EQ(flight.coalesced(), static_cast<uint64_t>(kCallers - 1));
  for (const Artifact& a : results) {
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a.get(), results[0].get());  // the very same bytes, not copies
    EXPECT_EQ(*a, "compiled");
  }
}

TEST(SingleFlightTest, AnErrorIsSharedByEveryWaiter) {
  constexpr int kCallers = 8;
  SingleFlight flight;
  std::atomic<int> producer_calls{0}, errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&] {
      SingleFlight::Result r = flight.Do(K(1), [&]() -> SingleFlight::Result {
        producer_calls.fetch_add(1);
        WaitForJoiners(flight, kCallers - 1);
        return absl::InvalidArgumentError("model.py:3:5: error: bad");
      });
      if (r.status().code() == absl::StatusCode::kInvalidArgument &&
          r.status().message() == "model.py:3:5: error: bad") {
        errors.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(producer_calls.load(), 1);
  EXPECT_EQ(errors.load(), kCallers);
}

TEST(SingleFlightTest, DifferentKeysRunConcurrently) {
  SingleFlight flight;
  absl::Notification a_started, b_started;
  std::thread a([&] {
    SingleFlight::Result r = flight.Do(K(1), [&]() -> SingleFlight::Result {
      a_started.Notify();
      // Finishes only once B's producer runs: a single-flight that serialized keys would hang.
      b_started.WaitForNotification();
      return std::make_shared<const std::string>("a");
    });
    EXPECT_EQ(**r, "a");
  });
  std::thread b([&] {
    a_started.WaitForNotification();
    SingleFlight::Result r = flight.Do(K(2), [&]() -> SingleFlight::Result {
      b_started.Notify();
      return std::make_shared<const std::string>("b");
    });
    EXPECT_EQ(**r, "b");
  });
  a.join();
  b.join();
  EXPECT_EQ(flight.coalesced(), 0u);
}

TEST(SingleFlightTest, AFinishedCallIsForgotten) {
  SingleFlight flight;
  int calls = 0;
  auto producer = [&]() -> SingleFlight::Result {
    ++calls;
    return std::make_shared<const std::string>(absl::StrCat("v", calls));
  };
  bool shared = true;
  EXPECT_EQ(**flight.Do(K(1), producer, &shared), "v1");
  EXPECT_FALSE(shared);
  EXPECT_EQ(**flight.Do(K(1), producer, &shared), "v2");
  EXPECT_FALSE(shared);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace kiln::server
