// Pooling legalizations against numpy references (loops over the window, written here) on the
// interpreter and LLVM: strides, padding, dilation, ceil_mode, count_include_pad, NHWC, and
// adaptive pooling with uneven windows.
#include <string>

#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

// pool(x, k, s, d, pad_before, pad_after, out_hw, mode, count_pad) on NCHW numpy arrays.
constexpr char kNumpyPool[] = R"PY(
def pool(x, k, s, d, pb, pa, ohw, mode, count_pad):
    N, C, H, W = x.shape
    out = np.zeros((N, C) + tuple(ohw), x.dtype)
    for oh in range(ohw[0]):
        for ow in range(ohw[1]):
            vals, cnt = [], 0
            for kh in range(k[0]):
                for kw in range(k[1]):
                    h, w = oh * s[0] + kh * d[0] - pb[0], ow * s[1] + kw * d[1] - pb[1]
                    if 0 <= h < H and 0 <= w < W:
                        vals.append(x[:, :, h, w])
                        cnt += 1
                    elif count_pad and h < H + pa[0] and w < W + pa[1]:
                        cnt += 1
            out[:, :, oh, ow] = np.max(vals, axis=0) if mode == 'max' else np.sum(vals, axis=0) / cnt
    return out
def adaptive(x, ohw):
    N, C, H, W = x.shape
    out = np.zeros((N, C) + tuple(ohw), x.dtype)
    for oh in range(ohw[0]):
        for ow in range(ohw[1]):
            h0, h1 = oh * H // ohw[0], -(-(oh + 1) * H // ohw[0])
            w0, w1 = ow * W // ohw[1], -(-(ow + 1) * W // ohw[1])
            out[:, :, oh, ow] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out
)PY";

std::string Module(const std::string& in, const std::string& out, const std::string& call) {
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor(" + in +
         ", dtype=\"float32\")) -> R.Tensor(" + out + ", dtype=\"float32\"):\n        with R.dataflow():\n" +
         "            gv: R.Tensor(" + out + ", dtype=\"float32\") = " + call + "\n            R.output(gv)\n" +
         "        return gv\n";
}

std::string Check(const std::string& in, const std::vector<int64_t>& shape, const std::string& out,
                  const std::string& call, const std::string& numpy) {
  return testing::CheckAgainstNumpy(Module(in, out, call), {{shape}}, std::string(kNumpyPool) + numpy);
}

TEST(PoolTest, MaxPoolStridePadding) {
  EXPECT_EQ(Check("(1, 3, 9, 10)", {1, 3, 9, 10}, "(1, 3, 5, 5)",
                  "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
                  "out = pool(x, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (5, 5), 'max', False)"),
            "");
}

TEST(PoolTest, MaxPoolDilation) {
  EXPECT_EQ(Check("(1, 1, 9, 9)", {1, 1, 9, 9}, "(1, 1, 7, 7)",
                  "R.nn.max_pool2d(x, pool_size=[2, 2], dilation=[2, 2])",
                  "out = pool(x, (2, 2), (1, 1), (2, 2), (0, 0), (0, 0), (7, 7), 'max', False)"),
            "");
}

TEST(PoolTest, AvgPoolNHWCAsymmetricPaddingExcludesPad) {
  EXPECT_EQ(Check("(2, 7, 8, 3)", {2, 7, 8, 3}, "(2, 7, 4, 3)",
                  "R.nn.avg_pool2d(x, pool_size=[2, 3], strides=[1, 2], padding=[0, 1, 1, 0], layout=\"NHWC\")",
                  "out = pool(x.transpose(0, 3, 1, 2), (2, 3), (1, 2), (1, 1), (0, 1), (1, 0), (7, 4), 'avg', "
                  "False).transpose(0, 2, 3, 1)"),
            "");
}

TEST(PoolTest, AvgPoolCeilModeCountsPad) {
  EXPECT_EQ(Check("(1, 2, 6, 6)", {1, 2, 6, 6}, "(1, 2, 4, 4)",
                  "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=True, "
                  "count_include_pad=True)",
                  "out = pool(x, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (4, 4), 'avg', True)"),
            "");
}

TEST(PoolTest, AdaptiveAvgPoolUnevenWindows) {
  EXPECT_EQ(Check("(1, 3, 7, 10)", {1, 3, 7, 10}, "(1, 3, 3, 4)", "R.nn.adaptive_avg_pool2d(x, output_size=[3, 4])",
                  "out = adaptive(x, (3, 4))"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
