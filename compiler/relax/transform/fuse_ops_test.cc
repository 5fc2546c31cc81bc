// FuseOps: TVM's grouping rules on small dataflow blocks (after AnnotateTIROpPattern), each checked
// against the expected module with structural equality, and the result well formed.
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/fusion_test_util.h"
#include "compiler/relax/transform/passes.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

using testing::ParseWithKernels;

ir::IRModule Annotated(const std::string& functions) {
  absl::StatusOr<ir::IRModule> m = AnnotateTIROpPattern(ParseWithKernels(functions));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : ir::IRModule::Make();
}

void ExpectFused(const std::string& before, const std::string& expected) {
  absl::StatusOr<ir::IRModule> out = FuseOps(Annotated(before));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  std::string why;
  EXPECT_TRUE(ir::StructuralEqual(*out, Annotated(expected), false, &why)) << why;
}

TEST(FuseOps, ElementwiseChain) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (b,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_add_exp_relu(x, y)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_add_exp_relu(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (b,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, MatmulTakesBroadcastAndElementwiseConsumers) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32"), b: R.Tensor((16,), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            biased = R.call_tir(cls.add_bias, (mm, b), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (biased,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32"), b: R.Tensor((16,), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_matmul_add_bias_relu(x, w, b)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_matmul_add_bias_relu(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32"), b: R.Tensor((16,), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            biased = R.call_tir(cls.add_bias, (mm, b), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (biased,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, ElementwiseProducerFusesIntoReductionButReductionTakesNoConsumer) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        with R.dataflow():
            e = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.row_sum, (e,), out_ty=R.Tensor((8,), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_exp_row_sum(x)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_row_sum(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8,), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            e = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.row_sum, (e,), out_ty=R.Tensor((8,), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, NothingFusesAcrossOpaqueOrIntoReductionConsumersOfMatmul) {
  const char* kUnchanged = R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), a: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        with R.dataflow():
            e = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.opaque_copy, (e,), out_ty=R.Tensor((8, 16), "float32"))
            r = R.call_tir(cls.relu, (c,), out_ty=R.Tensor((8, 16), "float32"))
            mm = R.call_tir(cls.matmul, (a, w), out_ty=R.Tensor((8, 16), "float32"))
            s = R.call_tir(cls.add, (mm, r), out_ty=R.Tensor((8, 16), "float32"))
            t = R.call_tir(cls.transpose, (s,), out_ty=R.Tensor((16, 8), "float32"))
            gv = R.call_tir(cls.row_sum, (mm,), out_ty=R.Tensor((8,), "float32"))
            R.output(gv, t)
        return gv
)";
  // e -> opaque: no. relu -> add -> transpose... relu's only consumer is add, so relu, add and
  // transpose group (elementwise into injective); matmul has two consumers (add, row_sum) whose
  // common post-dominator does not exist, so it stays alone.
  ExpectFused(kUnchanged, R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), a: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        with R.dataflow():
            e = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.opaque_copy, (e,), out_ty=R.Tensor((8, 16), "float32"))
            mm = R.call_tir(cls.matmul, (a, w), out_ty=R.Tensor((8, 16), "float32"))
            t = cls.fused_relu_add_transpose(c, mm)
            gv = R.call_tir(cls.row_sum, (mm,), out_ty=R.Tensor((8,), "float32"))
            R.output(gv, t)
        return gv

    @R.function(private=True)
    def fused_relu_add_transpose(c: R.Tensor((8, 16), "float32"), mm: R.Tensor((8, 16), "float32")) -> R.Tensor((16, 8), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            r = R.call_tir(cls.relu, (c,), out_ty=R.Tensor((8, 16), "float32"))
            s = R.call_tir(cls.add, (mm, r), out_ty=R.Tensor((8, 16), "float32"))
            t = R.call_tir(cls.transpose, (s,), out_ty=R.Tensor((16, 8), "float32"))
            R.output(t)
        return t
)");
}

TEST(FuseOps, DiamondFusesIntoOneGroup) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.add, (b, c), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_add_exp_relu_add(x, y)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_add_exp_relu_add(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.add, (b, c), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, BlockOutputEndsAGroupAndIsReadAfterIt) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.opaque_copy, (gv,), out_ty=R.Tensor((8, 16), "float32"))
            d = R.call_tir(cls.exp, (gv,), out_ty=R.Tensor((8, 16), "float32"))
            out = R.call_tir(cls.add, (c, d), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv, out)
        return out
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_exp_relu(x)
            c = R.call_tir(cls.opaque_copy, (gv,), out_ty=R.Tensor((8, 16), "float32"))
            out = cls.fused_exp_add(gv, c)
            R.output(gv, out)
        return out

    @R.function(private=True)
    def fused_exp_relu(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_add(gv: R.Tensor((8, 16), "float32"), c: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            d = R.call_tir(cls.exp, (gv,), out_ty=R.Tensor((8, 16), "float32"))
            out = R.call_tir(cls.add, (c, d), out_ty=R.Tensor((8, 16), "float32"))
            R.output(out)
        return out
)");
}

TEST(FuseOps, GroupWhoseResultIsUnusedIsDropped) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.opaque_copy, (x,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.opaque_copy, (x,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, IdenticalGroupsShareAFunctionAndDifferentOnesGetUniqueNames) {
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.add, (a, y), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.opaque_copy, (b,), out_ty=R.Tensor((8, 16), "float32"))
            d = R.call_tir(cls.exp, (c,), out_ty=R.Tensor((8, 16), "float32"))
            e = R.call_tir(cls.add, (y, d), out_ty=R.Tensor((8, 16), "float32"))
            f = R.call_tir(cls.opaque_copy, (e,), out_ty=R.Tensor((8, 16), "float32"))
            g = R.call_tir(cls.exp, (f,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.add, (g, y), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            b = cls.fused_exp_add(x, y)
            c = R.call_tir(cls.opaque_copy, (b,), out_ty=R.Tensor((8, 16), "float32"))
            e = cls.fused_exp_add1(c, y)
            f = R.call_tir(cls.opaque_copy, (e,), out_ty=R.Tensor((8, 16), "float32"))
            gv = cls.fused_exp_add(f, y)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_add(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.add, (a, y), out_ty=R.Tensor((8, 16), "float32"))
            R.output(b)
        return b

    @R.function(private=True)
    def fused_exp_add1(c: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            d = R.call_tir(cls.exp, (c,), out_ty=R.Tensor((8, 16), "float32"))
            e = R.call_tir(cls.add, (y, d), out_ty=R.Tensor((8, 16), "float32"))
            R.output(e)
        return e
)");
}

TEST(FuseOps, FieldOfAnOutsideTupleIsPassedAsATensor) {
  const char* kTwoOut = R"(
    @T.prim_func(private=True)
    def two_out(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            B[i, j] = A[i, j]
            C[i, j] = A[i, j] * T.float32(2)
)";
  ExpectFused(std::string(kTwoOut) + R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.two_out, (x,), out_ty=[R.Tensor((8, 16), "float32"), R.Tensor((8, 16), "float32")])
            a = t[1]
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (b,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", std::string(kTwoOut) + R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.two_out, (x,), out_ty=[R.Tensor((8, 16), "float32"), R.Tensor((8, 16), "float32")])
            a = t[1]
            gv = cls.fused_exp_relu(a)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_relu(a: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (b,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)");
}

TEST(FuseOps, ValueReadByMatchCastIsReturnedByItsGroup) {
  // Outputs in TVM's order: the group's block outputs first, then the values read outside it.
  ExpectFused(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            m = R.match_cast(a, R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)", R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            lv = cls.fused_exp_relu(x)
            gv = lv[0]
            a = lv[1]
            m = R.match_cast(a, R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_relu(x: R.Tensor((8, 16), "float32")) -> R.Tuple(R.Tensor((8, 16), "float32"), R.Tensor((8, 16), "float32")):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(a, gv)
        return (gv, a)
)");
}

TEST(FuseOps, SymbolicShapesStayDefinedInTheFusedFunction) {
  ir::IRModule before = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def exp(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.sblock("exp"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.exp(A[vi])

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((n,), "float32"))
            gv = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((n,), "float32"))
            R.output(gv)
        return gv
)");
  absl::StatusOr<ir::IRModule> annotated = AnnotateTIROpPattern(before);
  ASSERT_TRUE(annotated.ok());
  absl::StatusOr<ir::IRModule> out = FuseOps(*annotated);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(CheckWellFormed(*out, nullptr).ok()) << CheckWellFormed(*out, nullptr);
  const auto* fused = out->Lookup("fused_exp_exp").as<ir::relax::FunctionNode>();
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->params.size(), 1u);  // n comes from x's shape: no tir_vars parameter
}

}  // namespace
}  // namespace kiln::relax::transform
