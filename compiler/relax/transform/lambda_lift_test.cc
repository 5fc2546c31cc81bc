#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts in these tests are kiln's own printer output for the pass's result, checked
// by reading: a change detector, not an oracle. The oracle is the Relax VM: the lifted module,
// built and run (vm_check.h), must give the values the test states (a closure given its captured
// values in the wrong place returns the wrong tensor). The recursive fixtures never stop and are
// IR shapes only.

namespace rx = ::kiln::ir::relax;

absl::StatusOr<ir::IRModule> Lifted(const ir::IRModule& mod) {
  absl::StatusOr<ir::IRModule> out = LambdaLift(mod);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Lift(const ir::IRModule& mod) {
  absl::StatusOr<ir::IRModule> out = Lifted(mod);
  if (!out.ok()) return "";
  std::string text = script::printer::Print(*out);
  return text.substr(text.find("@I.ir_module"));
}

// main of the lifted `source`, run on the VM with `args`: its float32 result.
std::vector<float> RunLifted(const std::string& source, const std::vector<vm::Value>& args) {
  absl::StatusOr<ir::IRModule> out = Lifted(testing::Parse(source));
  if (!out.ok()) return {};
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, args);
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? testing::F32Values(*got) : std::vector<float>{};
}

TEST(LambdaLift, LocalFunctionWithoutFreeVariablesBecomesAModuleFunction) {
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        @R.function
        def inner(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            return y
        z = inner(x)
        return z
)";
  EXPECT_EQ(Lift(testing::Parse(source)),
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
  EXPECT_EQ(RunLifted(source, {testing::F32({4}, {1, -2, 3, 0.5f})}), (std::vector<float>{1, -2, 3, 0.5f}));
}

TEST(LambdaLift, ClosureTakesItsFreeVariablesLast) {
  const std::string source = R"(
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
)";
  EXPECT_EQ(Lift(testing::Parse(source)),
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
  // z = (x, w): the first field is the argument, not the captured w.
  EXPECT_EQ(RunLifted(source, {testing::F32({4}, {1, 2, 3, 4}), testing::F32({4}, {5, 6, 7, 8})}),
            (std::vector<float>{1, 2, 3, 4}));
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
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find("'loop' calls itself and captures variables"), std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace kiln::relax::transform
