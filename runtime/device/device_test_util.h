// Shared by the device runtimes' tests (CUDA, OpenCL, Vulkan): kernel arguments in the kernel ABI,
// and the check of a runtime's device timer on an axpy kernel.
#ifndef KILN_RUNTIME_DEVICE_DEVICE_TEST_UTIL_H_
#define KILN_RUNTIME_DEVICE_DEVICE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "runtime/device/device_api.h"
#include "runtime/device/device_module.h"

namespace kiln::runtime::testing {

inline KilnAny Ptr(void* p) {
  KilnAny a{};
  a.type_index = kKilnOpaquePtr;
  a.v_ptr = p;
  return a;
}
inline KilnAny Int(int64_t v) {
  KilnAny a{};
  a.type_index = kKilnInt;
  a.v_int64 = v;
  return a;
}
inline KilnAny Float(double v) {
  KilnAny a{};
  a.type_index = kKilnFloat;
  a.v_float64 = v;
  return a;
}

// The device's own timer (time_evaluator's readings) around 20 launches of `axpy` (kernel "axpy",
// args y, x, a, n, then grid and block extents) over 2^16 elements: positive device time, no more
// than the host saw around it, and an empty interval takes less.
inline void ExpectTimerMeasuresDeviceTime(DeviceRuntime* rt, DeviceModule* axpy) {
  DeviceAPI* api = rt->api();
  const int n = 1 << 16;
  void* dx = *api->AllocDataSpace(n * 4, 64);
  void* dy = *api->AllocDataSpace(n * 4, 64);
  ASSERT_TRUE(api->Zero(dx, 0, n * 4).ok());
  ASSERT_TRUE(api->Zero(dy, 0, n * 4).ok());
  KilnAny args[] = {Ptr(dy), Ptr(dx), Float(2), Int(n), Int(n / 64), Int(64)};
  absl::StatusOr<std::unique_ptr<DeviceTimer>> timer = rt->StartTimer();
  ASSERT_TRUE(timer.ok()) << timer.status();
  auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(axpy->Launch("axpy", args, 6).ok());
  absl::StatusOr<int64_t> ns = (*timer)->StopAndWait();
  int64_t host_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - host_start).count();
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_GT(*ns, 0);
  EXPECT_LE(*ns, host_ns + 1000000) << "device time beyond the host's interval (1 ms slack for clock offsets)";
  absl::StatusOr<std::unique_ptr<DeviceTimer>> idle = rt->StartTimer();
  ASSERT_TRUE(idle.ok()) << idle.status();
  absl::StatusOr<int64_t> idle_ns = (*idle)->StopAndWait();
  ASSERT_TRUE(idle_ns.ok()) << idle_ns.status();
  EXPECT_GE(*idle_ns, 0);
  EXPECT_LT(*idle_ns, *ns);
  api->FreeDataSpace(dx);
  api->FreeDataSpace(dy);
}

}  // namespace kiln::runtime::testing

#endif  // KILN_RUNTIME_DEVICE_DEVICE_TEST_UTIL_H_
