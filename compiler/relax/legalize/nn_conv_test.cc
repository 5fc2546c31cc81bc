// ConvKernel against direct reference convolutions computed here, on the reference interpreter
// and on LLVM: odd sizes (every register-tile tail), strides, asymmetric padding, dilation, groups
// (including depthwise and channel counts that are not a multiple of the 6-channel block), NHWC /
// HWIO layouts, conv1d, conv2d_transpose, and symbolic spatial dims.
#include "compiler/relax/legalize/nn_conv.h"

#include <map>

#include "compiler/relax/legalize/kernel_testing.h"
#include "compiler/script/printer/printer.h"
#include "gtest/gtest.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::legalize {
namespace {

using ir::DataType;
using ir::PrimExpr;
using kernel_testing::F;
using kernel_testing::RandomF32;

std::vector<PrimExpr> Dims(const std::vector<int64_t>& s) {
  std::vector<PrimExpr> d;
  for (int64_t x : s) d.push_back(Int64(x));
  return d;
}

// A 4-D array in canonical order (N, C, H, W) or (O, I, H, W).
struct Array4 {
  int64_t d[4];
  std::vector<double> v;
  double& at(int64_t a, int64_t b, int64_t c, int64_t e) { return v[((a * d[1] + b) * d[2] + c) * d[3] + e]; }
};

// `t` (whose axes are named by `layout`) as a canonical array with axes `canon` (missing -> 1).
Array4 ToCanonical(const runtime::Tensor& t, const std::string& layout, const std::string& canon) {
  Array4 r;
  std::vector<int64_t> stride(layout.size());
  int64_t s = 1;
  for (int i = static_cast<int>(layout.size()) - 1; i >= 0; --i) {
    stride[i] = s;
    s *= t.shape()[i];
  }
  int64_t st[4];
  for (int i = 0; i < 4; ++i) {
    size_t p = layout.find(canon[i]);
    r.d[i] = p == std::string::npos ? 1 : t.shape()[p];
    st[i] = p == std::string::npos ? 0 : stride[p];
  }
  r.v.resize(r.d[0] * r.d[1] * r.d[2] * r.d[3]);
  for (int64_t a = 0; a < r.d[0]; ++a)
    for (int64_t b = 0; b < r.d[1]; ++b)
      for (int64_t c = 0; c < r.d[2]; ++c)
        for (int64_t e = 0; e < r.d[3]; ++e) r.at(a, b, c, e) = F(t)[a * st[0] + b * st[1] + c * st[2] + e * st[3]];
  return r;
}

// The canonical NCHW result laid out as `layout` (flat, for comparison).
std::vector<double> FromCanonical(Array4& a, const std::string& layout, std::vector<int64_t>* shape) {
  const std::string canon = "NCHW";
  shape->clear();
  for (char c : layout) shape->push_back(a.d[canon.find(c)]);
  std::vector<double> out(a.v.size());
  int64_t i = 0;
  std::vector<int64_t> idx(layout.size(), 0);
  for (; i < static_cast<int64_t>(out.size()); ++i) {
    int64_t at[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < layout.size(); ++k) at[canon.find(layout[k])] = idx[k];
    out[i] = a.at(at[0], at[1], at[2], at[3]);
    for (int k = static_cast<int>(layout.size()) - 1; k >= 0; --k) {
      if (++idx[k] < (*shape)[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

struct Case {
  std::vector<int64_t> data_shape, weight_shape;
  std::string data_layout = "NCHW", kernel_layout = "OIHW", out_layout = "NCHW";
  int64_t sh = 1, sw = 1, pt = 0, pl = 0, pb = 0, pr = 0, dh = 1, dw = 1, groups = 1, oph = 0, opw = 0;
  bool transpose = false;
};

std::vector<double> Reference(const Case& k, const runtime::Tensor& data, const runtime::Tensor& weight,
                              std::vector<int64_t>* out_shape) {
  Array4 x = ToCanonical(data, k.data_layout, "NCHW");
  Array4 w = ToCanonical(weight, k.kernel_layout, "OIHW");
  int64_t n = x.d[0], c = x.d[1], h = x.d[2], wd = x.d[3], kh = w.d[2], kw = w.d[3], g = k.groups;
  Array4 out;
  if (!k.transpose) {
    int64_t o = w.d[0], cg = c / g, og = o / g;
    int64_t oh = (h + k.pt + k.pb - k.dh * (kh - 1) - 1) / k.sh + 1;
    int64_t ow = (wd + k.pl + k.pr - k.dw * (kw - 1) - 1) / k.sw + 1;
    out = {{n, o, oh, ow}, std::vector<double>(n * o * oh * ow)};
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oc = 0; oc < o; ++oc)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t xx = 0; xx < ow; ++xx) {
            double s = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx) {
                  int64_t iy = y * k.sh + ky * k.dh - k.pt, ix = xx * k.sw + kx * k.dw - k.pl;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                  s += x.at(b, oc / og * cg + ci, iy, ix) * w.at(oc, ci, ky, kx);
                }
            out.at(b, oc, y, xx) = s;
          }
  } else {
    // The weight's O axis holds output channels per group, its I axis the data's channels.
    int64_t og = w.d[0], cg = c / g, o = og * g;
    int64_t oh = (h - 1) * k.sh - k.pt - k.pb + k.dh * (kh - 1) + k.oph + 1;
    int64_t ow = (wd - 1) * k.sw - k.pl - k.pr + k.dw * (kw - 1) + k.opw + 1;
    out = {{n, o, oh, ow}, std::vector<double>(n * o * oh * ow, 0.0)};
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t iy = 0; iy < h; ++iy)
          for (int64_t ix = 0; ix < wd; ++ix)
            for (int64_t oo = 0; oo < og; ++oo)
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx) {
                  int64_t y = iy * k.sh + ky * k.dh - k.pt, xx = ix * k.sw + kx * k.dw - k.pl;
                  if (y < 0 || y >= oh || xx < 0 || xx >= ow) continue;
                  out.at(b, ci / cg * og + oo, y, xx) += x.at(b, ci, iy, ix) * w.at(oo, ci, ky, kx);
                }
  }
  return FromCanonical(out, k.out_layout, out_shape);
}

ConvSpec SpecOf(const Case& k, std::vector<PrimExpr> data_dims, std::vector<PrimExpr> weight_dims) {
  bool two_d = k.data_layout.find('H') != std::string::npos;
  ConvSpec s;
  s.data = {std::move(data_dims), DataType::Float(32)};
  s.weight = {std::move(weight_dims), DataType::Float(32)};
  s.data_layout = k.data_layout;
  s.kernel_layout = k.kernel_layout;
  s.out_layout = k.out_layout;
  if (two_d) {
    s.strides = {k.sh, k.sw};
    s.padding = {k.pt, k.pl, k.pb, k.pr};
    s.dilation = {k.dh, k.dw};
    s.output_padding = {k.oph, k.opw};
  } else {
    s.strides = {k.sw};
    s.padding = {k.pl, k.pr};
    s.dilation = {k.dw};
    s.output_padding = {k.opw};
  }
  s.groups = k.groups;
  s.transpose = k.transpose;
  return s;
}

void CheckFunc(const ir::PrimFunc& f, const Case& k) {
  runtime::Tensor data = RandomF32(k.data_shape, 1), weight = RandomF32(k.weight_shape, 2);
  std::vector<int64_t> out_shape;
  std::vector<double> want = Reference(k, data, weight, &out_shape);
  runtime::Tensor out = RandomF32(out_shape, 3);  // garbage the kernel must overwrite
  for (auto target : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    std::vector<runtime::Tensor> r = kernel_testing::Run(f, target, {data, weight, out});
    kernel_testing::ExpectNear(r[2], want, 1e-5, driver::RunTargetName(target));
  }
}

void Check(const Case& k) {
  absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape)));
  ASSERT_TRUE(f.ok()) << f.status();
  CheckFunc(*f, k);
}

TEST(ConvKernel, OddSizesWithPadding) {
  Case k;
  k.data_shape = {1, 3, 8, 9};
  k.weight_shape = {5, 3, 3, 3};
  k.pt = k.pl = k.pb = k.pr = 1;
  Check(k);
}

// 49 input channels with a 3x3 kernel take 2 passes over each register tile (25 and 24
// channels), the second adding into the output; 7 output channels leave a partial block.
TEST(ConvKernel, InputChannelPasses) {
  Case k;
  k.data_shape = {1, 49, 1, 9};
  k.weight_shape = {7, 49, 3, 3};
  k.pt = k.pl = k.pb = k.pr = 1;
  Check(k);
}

TEST(ConvKernel, WideRowStrideDilationAsymmetricPadding) {
  Case k;
  k.data_shape = {2, 2, 9, 45};
  k.weight_shape = {4, 2, 3, 2};
  k.sh = 2;
  k.sw = 1;
  k.dh = 2;
  k.dw = 3;
  k.pt = 1, k.pl = 0, k.pb = 2, k.pr = 1;
  Check(k);
}

TEST(ConvKernel, StrideTwoColumns) {
  Case k;
  k.data_shape = {1, 2, 5, 40};
  k.weight_shape = {3, 2, 1, 3};
  k.sw = 2;
  k.pl = k.pr = 1;
  Check(k);
}

TEST(ConvKernel, GroupsWithPartialChannelBlocks) {
  Case k;
  k.data_shape = {1, 4, 6, 7};
  k.weight_shape = {6, 2, 3, 3};
  k.groups = 2;
  k.pt = k.pl = k.pb = k.pr = 1;
  Check(k);
}

TEST(ConvKernel, Depthwise) {
  Case k;
  k.data_shape = {1, 4, 6, 18};
  k.weight_shape = {8, 1, 3, 3};
  k.groups = 4;
  k.pt = k.pl = k.pb = k.pr = 1;
  Check(k);
}

TEST(ConvKernel, NHWCWithHWIOWeights) {
  Case k;
  k.data_shape = {2, 6, 7, 3};  // N H W C
  k.weight_shape = {3, 3, 3, 5};  // H W I O
  k.data_layout = "NHWC";
  k.kernel_layout = "HWIO";
  k.out_layout = "NHWC";
  k.pt = k.pl = k.pb = k.pr = 1;
  Check(k);
}

TEST(ConvKernel, Conv1d) {
  Case k;
  k.data_shape = {2, 3, 29};
  k.weight_shape = {5, 3, 4};
  k.data_layout = "NCW";
  k.kernel_layout = "OIW";
  k.out_layout = "NCW";
  k.sw = 2;
  k.pl = 1;
  k.pr = 2;
  Check(k);
}

TEST(ConvKernel, Conv2dTranspose) {
  Case k;
  k.data_shape = {1, 3, 5, 6};
  k.weight_shape = {3, 4, 3, 3};  // I O H W
  k.kernel_layout = "IOHW";
  k.transpose = true;
  k.sh = k.sw = 2;
  k.pt = k.pl = k.pb = k.pr = 1;
  k.oph = k.opw = 1;
  Check(k);
}

TEST(ConvKernel, Conv2dTransposeGroupsDilation) {
  Case k;
  k.data_shape = {1, 4, 4, 5};
  k.weight_shape = {4, 3, 2, 3};  // I O/g H W
  k.kernel_layout = "IOHW";
  k.transpose = true;
  k.groups = 2;
  k.dh = 2;
  k.pl = 1;
  k.sw = 3;
  Check(k);
}

TEST(ConvKernel, SymbolicSpatialDims) {
  Case k;
  k.data_shape = {1, 2, 7, 21};
  k.weight_shape = {4, 2, 3, 3};
  k.pt = k.pl = k.pb = k.pr = 1;
  ir::Var h("h", DataType::Int(64)), w("w", DataType::Int(64));
  absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, {Int64(1), Int64(2), h, w}, Dims(k.weight_shape)));
  ASSERT_TRUE(f.ok()) << f.status();
  CheckFunc(*f, k);
  k.data_shape = {1, 2, 3, 4};
  CheckFunc(*f, k);
}

// Under 2^18 multiply-adds the loops stay on the calling thread; from there on they are parallel.
TEST(ConvKernel, SmallConvolutionsAreSerial) {
  auto printed = [](const std::vector<int64_t>& data, const std::vector<int64_t>& weight) {
    Case k;
    k.data_shape = data;
    k.weight_shape = weight;
    absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, Dims(data), Dims(weight)));
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? script::printer::Print(*f) : "";
  };
  std::string small = printed({1, 3, 8, 9}, {5, 3, 3, 3}), big = printed({1, 16, 32, 32}, {32, 16, 3, 3});
  EXPECT_EQ(small.find("T.parallel"), std::string::npos) << small;
  EXPECT_NE(big.find("T.parallel"), std::string::npos) << big;
}

// The weights are packed one output channel at a time (each channel's weights read in order),
// and the zero-padded channels of a partial last block are told apart per channel, not per value:
// no test at all when the channel count is a multiple of the block.
TEST(ConvKernel, WeightsArePackedOneOutputChannelAtATime) {
  auto packed = [](int64_t out_chans) {
    Case k;
    k.data_shape = {1, 4, 6, 7};
    k.weight_shape = {out_chans, 4, 3, 3};
    absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape)));
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok()) return std::string();
    CheckFunc(*f, k);
    return script::printer::Print(*f);
  };
  std::string partial = packed(14), whole = packed(12);
  // (a convolution this small is serial, so the printer folds the nested loops into grids)
  EXPECT_NE(partial.find("for gb, i in T.grid(T.int64(3), T.int64(6)):\n        if gb * T.int64(6) + i < T.int64(14):\n"
                         "            for c, y, x in T.grid("),
            std::string::npos)
      << partial;
  EXPECT_NE(whole.find("for gb, i, c, y, x in T.grid("), std::string::npos) << whole;
  EXPECT_EQ(whole.find("T.if_then_else"), std::string::npos) << whole;
}

// The (channel block, output row) tasks run row-major when the packed weights are no larger than
// the prepared input (each thread then reads only its rows of the input), block-major otherwise
// (each thread reads only its blocks' weights); both with several blocks, a partial last block,
// groups and several rows, computed exactly.
TEST(ConvKernel, TaskOrderFollowsTheLargerOperand) {
  auto check = [](const Case& k, const std::string& block_of_t, const std::string& row_of_t) {
    absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape)));
    ASSERT_TRUE(f.ok()) << f.status();
    std::string printed = script::printer::Print(*f);
    EXPECT_NE(printed.find("weight_packed[" + block_of_t), std::string::npos) << printed;
    // The prepared input is row-major (data_pad[y, c, x]): its row index comes first.
    EXPECT_NE(printed.find("data_pad[" + row_of_t + " + ky, "), std::string::npos) << printed;
    CheckFunc(*f, k);
  };
  Case rows;  // weights 4 blocks x 4 x 3 x 3 x 6 = 864 elements, input 8 x 11 x 21 = 1848
  rows.data_shape = {1, 8, 9, 12};  // an odd row count: one row per task (no row pairs)
  rows.weight_shape = {14, 4, 3, 3};
  rows.groups = 2;
  rows.pt = rows.pl = rows.pb = rows.pr = 1;
  check(rows, "t % T.int64(4)", "t // T.int64(4)");
  Case blocks;  // weights 3 blocks x 16 x 3 x 3 x 6 = 2592 elements, input 16 x 6 x 14 = 1344
  blocks.data_shape = {1, 16, 4, 5};
  blocks.weight_shape = {14, 16, 3, 3};
  blocks.pt = blocks.pl = blocks.pb = blocks.pr = 1;
  check(blocks, "t // T.int64(4)", "t % T.int64(4)");
}

// A row width that leaves one 8-lane tile (16 + 8 + 3 columns here) makes each task two output
// rows whose 8-lane tiles are computed together; an odd row count keeps one row per task. Both
// with two channel passes, a partial channel block and the 3 last columns, and with strides.
TEST(ConvKernel, RowPairsShareTheEightLaneTile) {
  auto check = [](const Case& k, bool paired) {
    absl::StatusOr<ir::PrimFunc> f = ConvKernel(SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape)));
    ASSERT_TRUE(f.ok()) << f.status();
    std::string printed = script::printer::Print(*f);
    EXPECT_EQ(printed.find("for r in T.unroll(T.int64(2))") != std::string::npos, paired) << printed;
    CheckFunc(*f, k);
  };
  Case even;  // 6 output rows of 27 columns
  even.data_shape = {1, 49, 6, 27};
  even.weight_shape = {13, 49, 3, 3};
  even.pt = even.pl = even.pb = even.pr = 1;
  check(even, true);
  Case odd = even;  // 5 rows
  odd.data_shape = {1, 49, 5, 27};
  check(odd, false);
  Case strided;  // 6 x 24 outputs, stride 2 both ways
  strided.data_shape = {1, 3, 12, 48};
  strided.weight_shape = {8, 3, 3, 3};
  strided.sh = strided.sw = 2;
  strided.pt = strided.pl = strided.pb = strided.pr = 1;
  check(strided, true);
}

TEST(ConvKernel, Errors) {
  Case k;
  k.data_shape = {1, 3, 8, 8};
  k.weight_shape = {4, 3, 3, 3};
  ConvSpec s = SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape));
  s.data_layout = "NCHH";
  EXPECT_TRUE(IsInvalidArgument(ConvKernel(s), "conv: data layout \"NCHH\" must name each of NCHW once"));
  s = SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape));
  s.groups = 2;  // 3 channels
  EXPECT_TRUE(IsInvalidArgument(ConvKernel(s), "conv: groups (2) must divide the channel counts"));
  s = SpecOf(k, Dims(k.data_shape), Dims({4, 3, 9, 9}));
  EXPECT_TRUE(IsInvalidArgument(ConvKernel(s),  // kernel larger than the input
                                "conv: the kernel does not fit in the padded input"));
  s = SpecOf(k, Dims(k.data_shape), Dims(k.weight_shape));
  s.strides = {1, 2, 3};
  EXPECT_TRUE(IsInvalidArgument(ConvKernel(s), "conv: strides needs 2 values, got 3"));
}

}  // namespace
}  // namespace kiln::relax::legalize
