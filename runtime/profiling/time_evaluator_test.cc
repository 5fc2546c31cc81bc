#include "runtime/profiling/time_evaluator.h"

#include "gtest/gtest.h"

namespace kiln::profiling {
namespace {

// A fake clock: each call of the timed function advances it by `per_call_ns`.
struct FakeTime {
  int64_t now = 0;
  int64_t per_call_ns = 0;
  int calls = 0;
  std::vector<int64_t> sleeps;
  TimeEvalClock clock() {
    return TimeEvalClock{[this] { return now; }, [this](int64_t ms) { sleeps.push_back(ms); }};
  }
  std::function<absl::Status()> fn() {
    return [this] {
      ++calls;
      now += per_call_ns;
      return absl::OkStatus();
    };
  }
};

TEST(TimeEvaluatorTest, DefaultsAreTvms) {
  TimeEvalOptions o;
  EXPECT_EQ(o.number, 10);
  EXPECT_EQ(o.repeat, 1);
  EXPECT_EQ(o.min_repeat_ms, 0);
  EXPECT_EQ(o.limit_zero_time_iterations, 100);
  EXPECT_EQ(o.cooldown_interval_ms, 0);
  EXPECT_EQ(o.repeats_to_cooldown, 1);
  EXPECT_EQ(o.cache_flush_bytes, 0);
  FakeTime t{0, 2000};
  TimeEvalClock c = t.clock();
  absl::StatusOr<std::vector<double>> r = TimeEvaluate(t.fn(), o, nullptr, nullptr, &c);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_DOUBLE_EQ((*r)[0], 2e-6);
  EXPECT_EQ(t.calls, 1 + 10);  // one untimed warm-up call
}

TEST(TimeEvaluatorTest, MinRepeatMsGrowsNumber) {
  FakeTime t{0, 1000000};  // 1 ms per call
  TimeEvalClock c = t.clock();
  TimeEvalOptions o;
  o.number = 1;
  o.repeat = 2;
  o.min_repeat_ms = 10;
  absl::StatusOr<std::vector<double>> r = TimeEvaluate(t.fn(), o, nullptr, nullptr, &c);
  ASSERT_TRUE(r.ok()) << r.status();
  // Repeat 0: 1 call = 1 ms < 10 -> number = max(10 / 1 + 1, 1.618) = 11 -> 11 ms. Repeat 1 keeps 11.
  EXPECT_EQ(t.calls, 1 + 1 + 11 + 11);
  EXPECT_DOUBLE_EQ((*r)[0], 1e-3);
  EXPECT_DOUBLE_EQ((*r)[1], 1e-3);
}

TEST(TimeEvaluatorTest, GoldenRatioWhenCloseToTheTarget) {
  FakeTime t{0, 1000000};
  TimeEvalClock c = t.clock();
  TimeEvalOptions o;
  o.number = 100;
  o.min_repeat_ms = 101;  // 100 ms reading: 101 / 1 + 1 = 102 < 161.8
  ASSERT_TRUE(TimeEvaluate(t.fn(), o, nullptr, nullptr, &c).ok());
  EXPECT_EQ(t.calls, 1 + 100 + 161);
}

TEST(TimeEvaluatorTest, ZeroReadingsStopAtTheLimit) {
  FakeTime t{0, 0};
  TimeEvalClock c = t.clock();
  TimeEvalOptions o;
  o.number = 3;
  o.min_repeat_ms = 5;
  o.limit_zero_time_iterations = 4;
  absl::StatusOr<std::vector<double>> r = TimeEvaluate(t.fn(), o, nullptr, nullptr, &c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(t.calls, 1 + 4 * 3);
  EXPECT_EQ((*r)[0], 0.0);
}

TEST(TimeEvaluatorTest, CooldownEveryRepeatsToCooldown) {
  FakeTime t{0, 10};
  TimeEvalClock c = t.clock();
  TimeEvalOptions o;
  o.number = 1;
  o.repeat = 5;
  o.cooldown_interval_ms = 7;
  o.repeats_to_cooldown = 2;
  int preprocs = 0;
  absl::StatusOr<std::vector<double>> r = TimeEvaluate(
      t.fn(), o, [&] { ++preprocs; return absl::OkStatus(); }, nullptr, &c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 5u);
  EXPECT_EQ(t.sleeps, (std::vector<int64_t>{7, 7, 7}));  // after repeats 0, 2 and 4
  EXPECT_EQ(preprocs, 5);
}

TEST(TimeEvaluatorTest, SyncRunsAfterEachBatchAndCacheFlushWorks) {
  FakeTime t{0, 10};
  TimeEvalClock c = t.clock();
  TimeEvalOptions o;
  o.repeat = 3;
  o.cache_flush_bytes = 1 << 16;
  int syncs = 0;
  ASSERT_TRUE(TimeEvaluate(t.fn(), o, nullptr, [&] { ++syncs; return absl::OkStatus(); }, &c).ok());
  EXPECT_EQ(syncs, 1 + 3);
}

// A device whose timer reports 3 us of device time per timed call while the host clock does not
// move: the readings are the device's, and `sync` is not called.
TEST(TimeEvaluatorTest, DeviceTimerReplacesTheHostClock) {
  struct Timer : runtime::DeviceTimer {
    Timer(const int* calls) : calls(calls), start(*calls) {}
    absl::StatusOr<int64_t> StopAndWait() override { return int64_t{3000} * (*calls - start); }
    const int* calls;
    int start;
  };
  FakeTime t{0, 0};
  TimeEvalClock c = t.clock();
  int timers = 0;
  c.start_device_timer = [&]() -> absl::StatusOr<std::unique_ptr<runtime::DeviceTimer>> {
    ++timers;
    return std::unique_ptr<runtime::DeviceTimer>(new Timer(&t.calls));
  };
  int syncs = 0;
  TimeEvalOptions o;
  o.number = 4;
  o.repeat = 3;
  absl::StatusOr<std::vector<double>> r =
      TimeEvaluate(t.fn(), o, nullptr, [&] { ++syncs; return absl::OkStatus(); }, &c);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  for (double v : *r) EXPECT_DOUBLE_EQ(v, 3e-6);
  EXPECT_EQ(timers, 3);
  EXPECT_EQ(syncs, 1) << "only after the untimed warm-up";
  // A timer that fails fails the evaluation.
  c.start_device_timer = []() -> absl::StatusOr<std::unique_ptr<runtime::DeviceTimer>> {
    return absl::InternalError("marker failed");
  };
  EXPECT_EQ(TimeEvaluate(t.fn(), o, nullptr, nullptr, &c).status().message(), "marker failed");
}

TEST(TimeEvaluatorTest, Errors) {
  TimeEvalOptions o;
  o.number = 0;
  EXPECT_EQ(TimeEvaluate([] { return absl::OkStatus(); }, o).status().code(), absl::StatusCode::kInvalidArgument);
  o = TimeEvalOptions();
  o.repeats_to_cooldown = 0;
  EXPECT_FALSE(TimeEvaluate([] { return absl::OkStatus(); }, o).ok());
  int calls = 0;
  absl::StatusOr<std::vector<double>> r = TimeEvaluate(
      [&] { return ++calls == 3 ? absl::InternalError("boom") : absl::OkStatus(); }, TimeEvalOptions());
  EXPECT_EQ(r.status().message(), "boom");
  EXPECT_EQ(calls, 3);
}

TEST(TimeEvaluatorTest, RealClockMeasuresSomething) {
  TimeEvalOptions o;
  o.number = 1;
  o.repeat = 2;
  o.min_repeat_ms = 2;
  absl::StatusOr<std::vector<double>> r = TimeEvaluate([] { return absl::OkStatus(); }, o);
  ASSERT_TRUE(r.ok());
  for (double v : *r) EXPECT_GT(v, 0);
}

TEST(TimeEvaluatorTest, Summary) {
  BenchmarkSummary s = Summarize({4, 1, 3, 2});
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.mean, 2.5);
  EXPECT_EQ(s.median, 2.5);
  EXPECT_NEAR(s.std, 1.1180339887, 1e-9);
}

}  // namespace
}  // namespace kiln::profiling
