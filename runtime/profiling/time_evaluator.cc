#include "runtime/profiling/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"

namespace kiln::profiling {
namespace {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SleepMs(int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

absl::StatusOr<std::vector<double>> TimeEvaluate(const std::function<absl::Status()>& fn,
                                                 const TimeEvalOptions& o,
                                                 const std::function<absl::Status()>& preproc,
                                                 const std::function<absl::Status()>& sync,
                                                 const TimeEvalClock* clock) {
  if (o.number < 1 || o.repeat < 1 || o.min_repeat_ms < 0 || o.limit_zero_time_iterations < 0 ||
      o.cooldown_interval_ms < 0 || o.repeats_to_cooldown < 1 || o.cache_flush_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "time_evaluator: need number >= 1, repeat >= 1, repeats_to_cooldown >= 1 and non-negative limits (number=",
        o.number, ", repeat=", o.repeat, ", min_repeat_ms=", o.min_repeat_ms, ", limit_zero_time_iterations=",
        o.limit_zero_time_iterations, ", cooldown_interval_ms=", o.cooldown_interval_ms, ", repeats_to_cooldown=",
        o.repeats_to_cooldown, ", cache_flush_bytes=", o.cache_flush_bytes, ")"));
  }
  if (o.cache_flush_bytes > (int64_t{1} << 32)) {
    return absl::InvalidArgumentError(absl::StrCat("time_evaluator: cache_flush_bytes ", o.cache_flush_bytes, " exceeds 4 GiB"));
  }
  std::function<int64_t()> now = clock != nullptr && clock->now_ns ? clock->now_ns : SteadyNowNs;
  std::function<void(int64_t)> sleep = clock != nullptr && clock->sleep_ms ? clock->sleep_ms : SleepMs;
  auto synced = [&]() -> absl::Status { return sync ? sync() : absl::OkStatus(); };
  const auto* device_timer = clock != nullptr && clock->start_device_timer ? &clock->start_device_timer : nullptr;

  // Warm-up: not timed.
  if (absl::Status st = fn(); !st.ok()) return st;
  if (absl::Status st = synced(); !st.ok()) return st;

  std::unique_ptr<char[]> flush;
  if (o.cache_flush_bytes > 0) flush.reset(new char[o.cache_flush_bytes]);

  std::vector<double> results;
  results.reserve(o.repeat);
  // `number` grows inside a repeat and keeps its value for the next ones, as in TVM.
  int64_t number = o.number;
  for (int i = 0; i < o.repeat; ++i) {
    if (preproc) {
      if (absl::Status st = preproc(); !st.ok()) return st;
    }
    double duration_ms = 0;
    int zero_readings = 0;
    do {
      if (duration_ms > 0) {
        number = static_cast<int64_t>(std::max(o.min_repeat_ms / (duration_ms / number) + 1, number * 1.618));
      }
      if (flush != nullptr) std::memset(flush.get(), i + 1, o.cache_flush_bytes);
      std::unique_ptr<runtime::DeviceTimer> timer;
      if (device_timer != nullptr) {
        absl::StatusOr<std::unique_ptr<runtime::DeviceTimer>> t = (*device_timer)();
        if (!t.ok()) return t.status();
        timer = *std::move(t);
      }
      int64_t start = timer ? 0 : now();
      for (int64_t k = 0; k < number; ++k) {
        if (absl::Status st = fn(); !st.ok()) return st;
      }
      int64_t elapsed_ns = 0;
      if (timer) {
        absl::StatusOr<int64_t> ns = timer->StopAndWait();
        if (!ns.ok()) return ns.status();
        elapsed_ns = *ns;
      } else {
        if (absl::Status st = synced(); !st.ok()) return st;
        elapsed_ns = now() - start;
      }
      if (elapsed_ns <= 0) ++zero_readings;
      duration_ms = std::max<int64_t>(elapsed_ns, 0) / 1e6;
    } while (duration_ms < o.min_repeat_ms && zero_readings < o.limit_zero_time_iterations);
    results.push_back(duration_ms / 1e3 / number);
    if (o.cooldown_interval_ms > 0 && i % o.repeats_to_cooldown == 0) sleep(o.cooldown_interval_ms);
  }
  return results;
}

BenchmarkSummary Summarize(const std::vector<double>& r) {
  BenchmarkSummary s;
  if (r.empty()) return s;
  std::vector<double> sorted = r;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  size_t n = sorted.size();
  s.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double sum = 0;
  for (double v : r) sum += v;
  s.mean = sum / n;
  double var = 0;
  for (double v : r) var += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(var / n);
  return s;
}

}  // namespace kiln::profiling
