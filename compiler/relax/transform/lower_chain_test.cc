// Programs exercising what the lowering passes must carry through together (If, recursion,
// tuples, constants, shape results, num_input, closures, local functions) reach the VM-lowered
// form.
#include <string>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. What the lowered code computes is checked end to
// end: tests/corpus (the Relax corpus and models through the whole pipeline, against numpy) and
// compiler/driver/relax_build_e2e_test.

constexpr char kKernels[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func(private=True)
    def positive(A: T.Buffer((4,), "float32"), B: T.Buffer((), "bool")):
        B[()] = A[0] > T.float32(0.0)

    @T.prim_func(private=True)
    def inc_n(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 2))
        B = T.match_buffer(b, (n, 2))
        for i, j in T.grid(n, 2):
            B[i, j] = A[i, j] + T.float32(1.0)
)";

// Runs the passes in pipeline order; returns main (and every function) printed on failure.
void ExpectLowers(const std::string& functions) {
  ir::IRModule mod = testing::Parse(std::string(kKernels) + functions);
  for (auto pass : {LambdaLift, RewriteDataflowReshape, ToNonDataflow, RemovePurityChecking, CallTIRRewrite,
                    StaticPlanBlockMemory, KillAfterLastUse, LowerRuntimeBuiltin, ComputePrimValue}) {
    absl::StatusOr<ir::IRModule> next = pass(mod);
    ASSERT_TRUE(next.ok()) << next.status();
    absl::Status wf = CheckWellFormed(*next, nullptr);
    ASSERT_TRUE(wf.ok()) << wf;
    mod = *next;
  }
  absl::StatusOr<ir::IRModule> lowered = VMShapeLower(mod);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::Status form = CheckVMLoweredForm(*lowered);
  EXPECT_TRUE(form.ok()) << form << "\n" << script::printer::Print(*lowered);
}

TEST(LowerChain, IfOnAKernelResultAndRecursion) {
  ExpectLowers(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), k: R.Tensor((), dtype="int32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.positive, (x,), out_ty=R.Tensor((), dtype="bool"))
            R.output(c)
        if c:
            y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            r = cls.main(y, k)
        else:
            r = x
        return r
)");
}

TEST(LowerChain, TuplesAndConstants) {
  ExpectLowers(R"(
    @R.function
    def main(t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        a = t[0]
        b = R.call_tir(cls.inc, (R.const([1.0, 2.0, 3.0, 4.0], "float32"),), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.call_tir(cls.inc, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        return (b, c)
)");
}

TEST(LowerChain, SymbolicShapeResults) {
  ExpectLowers(R"(
    @R.function
    def main(x: R.Tensor(("n", 2), dtype="float32")) -> R.Tuple(R.Tensor(("n", 2), dtype="float32"), R.Shape(["n", 2])):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.inc_n, (x,), out_ty=R.Tensor((n, 2), dtype="float32"))
            s = R.shape_of(y)
            gv = (y, s)
            R.output(gv)
        return gv
)");
}

TEST(LowerChain, NumInputAndClosures) {
  ExpectLowers(R"(
    @R.function
    def step(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        f = R.make_closure(cls.step, (w,))
        r = R.invoke_closure(f, (x,), ty_args=R.Tensor((4,), dtype="float32"))
        return r
)");
}

TEST(LowerChain, LocalClosures) {
  ExpectLowers(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        @R.function
        def step(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z = R.call_tir(cls.inc, (w,), out_ty=R.Tensor((4,), dtype="float32"))
            return z
        r = step(x)
        return r
)");
}

}  // namespace
}  // namespace kiln::relax::transform
