// RunOnVM / RunAfterPass: the numeric oracle of the lowering-pass tests whose expected IR is a
// golden text. Those goldens are kiln's own printer output for the pass's result, checked by
// reading, so on their own they only detect change. These helpers build the pass's output module
// for the host, run it on the Relax VM (runtime/vm) and hand back the result, which the tests
// compare with values they compute directly.
//
// RunAfterPass runs only the pipeline steps after the pass under test, so nothing earlier in the
// pipeline sees (and may repair or mask) what the pass produced: e.g. LegalizeOps run again would
// turn a view the pass planned around into a copy. RunOnVM runs the whole pipeline
// (BuildExecutable), for fixtures that still hold high-level operators (R.add) or come from the
// passes before LegalizeOps (Normalize, LambdaLift): the passes leave what is already lowered as
// it is (relax_pipeline.h), except VMShapeLower, which does not take its own output.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_
#define KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "runtime/vm/value.h"

namespace kiln::relax::transform::testing {

// Builds `module` with BuildExecutable for "llvm" and invokes `func` with `args`.
absl::StatusOr<vm::Value> RunOnVM(const ir::IRModule& module, const std::vector<vm::Value>& args,
                                  const std::string& func = "main");

// `module` is the output of `pass`, one of the pipeline's lowering steps (RewriteDataflowReshape
// .. VMShapeLower): the steps after it run, then AttachGlobalSymbol, VMCodeGen and the kernel
// library for "llvm"; `func` is invoked with `args`.
absl::StatusOr<vm::Value> RunAfterPass(const std::string& pass, const ir::IRModule& module,
                                       const std::vector<vm::Value>& args, const std::string& func = "main");

// A float32 tensor of `shape` holding `values` (row-major).
vm::Value F32(const std::vector<int64_t>& shape, const std::vector<float>& values);

// A 0-d bool tensor (what `if c:` on an R.Tensor((), "bool") reads).
vm::Value Bool(bool value);

// The elements of a float32 tensor value (empty, with a gtest failure, for anything else).
std::vector<float> F32Values(const vm::Value& value);

}  // namespace kiln::relax::transform::testing

#endif  // KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_
