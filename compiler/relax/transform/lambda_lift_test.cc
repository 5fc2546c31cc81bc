#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. What the lowered code computes is checked end to
// end: tests/corpus (the Relax corpus and models through the whole pipeline, against numpy) and
// compiler/driver/relax_build_e2e_test.

namespace rx = ::kiln::ir::relax;

std::string Lift(const ir::IRModule& mod) {
  absl::StatusOr<ir::IRModule> out = LambdaLift(mod);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "";
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  std::string text = script::printer::Print(*out);
  return text.substr(text.find("@I.ir_module"));
}

TEST(LambdaLift, LocalFunctionWithoutFreeVariablesBecomesAModuleFunction) {
  EXPECT_EQ(Lift(testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            return y
        z = inner(x)
        return z
)")),
            R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        z: R.Tensor((4,), dtype="float32") = cls.main_inner(x)
        return z

    @R.function(private=True)
    def main_inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return y
)");
}

TEST(LambdaLift, ClosureTakesItsFreeVariablesLast) {
  EXPECT_EQ(Lift(testing::Parse(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
            t = (y, w)
            return t
        z = inner(x)
        r = z[0]
        return r
)")),
            R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        inner: R.Callable((R.Tensor((4,), dtype="float32"),), R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")), True) = R.make_closure(cls.main_inner, (w,))
        z: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = inner(x)
        r: R.Tensor((4,), dtype="float32") = z[0]
        return r

    @R.function(private=True)
    def main_inner(y: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (y, w)
        return t
)");
}

// main(x) { loop = fn(c) { r = loop(c); r }; z = loop(x); z }, built by hand: the parser has no
// way to name a local function inside itself.
ir::IRModule RecursiveLocal(bool capture) {
  ir::Type t = MakeTensorType(std::vector<ir::PrimExpr>{}, ir::DataType::Bool());
  ir::Var x("x", t), c("c", t), r("r", t), z("z", t);
  ir::Var loop("loop", ir::FuncType({t}, t));
  rx::Call inner_call(loop, {capture ? x : c});
  inner_call.CopyOnWrite()->ty = t;
  rx::SeqExpr inner_body({rx::BindingBlock({rx::VarBinding(r, inner_call)})}, r);
  inner_body.CopyOnWrite()->ty = t;
  rx::Function inner({c}, inner_body, t);
  inner.CopyOnWrite()->ty = loop->ty;
  rx::Call outer_call(loop, {x});
  outer_call.CopyOnWrite()->ty = t;
  rx::SeqExpr body({rx::BindingBlock({rx::VarBinding(loop, inner), rx::VarBinding(z, outer_call)})}, z);
  body.CopyOnWrite()->ty = t;
  rx::Function main({x}, body, t, true, {{ir::String("global_symbol"), ir::String("main")}});
  ir::IRModule mod = ir::IRModule::Make();
  mod.Add(ir::GlobalVar("main"), main);
  return mod;
}

TEST(LambdaLift, RecursiveLocalFunctionCallsItsGlobal) {
  std::string text = Lift(RecursiveLocal(/*capture=*/false));
  EXPECT_NE(text.find("r: R.Tensor((), dtype=\"bool\") = cls.main_loop(c)"), std::string::npos) << text;
  EXPECT_NE(text.find("z: R.Tensor((), dtype=\"bool\") = cls.main_loop(x)"), std::string::npos) << text;
}

TEST(LambdaLift, RecursiveClosureIsReported) {
  absl::StatusOr<ir::IRModule> out = LambdaLift(RecursiveLocal(/*capture=*/true));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("'loop' calls itself and captures variables"), std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace kiln::relax::transform
