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
#include "compiler/ir/ir.h"

namespace kiln::driver {

struct RelaxPipelineOptions {
  // Called after each pass with the pass's name (as in passes.h, e.g. "FuseOps") and its output:
  // for printing the IR between passes or verifying it. A non-OK status stops the pipeline and is
  // returned.
  std::function<absl::Status(const std::string& pass, const ir::IRModule& module)> after_pass;
};

// Runs the Relax passes on `module`. Errors are the first failing pass's (INVALID_ARGUMENT naming
// the function), prefixed with the pass name.
absl::StatusOr<ir::IRModule> RunRelaxPipeline(const ir::IRModule& module, const RelaxPipelineOptions& options = {});

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_RELAX_PIPELINE_H_
