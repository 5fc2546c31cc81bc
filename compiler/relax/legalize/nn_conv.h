// R.nn.conv1d, R.nn.conv2d and R.nn.conv2d_transpose legalized to PrimFuncs with the default CPU
// schedule (nn_conv.cc); for GPU targets to plain s_tir instead (conv_gpu.h).
#ifndef KILN_COMPILER_RELAX_LEGALIZE_NN_CONV_H_
#define KILN_COMPILER_RELAX_LEGALIZE_NN_CONV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/legalize/loops.h"

namespace kiln::relax::legalize {

// A convolution as TVM's relax.nn.conv{1,2}d[_transpose] attributes describe it. Layouts name the
// axes of each tensor: data and out use N, C and the spatial axes (H, W for 2-D; W for 1-D), the
// kernel O, I and the spatial axes, in any order ("NCHW", "NHWC", "OIHW", "HWIO", "IOHW", ...).
// Spatial attributes are per spatial axis; padding is (before..., after...) per axis, as TVM's
// (top, left, bottom, right).
struct ConvSpec {
  TensorSpec data, weight;
  std::string data_layout = "NCHW", kernel_layout = "OIHW", out_layout = "NCHW";
  std::vector<int64_t> strides, padding, dilation, output_padding;
  int64_t groups = 1;
  ir::DataType out_dtype;  // void: data's dtype
  bool transpose = false;  // conv_transpose: kernel I is the data's channels, O the output's / groups
};

// The PrimFunc takes (data, weight, out). Every layout, stride,
// padding, dilation and group count is computed exactly; the schedule is:
//   * the weight is packed once into blocks of 6 output channels ([G * ceil(O/G/6), I, KH, KW, 6],
//     zero-padded);
//   * per batch image, the input is copied into a zero-padded canonical [C, H + pads, W + pads]
//     buffer (vectorized along W when the data layout's last axis is W and there is no transpose
//     dilation);
//   * in parallel over (channel block, output row) tasks, ordered row-major when the packed weights
//     are no larger than the prepared input and block-major otherwise (so that each thread's
//     contiguous share of the tasks reads only its part of the larger operand), a 6 x 16 register
//     tile of output channels x output columns accumulates over (input channel, kh, kw) with fused
//     multiply-adds on 16-lane vectors along the output row (then an 8-lane tile, and for the last
//     1..7 columns one more 8-lane tile whose lanes past the row's end read the zero columns that
//     pad each row of the prepared input and are not stored), and is stored through the output
//     layout. The last block of a constant channel count that is not a multiple of 6 has a tile of
//     just its channels. When a tile's weights and input rows for all input channels of its group
//     would not fit in about 20 KB of L1, the channels are split into equal passes over the row's
//     tiles (e.g. 2 of 32 for 64 channels of 3x3), later passes adding into the output, so that the
//     weights are reused from L1 across the row.
// conv_transpose is the same convolution over the stride-dilated, re-padded input with the
// flipped, transposed kernel. Errors (INVALID_ARGUMENT): bad layouts, attribute lengths, channel
// counts that the groups do not divide, symbolic spatial dims where a constant is needed.
// Convolutions under 2^18 multiply-adds (constant shapes) run their loops on the calling thread.
absl::StatusOr<ir::PrimFunc> ConvKernel(const ConvSpec& spec);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_NN_CONV_H_
