#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. kSource calls a packed function no library
// defines and is an IR shape only; the oracle is RewrittenConditionsPickTheBranch, whose program
// is built and run on the Relax VM (vm_check.h) after the pass and must take the branch its
// condition names.

constexpr char kSource[] = R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        if n > 2:
            r = x
        else:
            y = R.call_packed("scale", x, T.Cast("float32", n), n * 2, ty_args=R.Tensor((n,), dtype="float32"))
            r = y
        return r
)";

TEST(ComputePrimValue, NonIntegerExpressionsBecomeKernelCalls) {
  absl::StatusOr<ir::IRModule> out = ComputePrimValue(testing::Parse(kSource));
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  // n * 2 is an integer: VMShapeLower computes it on the heap.
  EXPECT_EQ(testing::PrintBody(*out), R"(    cond: T.bool = compute_symbolic_expr1(n)
    if cond:
        r: R.Tensor((n,), dtype="float32") = x
    else:
        prim: T.float32 = compute_symbolic_expr(n)
        y: R.Tensor((n,), dtype="float32") = R.call_packed("scale", x, prim, n * 2, ty_args=R.Tensor((n,), dtype="float32"))
        r: R.Tensor((n,), dtype="float32") = y
    return r
)");
  // The branches are rewritten before the condition.
  EXPECT_EQ(testing::PrintBody(*out, "compute_symbolic_expr"), "    return T.Cast(\"float32\", n)\n");
  EXPECT_EQ(testing::PrintBody(*out, "compute_symbolic_expr1"), "    return n > T.int64(2)\n");
}

TEST(ComputePrimValue, ThenVMShapeLowerReachesTheVMForm) {
  absl::StatusOr<ir::IRModule> out = ComputePrimValue(testing::Parse(kSource));
  ASSERT_TRUE(out.ok()) << out.status();
  out = LowerRuntimeBuiltin(*out);
  ASSERT_TRUE(out.ok()) << out.status();
  out = VMShapeLower(*out);
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Status form = CheckVMLoweredForm(*out);
  EXPECT_TRUE(form.ok()) << form << testing::PrintBody(*out);
}

// n > 2 becomes a kernel computing the condition from x's shape; each size takes its branch. The
// module reaches the pass as in the pipeline: the call_tir calls already rewritten and lowered.
TEST(ComputePrimValue, RewrittenConditionsPickTheBranch) {
  absl::StatusOr<ir::IRModule> in = CallTIRRewrite(testing::Parse(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i] * T.float32(2.0)

    @T.prim_func(private=True)
    def negate(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = T.float32(0.0) - A[i]

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        if n > 2:
            r = R.call_tir(cls.double, (x,), out_ty=R.Tensor((n,), dtype="float32"))
        else:
            r = R.call_tir(cls.negate, (x,), out_ty=R.Tensor((n,), dtype="float32"))
        return r
)"));
  ASSERT_TRUE(in.ok()) << in.status();
  in = LowerRuntimeBuiltin(*in);
  ASSERT_TRUE(in.ok()) << in.status();
  absl::StatusOr<ir::IRModule> out = ComputePrimValue(*in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(testing::PrintBody(*out).find("cond: T.bool = compute_symbolic_expr(n)"), std::string::npos)
      << testing::PrintBody(*out);
  absl::StatusOr<vm::Value> big = testing::RunAfterPass("ComputePrimValue", *out, {testing::F32({3}, {1, -2, 3})});
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(testing::F32Values(*big), (std::vector<float>{2, -4, 6}));
  absl::StatusOr<vm::Value> small = testing::RunAfterPass("ComputePrimValue", *out, {testing::F32({2}, {1, -2})});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(testing::F32Values(*small), (std::vector<float>{-1, 2}));
}

}  // namespace
}  // namespace kiln::relax::transform
