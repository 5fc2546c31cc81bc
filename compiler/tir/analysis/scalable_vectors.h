// Where a PrimFunc uses scalable vectors (vscale * k lanes: T.vscale(), float32xvscalex4, a Ramp or
// Broadcast of T.vscale() * k lanes). kiln reads, prints and round-trips them as TVMScript, but no
// stage after the parser executes or compiles them: the interpreter and each backend call
// RejectScalableVectors first, so that such a program fails with a message naming the construct
// and its source position instead of being mistaken for a fixed vector (a scalable vector's lanes()
// is negative, see ir::DataType).
#ifndef KILN_COMPILER_TIR_ANALYSIS_SCALABLE_VECTORS_H_
#define KILN_COMPILER_TIR_ANALYSIS_SCALABLE_VECTORS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/module.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

// OK when `func` uses no scalable vector; otherwise UNIMPLEMENTED: "<stage> does not support
// scalable vectors: T.Ramp(..., T.vscale() * 4) (int32xvscalex4) in function 'main' at 7:28".
// `name` names the function in the message.
absl::Status RejectScalableVectors(const ir::PrimFunc& func, const std::string& name, const std::string& stage);

// The same over every PrimFunc of `module`, or over device kernels (named by global_symbol).
absl::Status RejectScalableVectors(const ir::IRModule& module, const std::string& stage);
absl::Status RejectScalableVectors(const std::vector<ir::PrimFunc>& kernels, const std::string& stage);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_SCALABLE_VECTORS_H_
