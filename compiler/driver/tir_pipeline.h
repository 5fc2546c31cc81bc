// The TIR lowering pipeline: high-level TIR (what the TVMScript parser produces: N-D buffers,
// SBlocks, match_buffer params, vectorized/unrolled loops) -> the lowered form that the C and LLVM
// backends compile (the contract, documented in lowered_form.h). The passes, in order, are in
// tir_pipeline.cc; each lives in compiler/tir/transform/<pass>.cc.
#ifndef KILN_COMPILER_DRIVER_TIR_PIPELINE_H_
#define KILN_COMPILER_DRIVER_TIR_PIPELINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/pass_instrument.h"
#include "compiler/ir/ir.h"

namespace kiln::driver {

struct PipelineOptions {
  // The target kind: "llvm" or "c" (both CPU hosts). Others are rejected until GPU targets exist.
  std::string target_kind = "c";
  // T.unroll loops with more iterations stay loops.
  int max_unroll_extent = 64;
  // T.vectorized loops with more lanes stay loops.
  int max_vector_lanes = 64;
  // Run the TIR verifier on the input first (off for IR that was already verified).
  bool verify_input = true;
  // Checked mode (InstrumentChecks): every buffer access bounds-checked, integer division by zero,
  // INT_MIN / -1, oversized shifts and runaway recursion fail the call with the interpreter's
  // wording instead of corrupting memory or raising a signal. Off by default: it costs speed.
  bool checked = false;
  // Per-pass hooks: a dump of the module after chosen passes, the verifier between passes.
  PassHooks hooks;
  // The device tensor arguments must be on: the CPU, or for the host part of a GPU build
  // (device_build.h) the GPU whose kernels it launches (DLPack device type and name for messages).
  int device_type = 1;  // kDLCPU
  std::string device_name = "cpu";
};

// The names of the pipeline's steps in order (a pass that runs twice is listed once): what
// PassHooks::after_pass receives and `kiln build --print-after` accepts.
const std::vector<std::string>& TIRPassNames();

// Lowers every PrimFunc of `module` (Relax functions are kept as they are). Errors are
// INVALID_ARGUMENT naming the function: verifier errors, GPU constructs on a CPU target, malformed
// blocks, parameters the kernel ABI cannot pass.
absl::StatusOr<ir::IRModule> LowerTIR(const ir::IRModule& module, const PipelineOptions& options = {});

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_TIR_PIPELINE_H_
