// CUDA target strings and the NVRTC step of the CUDA backend: CUDA C++ (codegen_cuda.h) -> PTX or
// a cubin for one GPU architecture.
//
// NVRTC is loaded with dlopen on first use, not linked, so kiln builds and starts on machines
// without the CUDA toolkit; there a CUDA compile fails with FAILED_PRECONDITION naming the library
// (set KILN_NVRTC to its path when it is not on the loader's path or in /usr/local/cuda).
#ifndef KILN_COMPILER_TARGET_SOURCE_CUDA_NVRTC_COMPILE_H_
#define KILN_COMPILER_TARGET_SOURCE_CUDA_NVRTC_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::codegen {

struct CUDATarget {
  std::string arch = "sm_90";  // sm_<major><minor>[a], as -arch spells it
  bool fast_math = false;      // NVRTC's --use_fast_math (approximate division, exp, ...)

  // Canonical spelling ("cuda -arch=sm_90", "cuda -arch=sm_80 -fast-math").
  std::string ToString() const;
};

// Parses "cuda [-arch=sm_NN[a]] [-fast-math]" (default sm_90). Architectures below sm_75 are
// INVALID_ARGUMENT (the CUDA 13 toolkit dropped them); the rest is NVRTC's to accept.
absl::StatusOr<CUDATarget> ParseCUDATarget(absl::string_view spec);

enum class CUDABinary { kPTX, kCubin };

// Compiles `source` with NVRTC for `target`. INVALID_ARGUMENT with NVRTC's log when it rejects the
// source, FAILED_PRECONDITION when NVRTC cannot be loaded.
absl::StatusOr<std::string> CompileWithNVRTC(const std::string& source, const CUDATarget& target,
                                             CUDABinary binary = CUDABinary::kPTX);

// NVRTC's version ("13.0"), or FAILED_PRECONDITION when it cannot be loaded.
absl::StatusOr<std::string> NVRTCVersion();

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_SOURCE_CUDA_NVRTC_COMPILE_H_
