// LegalizeOps itself: the rewrite to call_tir, the form of the PrimFuncs it adds (s_tir blocks,
// attributes, parameters), deduplication, symbolic dims passed as prim args, nested functions and
// the errors for an operator without legalization.
#include "compiler/relax/legalize/legalize.h"

#include <algorithm>

#include "compiler/relax/legalize/testing.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

IRModule ParseModule(const std::string& src) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(src, "test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? script::AsModule(*r) : IRModule::Make();
}

int CountPrimFuncs(const IRModule& m) {
  int n = 0;
  for (const auto& [gv, f] : m.Functions()) n += f.as<PrimFuncNode>() != nullptr;
  return n;
}

TEST(LegalizeTest, AddBecomesCallTIROfAnSTIRPrimFunc) {
  IRModule m = ParseModule(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            R.output(gv)
        return gv
)PY");
  absl::StatusOr<IRModule> out = LegalizeOps(m);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(testing::RemainingOps(*out).empty());
  const auto* f = out->Lookup("add").as<PrimFuncNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->GetGlobalSymbol(), "add");
  EXPECT_EQ(f->params.size(), 3u);
  const auto* pattern = f->attrs.Get(String("op_pattern")).as<IntImmNode>();
  ASSERT_NE(pattern, nullptr);
  EXPECT_EQ(pattern->value, 0);
  std::string text = script::printer::Print(*out);
  EXPECT_NE(text.find("R.call_tir(cls.add, (x, y), out_ty=R.Tensor((4, 8), dtype=\"float32\"))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("with T.sblock(\"T_add\"):"), std::string::npos) << text;
  EXPECT_NE(text.find("T.axis.remap(\"SS\""), std::string::npos) << text;
  // The printed module parses back to the same module.
  absl::StatusOr<ObjectRef> again = script::ParseScript(text, "printed.py");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
}

TEST(LegalizeTest, EqualPrimFuncsAreSharedAndOthersGetFreshNames) {
  IRModule m = ParseModule(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32"), z: R.Tensor((5,), dtype="float32")) -> R.Tensor((5,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.add(x, y)
            b: R.Tensor((4,), dtype="float32") = R.add(a, y)
            c: R.Tensor((5,), dtype="float32") = R.add(z, z)
            R.output(c)
        return c
)PY");
  absl::StatusOr<IRModule> out = LegalizeOps(m);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CountPrimFuncs(*out), 2);
  EXPECT_NE(out->Lookup("add").get(), nullptr);
  EXPECT_NE(out->Lookup("add1").get(), nullptr);
}

TEST(LegalizeTest, UnlegalizableOpNamesOpAndLine) {
  IRModule m = ParseModule(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4,), dtype="float32") = R.ewise_fma(x, x, x)
            R.output(gv)
        return gv
)PY");
  absl::StatusOr<IRModule> out = LegalizeOps(m);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("R.ewise_fma"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("line 7"), std::string::npos) << out.status();
}

TEST(LegalizeTest, UnknownOutputShapeIsAnErrorWithTheLine) {
  IRModule m = ParseModule(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        gv: R.Tensor(dtype="float32", ndim=2) = R.exp(x)
        return gv
)PY");
  absl::StatusOr<IRModule> out = LegalizeOps(m);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("R.exp"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("line 6"), std::string::npos) << out.status();
}

TEST(LegalizeTest, VMOpsStayAndCallsInBranchesAreLegalized) {
  IRModule m = ParseModule(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Shape([4]):
        if c:
            y: R.Tensor((4,), dtype="float32") = R.exp(x)
            r: R.Tensor((4,), dtype="float32") = y
        else:
            r: R.Tensor((4,), dtype="float32") = R.negative(x)
        s: R.Shape([4]) = R.shape_of(r)
        return s
)PY");
  absl::StatusOr<IRModule> out = LegalizeOps(m);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::RemainingOps(*out), std::vector<std::string>{"relax.shape_of"});
  EXPECT_EQ(CountPrimFuncs(*out), 2);
}

// Every table entry names a registered operator (a misspelt name would never match a call), and
// the operators this directory promises are all there.
TEST(LegalizeTest, TableNamesRegisteredOperators) {
  std::vector<std::string> names = LegalizedOpNames();
  for (const std::string& name : names) {
    EXPECT_NE(OpRegistry::Global().FindByName(name), nullptr) << name;
  }
  for (const char* op :
       {"add", "subtract", "multiply", "divide", "power", "maximum", "equal", "less", "logical_and", "astype", "exp",
        "sigmoid", "clip", "sum", "mean", "max", "prod", "argmax", "argmin", "variance", "std", "cumsum", "sort", "topk",
        "nn.relu", "nn.gelu", "nn.gelu_tanh", "nn.silu", "nn.softmax", "nn.log_softmax", "nn.layer_norm",
        "nn.group_norm", "nn.rms_norm", "nn.batch_norm", "nn.dropout", "nn.pad", "reshape", "permute_dims",
        "expand_dims", "squeeze", "flatten", "concat", "split", "strided_slice", "take", "broadcast_to", "where",
        "full", "zeros", "ones", "arange", "tril", "triu", "one_hot", "scatter_elements", "image.resize2d"}) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), std::string("relax.") + op)) << op;
  }
}

TEST(LegalizeTest, ElementwiseAddNumerics) {
  EXPECT_EQ(testing::CheckAgainstNumpy(R"PY(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(x, y)
            gv: R.Tensor((4, 8), dtype="float32") = R.multiply(lv, x)
            R.output(gv)
        return gv
)PY",
                                       {{{4, 8}}, {{4, 8}}}, "out = (x + y) * x"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
