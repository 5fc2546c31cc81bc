// DeadCodeElimination: unused pure bindings go (in every block kind and inside If branches),
// effects stay, and functions unreachable from the public ones go. Each case compares against the
// expected module, parsed, with structural equality.
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

ir::IRModule Parse(const std::string& text) {
  absl::StatusOr<ir::ObjectRef> parsed =
      script::ParseScript("from tvm.script import ir as I, tirx as T, relax as R\n\n" + text, "t.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

void ExpectDce(const std::string& before, const std::string& expected) {
  absl::StatusOr<ir::IRModule> out = DeadCodeElimination(Parse(before));
  ASSERT_TRUE(out.ok()) << out.status();
  std::string why;
  EXPECT_TRUE(ir::StructuralEqual(*out, Parse(expected), false, &why)) << why;
}

TEST(DeadCodeElimination, RemovesUnusedBindingsTransitively) {
  ExpectDce(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            c = R.negative(x)
            R.output(c)
        d = R.exp(c)
        return c
)", R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            c = R.negative(x)
            R.output(c)
        return c
)");
}

TEST(DeadCodeElimination, DropsEmptyBlocksAndCleansIfBranches) {
  ExpectDce(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        if c:
            t = R.exp(x)
            r = R.negative(x)
        else:
            r = x
        return r
)", R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        if c:
            r = R.negative(x)
        else:
            r = x
        return r
)");
}

TEST(DeadCodeElimination, KeepsImpureCalls) {
  const char* kModule = R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        unused = R.call_packed("my_side_effect", x, sinfo_args=(R.Tensor((4,), "float32"),))
        return x
)";
  ExpectDce(kModule, kModule);
}

TEST(DeadCodeElimination, RemovesUnreachableFunctions) {
  ExpectDce(R"(@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def used(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @T.prim_func(private=True, s_tir=True)
    def dead_after_dce(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function(private=True)
    def never_called(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.dead_after_dce, (x,), out_ty=R.Tensor((4,), "float32"))
            b = R.call_tir(cls.used, (x,), out_ty=R.Tensor((4,), "float32"))
            R.output(b)
        return b
)", R"(@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def used(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            b = R.call_tir(cls.used, (x,), out_ty=R.Tensor((4,), "float32"))
            R.output(b)
        return b
)");
}

TEST(DeadCodeElimination, KeepsPublicFunctionsAndWhatTheyCall) {
  const char* kModule = R"(@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def other(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)";
  ExpectDce(kModule, kModule);
}

}  // namespace
}  // namespace kiln::relax::transform
