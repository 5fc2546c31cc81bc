// The nn family against numpy: activations, softmax/log_softmax on several axes and a symbolic
// dim, layer/rms/group/batch norm (inference and training), dropout, pad modes and
// image.resize2d (nearest and linear, NCHW and NHWC).
#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::InputSpec;
using testing::Program;

std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")";
}

struct Case {
  std::string call, numpy;
};

TEST(NNTest, Activations) {
  std::vector<Case> cases = {
      {"R.nn.relu(x)", "np.maximum(x, 0)"},
      {"R.nn.gelu(x)", "import math\nout = (0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))).astype('float32')"},
      {"R.nn.gelu_tanh(x)", "0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))"},
      {"R.nn.silu(x)", "x / (1 + np.exp(-x))"},
      {"R.nn.selu(x)", "1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))"},
      {"R.nn.leakyrelu(x, alpha=0.2)", "np.where(x > 0, x, 0.2 * x)"},
      {"R.nn.softplus(x, beta=2.0, threshold=3.0)", "np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.call);
    std::string code = c.numpy.find("out =") != std::string::npos ? c.numpy : "out = " + c.numpy;
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 6)"), T("(4, 6)"), {"gv: " + T("(4, 6)") + " = " + c.call}),
                                {{{4, 6}}}, code, 1e-5, 1e-5),
              "");
  }
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 3, 4)") + ", a: " + T("(3,)"), T("(2, 3, 4)"),
                                      {"gv: " + T("(2, 3, 4)") + " = R.nn.prelu(x, a, axis=1)"}),
                              {{{2, 3, 4}}, {{3}}}, "out = np.where(x > 0, x, x * a[None, :, None])"),
            "");
}

TEST(NNTest, Softmax) {
  const char* softmax = "e = np.exp(x - x.max(axis=A, keepdims=True))\nout = e / e.sum(axis=A, keepdims=True)";
  for (const char* axis : {"0", "1", "-1"}) {
    SCOPED_TRACE(axis);
    std::string code = softmax;
    for (size_t p; (p = code.find("axis=A")) != std::string::npos;) code.replace(p, 6, std::string("axis=") + axis);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4, 5)"), T("(3, 4, 5)"),
                                        {"gv: " + T("(3, 4, 5)") + " = R.nn.softmax(x, axis=" + axis + ")"}),
                                {{{3, 4, 5}}}, code, 1e-5, 1e-6),
              "");
  }
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(\"n\", 8)"), T("(n, 8)"), {"gv: " + T("(n, 8)") + " = R.nn.log_softmax(x, axis=-1)"}),
                              {{{5, 8}}},
                              "m = x.max(axis=-1, keepdims=True)\nout = x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))",
                              1e-5, 1e-5),
            "");
}

TEST(NNTest, Norms) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 3, 4)") + ", g: " + T("(3, 4)") + ", b: " + T("(3, 4)"), T("(2, 3, 4)"),
                                      {"gv: " + T("(2, 3, 4)") + " = R.nn.layer_norm(x, g, b, axes=[1, 2], epsilon=1e-05, center=True, scale=True)"}),
                              {{{2, 3, 4}}, {{3, 4}}, {{3, 4}}},
                              "m = x.mean(axis=(1, 2), keepdims=True)\nv = x.var(axis=(1, 2), keepdims=True)\n"
                              "out = (x - m) / np.sqrt(v + 1e-5) * g + b",
                              1e-4, 1e-5),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 8)") + ", w: " + T("(8,)"), T("(3, 8)"),
                                      {"gv: " + T("(3, 8)") + " = R.nn.rms_norm(x, w, axes=[-1], epsilon=1e-05)"}),
                              {{{3, 8}}, {{8}}}, "out = x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5) * w", 1e-4,
                              1e-5),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 6, 5)") + ", g: " + T("(6,)") + ", b: " + T("(6,)"), T("(2, 6, 5)"),
                                      {"gv: " + T("(2, 6, 5)") + " = R.nn.group_norm(x, g, b, num_groups=3, channel_axis=1, axes=[2], epsilon=1e-05, center=True, scale=True)"}),
                              {{{2, 6, 5}}, {{6}}, {{6}}},
                              "y = x.reshape(2, 3, 2, 5)\nm = y.mean(axis=(2, 3), keepdims=True)\n"
                              "v = y.var(axis=(2, 3), keepdims=True)\n"
                              "out = ((y - m) / np.sqrt(v + 1e-5)).reshape(2, 6, 5) * g[None, :, None] + b[None, :, None]",
                              1e-4, 1e-5),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 3, 4)") + ", g: " + T("(3,)") + ", b: " + T("(3,)"), T("(2, 3, 4)"),
                                      {"gv: " + T("(2, 3, 4)") + " = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2], epsilon=1e-05, center=True, scale=True)"}),
                              {{{2, 3, 4}}, {{3}}, {{3}}},
                              "m = x.mean(axis=2, keepdims=True)\nv = x.var(axis=2, keepdims=True)\n"
                              "out = (x - m) / np.sqrt(v + 1e-5) * g[None, :, None] + b[None, :, None]",
                              1e-4, 1e-5),
            "");
  std::string params = "x: " + T("(4, 3, 2)") + ", g: " + T("(3,)") + ", b: " + T("(3,)") + ", mm: " + T("(3,)") +
                       ", mv: " + T("(3,)");
  std::vector<InputSpec> specs = {{{4, 3, 2}}, {{3}}, {{3}}, {{3}}, {{3}}};
  std::string ret = "R.Tuple(" + T("(4, 3, 2)") + ", " + T("(3,)") + ", " + T("(3,)") + ")";
  EXPECT_EQ(CheckAgainstNumpy(Program(params, ret,
                                      {"gv: " + ret + " = R.nn.batch_norm(x, g, b, mm, mv, axis=1, epsilon=1e-05, center=True, scale=True, momentum=0.1, training=False)"}),
                              specs,
                              "mv = np.abs(mv)\n"
                              "out = ((x - mm[:, None]) / np.sqrt(mv[:, None] + 1e-5) * g[:, None] + b[:, None], mm, mv)",
                              1e-4, 1e-5),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program(params, ret,
                                      {"gv: " + ret + " = R.nn.batch_norm(x, g, b, mm, mv, axis=1, epsilon=1e-05, center=True, scale=True, momentum=0.1, training=True)"}),
                              specs,
                              "m = x.mean(axis=(0, 2))\nv = x.var(axis=(0, 2))\n"
                              "out = ((x - m[:, None]) / np.sqrt(v[:, None] + 1e-5) * g[:, None] + b[:, None],"
                              " 0.9 * mm + 0.1 * m, 0.9 * mv + 0.1 * v)",
                              1e-4, 1e-5),
            "");
}

TEST(NNTest, DropoutAndPad) {
  std::string ret = "R.Tuple(" + T("(3, 4)") + ", " + T("(3, 4)") + ")";
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4)"), ret, {"gv: " + ret + " = R.nn.dropout(x, rate=0.5)"}),
                              {{{3, 4}}}, "out = (x, np.ones_like(x))"),
            "");
  for (const char* mode : {"constant", "edge", "reflect"}) {
    SCOPED_TRACE(mode);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4)"), T("(6, 5)"),
                                        {std::string("gv: ") + T("(6, 5)") + " = R.nn.pad(x, pad_width=[1, 2, 0, 1], pad_value=1.5, pad_mode=\"" + mode + "\")"}),
                                {{{3, 4}}},
                                std::string("out = np.pad(x, ((1, 2), (0, 1)), mode='") + mode + "'" +
                                    (std::string(mode) == "constant" ? ", constant_values=1.5" : "") + ")"),
              "");
  }
}

TEST(NNTest, PixelShuffleAndCrossEntropy) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1, 8, 2, 3)"), T("(1, 2, 4, 6)"),
                                      {"gv: " + T("(1, 2, 4, 6)") + " = R.nn.pixel_shuffle(x, upscale_factor=2)"}),
                              {{{1, 8, 2, 3}}},
                              "out = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("p: " + T("(3, 4)") + ", l: " + T("(3, 4)"), T("()"),
                                      {"gv: " + T("()") + " = R.nn.cross_entropy_with_logits(p, l)"}),
                              {{{3, 4}}, {{3, 4}}}, "out = np.float32(-(p * l).sum() / 3)", 1e-5, 1e-5),
            "");
}

TEST(NNTest, Resize2D) {
  // Nearest, asymmetric: the source pixel is floor(o * in / out).
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1, 2, 3, 4)"), T("(1, 2, 6, 8)"),
                                      {"gv: " + T("(1, 2, 6, 8)") + " = R.image.resize2d(x, R.shape([6, 8]), layout=\"NCHW\", method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")"}),
                              {{{1, 2, 3, 4}}},
                              "out = x[:, :, (np.arange(6) * 3 // 6)][:, :, :, (np.arange(8) * 4 // 8)]"),
            "");
  // Linear, half_pixel, NHWC: bilinear weights with clamped neighbours.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1, 4, 5, 2)"), T("(1, 7, 3, 2)"),
                                      {"gv: " + T("(1, 7, 3, 2)") + " = R.image.resize2d(x, R.shape([7, 3]), layout=\"NHWC\", method=\"linear\", coordinate_transformation_mode=\"half_pixel\")"}),
                              {{{1, 4, 5, 2}}},
                              "def coords(out, inn):\n"
                              "    c = (np.arange(out) + 0.5) * inn / out - 0.5\n"
                              "    f = np.floor(c)\n"
                              "    i0 = np.clip(f, 0, inn - 1).astype(int)\n"
                              "    i1 = np.clip(f + 1, 0, inn - 1).astype(int)\n"
                              "    return i0, i1, (c - f).astype('float32')\n"
                              "y0, y1, ly = coords(7, 4)\nx0, x1, lx = coords(3, 5)\n"
                              "g = lambda yy, xx: x[:, yy][:, :, xx]\n"
                              "lx = lx[None, None, :, None]\nly = ly[None, :, None, None]\n"
                              "top = g(y0, x0) * (1 - lx) + g(y0, x1) * lx\n"
                              "bot = g(y1, x0) * (1 - lx) + g(y1, x1) * lx\n"
                              "out = top * (1 - ly) + bot * ly",
                              1e-5, 1e-5),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
