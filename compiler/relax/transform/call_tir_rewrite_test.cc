#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. The oracle is Computes: the pass's output, built and
// run on the Relax VM (vm_check.h), must give the values the test computes directly.
absl::StatusOr<ir::IRModule> Rewritten(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = CallTIRRewrite(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Rewrite(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = Rewritten(source);
  return out.ok() ? testing::PrintBody(*out) : "";
}

void Computes(const std::string& source, const std::vector<vm::Value>& args, const std::vector<float>& want) {
  absl::StatusOr<ir::IRModule> out = Rewritten(source);
  ASSERT_TRUE(out.ok());
  absl::StatusOr<vm::Value> got = testing::RunAfterPass("CallTIRRewrite", *out, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), want);
}

std::vector<float> Ramp(int n, float start, float step) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + step * i;
  return v;
}

constexpr char kAddOne[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        gv = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((16,), dtype="float32"))
        return gv
)";

TEST(CallTIRRewrite, AllocatesTheOutputThenCallsTheKernel) {
  EXPECT_EQ(Rewrite(kAddOne),
            R"(    alloc: R.Tensor((16,), dtype="float32") = R.builtin.alloc_tensor(R.shape([16]), R.dtype("float32"), 0, R.str("global"))
    add_one(x, alloc)
    return alloc
)");
  Computes(kAddOne, {testing::F32({16}, Ramp(16, -4, 0.5f))}, Ramp(16, -3, 0.5f));
}

constexpr char kMinMax[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def minmax(A: T.Buffer((4, 8), "float32"), Mn: T.Buffer((4,), "float32"), Mx: T.Buffer((4,), "float32")):
        for i in range(4):
            Mn[i] = A[i, 0]
            Mx[i] = A[i, 1]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.minmax, (x,), out_ty=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        lv1: R.Tensor((4,), dtype="float32") = lv[1]
        return lv1
)";

TEST(CallTIRRewrite, TupleOutputs) {
  EXPECT_EQ(Rewrite(kMinMax),
            R"(    alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
    alloc_1: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
    minmax(x, alloc, alloc_1)
    lv: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (alloc, alloc_1)
    lv1: R.Tensor((4,), dtype="float32") = lv[1]
    return lv1
)");
  // The second output (column 1 of each row) is returned.
  Computes(kMinMax, {testing::F32({4, 8}, Ramp(32, 0, 1))}, {1, 9, 17, 25});
}

constexpr char kDoubleInplace[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double_inplace(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = A[i] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        cls = Module
        z = R.call_tir_inplace(cls.double_inplace, (x,), inplace_indices=[0], out_ty=R.Tensor((8,), dtype="float32"))
        return z
)";

TEST(CallTIRRewrite, InplaceReusesTheInput) {
  EXPECT_EQ(Rewrite(kDoubleInplace),
            R"(    double_inplace(x)
    return x
)");
  Computes(kDoubleInplace, {testing::F32({8}, Ramp(8, 1, 1))}, Ramp(8, 2, 2));
}

constexpr char kInplaceInABranch[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double_inplace(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = A[i] * T.float32(2.0)

    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        cls = Module
        if c:
            r = R.call_tir_inplace(cls.double_inplace, (x,), inplace_indices=[0], out_ty=R.Tensor((8,), dtype="float32"))
        else:
            r = x
        return r
)";

TEST(CallTIRRewrite, ACallEndingAnIfBranchIsRewrittenToo) {
  EXPECT_EQ(Rewrite(kInplaceInABranch),
            R"(    if c:
        double_inplace(x)
        r: R.Tensor((8,), dtype="float32") = x
    else:
        r: R.Tensor((8,), dtype="float32") = x
    return r
)");
  absl::StatusOr<ir::IRModule> out = Rewritten(kInplaceInABranch);
  ASSERT_TRUE(out.ok());
  for (bool c : {true, false}) {
    SCOPED_TRACE(c);
    absl::StatusOr<vm::Value> got =
        testing::RunAfterPass("CallTIRRewrite", *out, {testing::Bool(c), testing::F32({8}, Ramp(8, -3, 1))});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(testing::F32Values(*got), c ? Ramp(8, -6, 2) : Ramp(8, -3, 1));
  }
}

constexpr char kScaleRows[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale_rows(a: T.handle, b: T.handle, n: T.int64):
        A = T.match_buffer(a, (n, T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            B[i, j] = A[i, j]

    @T.prim_func(private=True)
    def scale_rows_n_first(n: T.int64, a: T.handle, b: T.handle):
        A = T.match_buffer(a, (n, T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            B[i, j] = A[i, j]

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        cls = Module
        gv = R.call_tir(cls.CALLEE, ARGS, out_ty=R.Tensor((n, 4), dtype="float32"))
        return gv
)";

std::string ScaleRows(const std::string& callee, const std::string& args) {
  std::string s = kScaleRows;
  s.replace(s.find("CALLEE"), 6, callee);
  s.replace(s.find("ARGS"), 4, args);
  return s;
}

TEST(CallTIRRewrite, ScalarArgumentsArePositionalWhenTheyFit) {
  EXPECT_EQ(Rewrite(ScaleRows("scale_rows_n_first", "(n, x)")),
            R"(    alloc: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), 0, R.str("global"))
    scale_rows_n_first(n, x, alloc)
    return alloc
)");
  Computes(ScaleRows("scale_rows_n_first", "(n, x)"), {testing::F32({3, 4}, Ramp(12, 5, -1))}, Ramp(12, 5, -1));
}

TEST(CallTIRRewrite, ScalarArgumentsFollowTheOutputsInTheOlderOrder) {
  EXPECT_EQ(Rewrite(ScaleRows("scale_rows", "(x, n)")),
            R"(    alloc: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), 0, R.str("global"))
    scale_rows(x, alloc, n)
    return alloc
)");
  Computes(ScaleRows("scale_rows", "(x, n)"), {testing::F32({2, 4}, Ramp(8, 0.25f, 2))}, Ramp(8, 0.25f, 2));
}

TEST(CallTIRRewrite, ArgumentsFittingNoOrderAreAnError) {
  absl::StatusOr<ir::IRModule> out = CallTIRRewrite(testing::Parse(ScaleRows("scale_rows", "(x, x)")));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find("do not fit the parameters of PrimFunc 'scale_rows'"), std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace kiln::relax::transform
