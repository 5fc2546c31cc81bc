// Internal to LegalizeOps: R.nn.conv1d, R.nn.conv2d and R.nn.conv2d_transpose for GPU targets
// (conv_gpu.cc). nn_conv.cc's default kernel is a hand-scheduled CPU loop nest (packed weights,
// parallel loops, vector lanes) that a GPU cannot run; for a module built for a GPU target
// (kGPUTargetAttr) the convolution is instead one s_tir reduction, which ScheduleDefaultGPU binds
// to threads (one output element per thread) and FuseOps may fuse with elementwise consumers.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_CONV_GPU_H_
#define KILN_COMPILER_RELAX_LEGALIZE_CONV_GPU_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/nn_conv.h"
#include "compiler/relax/legalize/table.h"

namespace kiln::relax::legalize {

// The convolution `call` with the attributes of `spec` (its layouts, strides, padding, dilation,
// output_padding, groups, transpose; spec.data and spec.weight are not used: the shapes come from
// the call's arguments and type, symbolic dims included) as
//   out[n, o, y, x] = sum over (c, ky, kx) of data[n, g * cg + c, iy, ix] * weight[...]
// with g = o / (output channels per group), cg the input channels per group, and (iy, ix) the
// input position that tap (ky, kx) of output (y, x) reads: y * stride + ky * dilation - pad, or
// for a transpose (y + pad - ky * dilation) / stride where that divides exactly; taps outside the
// input read zero (if_then_else, so padding costs no buffer). Errors (INVALID_ARGUMENT) as
// ConvKernel's: bad layouts, attribute lengths, groups that do not divide the channel counts.
absl::StatusOr<ir::Expr> LegalizeConvGPU(const ConvSpec& spec, const ir::relax::Call& call, LegalizeContext* ctx);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_CONV_GPU_H_
