// TVM's time_evaluator loop for any callable (src/runtime/timer.cc, tvm-reference.md §3.2): one
// untimed warm-up call, then `repeat` timed readings of `number` calls each, returning seconds per
// call for each repeat. A reading shorter than min_repeat_ms raises `number` to
// max(min_repeat_ms / (t / number) + 1, number * 1.618) (t in ms; the new number carries over to
// later repeats) and times again, giving up after limit_zero_time_iterations readings of 0 ns.
// `preproc` runs before each repeat; before each reading cache_flush_bytes of memory are written to
// flush the caches; after repeat i it sleeps cooldown_interval_ms when i % repeats_to_cooldown == 0.
#ifndef KILN_RUNTIME_PROFILING_TIME_EVALUATOR_H_
#define KILN_RUNTIME_PROFILING_TIME_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device/device_module.h"

namespace kiln::profiling {

struct TimeEvalOptions {
  int number = 10;
  int repeat = 1;
  int min_repeat_ms = 0;
  int limit_zero_time_iterations = 100;
  int cooldown_interval_ms = 0;
  int repeats_to_cooldown = 1;
  int64_t cache_flush_bytes = 0;
};

// The clock and the sleep the loop uses; tests substitute fakes. Defaults: steady_clock and
// std::this_thread::sleep_for. With start_device_timer set, each reading is instead the device's
// own measurement (runtime/device: DeviceRuntime::StartTimer before the batch, StopAndWait after
// it), as TVM's time_evaluator uses device events on a GPU; `sync` is then not needed.
struct TimeEvalClock {
  std::function<int64_t()> now_ns;
  std::function<void(int64_t ms)> sleep_ms;
  std::function<absl::StatusOr<std::unique_ptr<runtime::DeviceTimer>>()> start_device_timer;
};

// INVALID_ARGUMENT for number < 1, repeat < 1 or negative limits; the first error `fn` (or
// `preproc`) returns otherwise. `sync`, when set, runs after each timed batch before the clock is
// read (a device synchronize).
absl::StatusOr<std::vector<double>> TimeEvaluate(const std::function<absl::Status()>& fn,
                                                 const TimeEvalOptions& options,
                                                 const std::function<absl::Status()>& preproc = nullptr,
                                                 const std::function<absl::Status()>& sync = nullptr,
                                                 const TimeEvalClock* clock = nullptr);

// Python's BenchmarkResult: summary statistics of TimeEvaluate's results (seconds).
struct BenchmarkSummary {
  double mean = 0, median = 0, min = 0, max = 0, std = 0;
};
BenchmarkSummary Summarize(const std::vector<double>& results);

}  // namespace kiln::profiling

#endif  // KILN_RUNTIME_PROFILING_TIME_EVALUATOR_H_
