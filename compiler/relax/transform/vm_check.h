// RunOnVM: the numeric oracle of the lowering-pass tests whose expected IR is a golden text. Those
// goldens are kiln's own printer output for the pass's result, checked by reading, so on their own
// they only detect change. These helpers build the pass's output module for the host, run it on the
// Relax VM (runtime/vm) and hand back the result, which the tests compare with values they compute
// directly. A module not yet in the VM-lowered form goes through the Relax pipeline
// (BuildExecutable: every pass leaves what is already lowered as it is, relax_pipeline.h); one in
// that form (VMShapeLower's output) goes straight to VMCodeGen.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_
#define KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "runtime/vm/value.h"

namespace kiln::relax::transform::testing {

// Builds `module` for "llvm" as the header comment says and invokes `func` with `args`.
absl::StatusOr<vm::Value> RunOnVM(const ir::IRModule& module, const std::vector<vm::Value>& args,
                                  const std::string& func = "main");

// A float32 tensor of `shape` holding `values` (row-major).
vm::Value F32(const std::vector<int64_t>& shape, const std::vector<float>& values);

// A 0-d bool tensor (what `if c:` on an R.Tensor((), "bool") reads).
vm::Value Bool(bool value);

// The elements of a float32 tensor value (empty, with a gtest failure, for anything else).
std::vector<float> F32Values(const vm::Value& value);

}  // namespace kiln::relax::transform::testing

#endif  // KILN_COMPILER_RELAX_TRANSFORM_VM_CHECK_H_
