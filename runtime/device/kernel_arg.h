// One argument of a kernel launch as the CUDA and OpenCL drivers take it (cuLaunchKernel's
// kernelParams entries, clSetKernelArg's size and bytes), shared by their runtimes.
#ifndef KILN_RUNTIME_DEVICE_KERNEL_ARG_H_
#define KILN_RUNTIME_DEVICE_KERNEL_ARG_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <dlpack/dlpack.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_abi.h"

namespace kiln::runtime {

// A device pointer or handle, or a scalar's bytes: at most 8 bytes.
struct KernelArg {
  size_t size = 0;
  std::array<uint8_t, 8> bytes{};

  template <typename T>
  static KernelArg Of(T v) {
    static_assert(sizeof(T) <= 8, "kernel arguments are at most 8 bytes");
    KernelArg a;
    a.size = sizeof(T);
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
};

// The scalar `v` (a VM int or float) as a kernel parameter of type `t`, in the C type CUDA and
// OpenCL C both give it (8/16/32/64-bit integers, float, double). INVALID_ARGUMENT, naming
// `backend`, for other types.
absl::StatusOr<KernelArg> ScalarKernelArg(DLDataType t, const KilnAny& v, absl::string_view backend);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_DEVICE_KERNEL_ARG_H_
