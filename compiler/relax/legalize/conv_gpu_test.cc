// The GPU legalization of the convolutions (conv_gpu.h) against numpy references written here:
// strides, asymmetric padding, dilation, groups (depthwise too), NHWC / HWIO layouts, conv1d,
// conv2d_transpose with output_padding, and a symbolic spatial dim. Each program is legalized for
// a GPU target and run unscheduled on the interpreter and LLVM, then with ScheduleDefaultGPU on
// opencl (PoCL) and vulkan (lavapipe), where most cases take the tiled implicit-GEMM schedule; a
// device that is missing is skipped with the reason.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/schedule_gpu.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

// conv(x, w, stride, pad (t, l, b, r), dilation, groups) on NCHW / OIHW arrays; conv_t the
// transpose with an IOHW weight and output_padding. Direct loops, independent of the kernel's
// index arithmetic.
constexpr char kNumpyConv[] = R"PY(
def conv(x, w, s, p, d, g):
    N, C, H, W = x.shape
    O, I, KH, KW = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    OH = (H + p[0] + p[2] - d[0] * (KH - 1) - 1) // s[0] + 1
    OW = (W + p[1] + p[3] - d[1] * (KW - 1) - 1) // s[1] + 1
    out = np.zeros((N, O, OH, OW), np.float64)
    og = O // g
    for o in range(O):
        c0 = (o // og) * I
        for ky in range(KH):
            for kx in range(KW):
                patch = xp[:, c0:c0 + I, ky * d[0]:ky * d[0] + s[0] * (OH - 1) + 1:s[0],
                           kx * d[1]:kx * d[1] + s[1] * (OW - 1) + 1:s[1]]
                out[:, o] += np.einsum('nchw,c->nhw', patch, w[o, :, ky, kx])
    return out.astype(x.dtype)
def conv_t(x, w, s, p, d, g, op):
    N, C, H, W = x.shape
    _, OG, KH, KW = w.shape
    OH = (H - 1) * s[0] - p[0] - p[2] + d[0] * (KH - 1) + 1 + op[0]
    OW = (W - 1) * s[1] - p[1] - p[3] + d[1] * (KW - 1) + 1 + op[1]
    full = np.zeros((N, OG * g, p[0] + OH + (H - 1) * s[0] + d[0] * KH, p[1] + OW + (W - 1) * s[1] + d[1] * KW))
    cg = C // g
    for c in range(C):
        for o in range(OG):
            for ky in range(KH):
                for kx in range(KW):
                    full[:, (c // cg) * OG + o, ky * d[0]:ky * d[0] + (H - 1) * s[0] + 1:s[0],
                         kx * d[1]:kx * d[1] + (W - 1) * s[1] + 1:s[1]] += x[:, c] * w[c, o, ky, kx]
    return full[:, :, p[0]:p[0] + OH, p[1]:p[1] + OW].astype(x.dtype)
)PY";

struct Case {
  std::string x_type, w_type, out_type, call;
  std::vector<testing::InputSpec> inputs;  // x, w
  std::string numpy;                       // binds out from x and w
};

// The Relax program of `c`, marked as built for a GPU target.
std::string GPUProgram(const Case& c) {
  std::string p = testing::Program(absl::StrCat("x: R.Tensor(", c.x_type, ", \"float32\"), w: R.Tensor(", c.w_type,
                                                ", \"float32\")"),
                                   absl::StrCat("R.Tensor(", c.out_type, ", \"float32\")"),
                                   // The body names the signature's symbolic dims as variables: a string
                                   // shape is only allowed in the signature (TVM's rule).
                                   {absl::StrCat("gv: R.Tensor(", absl::StrReplaceAll(c.out_type, {{"\"", ""}}),
                                                 ", \"float32\") = ", c.call)});
  const std::string head = "class Module:\n";
  return p.insert(p.find(head) + head.size(), absl::StrCat("    I.module_attrs({\"", kGPUTargetAttr, "\": True})\n"));
}

// Legalized, scheduled for the GPU and run on `target` against numpy: "" on success, "skip: ..."
// when the device is missing, else what went wrong.
std::string CheckOnDevice(const Case& c, driver::RunTarget target) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(GPUProgram(c), "conv_gpu_test.py");
  if (!parsed.ok()) return parsed.status().ToString();
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  if (!legal.ok()) return legal.status().ToString();
  absl::StatusOr<ir::IRModule> scheduled = ScheduleDefaultGPU(*legal);
  if (!scheduled.ok()) return scheduled.status().ToString();
  std::vector<runtime::Tensor> in;
  for (size_t i = 0; i < c.inputs.size(); ++i) in.push_back(testing::Random(c.inputs[i].shape, "float32", 7 + i));
  absl::StatusOr<std::vector<runtime::Tensor>> got = testing::RunRelax(*scheduled, "main", in, target);
  if (absl::IsUnavailable(got.status())) return "skip: " + got.status().ToString();
  if (!got.ok()) return got.status().ToString();
  absl::StatusOr<std::vector<runtime::Tensor>> want =
      testing::Numpy(std::string(kNumpyConv) + c.numpy, {"x", "w"}, in);
  if (!want.ok()) return want.status().ToString();
  if (got->size() != 1 || want->size() != 1) return "expected one result";
  return testing::Compare((*got)[0], (*want)[0], 1e-4, 1e-4);
}

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      // The corpus's conv2d (relax/007).
      {"(1, 3, 10, 10)", "(4, 3, 3, 3)", "(1, 4, 10, 10)", "R.nn.conv2d(x, w, padding=[1, 1, 1, 1])",
       {{{1, 3, 10, 10}}, {{4, 3, 3, 3}}}, "out = conv(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)"},
      // Stride 2, asymmetric padding (top 1, left 0, bottom 2, right 1), dilation 2.
      {"(2, 4, 11, 9)", "(6, 4, 3, 2)", "(2, 6, 5, 4)",
       "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 0, 2, 1], dilation=[2, 2])",
       {{{2, 4, 11, 9}}, {{6, 4, 3, 2}}}, "out = conv(x, w, (2, 2), (1, 0, 2, 1), (2, 2), 1)"},
      // Two groups in NHWC / HWIO.
      {"(1, 6, 7, 4)", "(3, 3, 2, 6)", "(1, 6, 7, 6)",
       "R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=2, data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
       {{{1, 6, 7, 4}}, {{3, 3, 2, 6}}},
       "out = conv(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (1, 1), (1, 1, 1, 1), (1, 1), 2)"
       ".transpose(0, 2, 3, 1)"},
      // Depthwise.
      {"(1, 4, 5, 5)", "(4, 1, 3, 3)", "(1, 4, 5, 5)", "R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=4)",
       {{{1, 4, 5, 5}}, {{4, 1, 3, 3}}}, "out = conv(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 4)"},
      // conv1d with stride 2.
      {"(2, 3, 9)", "(5, 3, 3)", "(2, 5, 5)", "R.nn.conv1d(x, w, strides=[2], padding=[1, 1])",
       {{{2, 3, 9}}, {{5, 3, 3}}},
       "out = conv(x[:, :, None, :], w[:, :, None, :], (1, 2), (0, 1, 0, 1), (1, 1), 1)[:, :, 0, :]"},
      // conv2d_transpose: stride 2, padding 1, output_padding 1.
      {"(1, 4, 5, 5)", "(4, 3, 3, 3)", "(1, 3, 10, 10)",
       "R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1])",
       {{{1, 4, 5, 5}}, {{4, 3, 3, 3}}}, "out = conv_t(x, w, (2, 2), (1, 1, 1, 1), (1, 1), 1, (1, 1))"},
      // A symbolic height.
      {"(1, 3, \"n\", 8)", "(4, 3, 3, 3)", "(1, 4, \"n\", 8)", "R.nn.conv2d(x, w, padding=[1, 1, 1, 1])",
       {{{1, 3, 6, 8}}, {{4, 3, 3, 3}}}, "out = conv(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)"},
  };
  return *cases;
}

TEST(ConvGPUTest, MatchesNumpyUnscheduled) {
  for (const Case& c : Cases()) {
    std::vector<testing::InputSpec> specs = c.inputs;
    EXPECT_EQ(testing::CheckAgainstNumpy(GPUProgram(c), specs, std::string(kNumpyConv) + c.numpy, 1e-4, 1e-4), "")
        << c.call;
  }
}

TEST(ConvGPUTest, IsOneSTIRReduction) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(GPUProgram(Cases()[0]), "conv_gpu_test.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  ASSERT_TRUE(legal.ok()) << legal.status();
  int kernels = 0;
  for (const auto& [gv, f] : legal->Functions()) {
    const auto* pf = f.as<ir::PrimFuncNode>();
    if (pf == nullptr) continue;
    ++kernels;
    const auto* realize = pf->body.as<ir::SBlockRealizeNode>();
    ASSERT_NE(realize, nullptr) << "an s_tir function has a root block";
    EXPECT_EQ(realize->block->alloc_buffers.size(), 0u) << "no padded copy or packed weight";
  }
  EXPECT_EQ(kernels, 1);
}

TEST(ConvGPUTest, ScheduledAsAnImplicitGemm) {
  // (n, y, x) against the output channels over (c, ky, kx): the tiled schedule of
  // schedule_gpu_gemm.h, with the padding's if_then_else evaluated into the shared tile.
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(GPUProgram(Cases()[0]), "conv_gpu_test.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<ir::IRModule> legal = LegalizeOps(script::AsModule(*parsed));
  ASSERT_TRUE(legal.ok()) << legal.status();
  absl::StatusOr<ir::IRModule> scheduled = ScheduleDefaultGPU(*legal);
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  std::string text = script::printer::Print(*scheduled);
  EXPECT_NE(text.find("T.alloc_shared("), std::string::npos) << text;
  EXPECT_NE(text.find("= T.if_then_else("), std::string::npos) << text;
}

void CheckTarget(driver::RunTarget target) {
  int skipped = 0;
  for (const Case& c : Cases()) {
    std::string r = CheckOnDevice(c, target);
    if (r.rfind("skip: ", 0) == 0) {
      ++skipped;
      continue;
    }
    EXPECT_EQ(r, "") << driver::RunTargetName(target) << ": " << c.call;
  }
  if (skipped == static_cast<int>(Cases().size())) GTEST_SKIP() << driver::RunTargetName(target) << " is unavailable";
}

TEST(ConvGPUTest, MatchesNumpyOnOpenCL) { CheckTarget(driver::RunTarget::kOpenCL); }
TEST(ConvGPUTest, MatchesNumpyOnVulkan) { CheckTarget(driver::RunTarget::kVulkan); }

}  // namespace
}  // namespace kiln::relax::legalize
