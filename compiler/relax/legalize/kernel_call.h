// Internal to LegalizeOps: how the hand-scheduled kernels (linalg.cc, nn_conv.cc, ...), which
// build their PrimFunc from shapes rather than with FuncBuilder's stages, become call_tir calls.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_KERNEL_CALL_H_
#define KILN_COMPILER_RELAX_LEGALIZE_KERNEL_CALL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/loops.h"
#include "compiler/relax/legalize/table.h"

namespace kiln::relax::legalize {

// The shapes and dtypes of the call's tensor arguments `args` in a fresh function's
// variables (what `kernel` must use), then the call_tir of the kernel on those arguments. Dims must
// be constants or plain symbolic vars (a buffer shape binds those; an expression would need a
// scalar parameter of its own).
absl::StatusOr<std::vector<TensorSpec>> KernelInputs(const ir::relax::Call& call, const std::vector<int>& args);
absl::StatusOr<ir::Expr> EmitKernel(const std::string& name, const absl::StatusOr<ir::PrimFunc>& kernel,
                                    const ir::relax::Call& call, const std::vector<int>& args,
                                    LegalizeContext* ctx);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_KERNEL_CALL_H_
