// The Relax pipeline: a module as the TVMScript parser gives it (high-level Relax operators, or
// PrimFuncs already called through R.call_tir, as TVM prints modules after its own passes) -> THE
// VM-LOWERED FORM of compiler/relax/transform/passes.h, which VMCodeGen (compiler/relax/backend/vm)
// turns into bytecode. The passes, in order, are in relax_pipeline.cc.
//
// Every pass leaves a module already in a later pass's form unchanged, so a module that is
// partly lowered (call_tir instead of operators, explicit allocations) goes through as it is.
#ifndef KILN_COMPILER_DRIVER_RELAX_PIPELINE_H_
#define KILN_COMPILER_DRIVER_RELAX_PIPELINE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/driver/pass_instrument.h"
#include "compiler/ir/ir.h"

namespace kiln::driver {

struct RelaxPipelineOptions {
  // Per-pass hooks (pass_instrument.h) under the names of RelaxPassNames(); verify_each runs the
  // Relax well-formedness check and the TIR verifier (the checks the parser runs) after each pass.
  PassHooks hooks;
  // The kernels run on a GPU (a device target, device_build.h): ScheduleDefaultGPU binds their
  // loops to threads instead of ScheduleDefaultCPU's parallel/vectorized loops.
  bool gpu = false;
  // The GPU has 32-lane warp shuffles (cuda, nvptx): the cooperative reductions of
  // ScheduleDefaultGPU use them (kGPUWarpShuffleAttr).
  bool gpu_warp_shuffle = false;
  // The GPU has the sm_80 tensor-core instructions (cuda, nvptx for sm_80 and newer): float16
  // GEMMs may use them (kGPUTensorCoreAttr).
  bool gpu_tensor_core = false;
  // The GPU has Hopper's warpgroup instructions (cuda -arch=sm_90a): float16 GEMMs may use them
  // (kGPUWgmmaAttr).
  bool gpu_wgmma = false;
};

// The pipeline's pass names in order: what PassHooks::after_pass receives and
// `kiln build --print-after` accepts for a Relax module (with the TIR pipeline's).
const std::vector<std::string>& RelaxPassNames();

// Runs the Relax passes on `module`. Errors are the first failing pass's (INVALID_ARGUMENT naming
// the function), prefixed with the pass name.
absl::StatusOr<ir::IRModule> RunRelaxPipeline(const ir::IRModule& module, const RelaxPipelineOptions& options = {});

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_RELAX_PIPELINE_H_
