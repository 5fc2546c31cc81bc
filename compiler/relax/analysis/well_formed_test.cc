// Relax well-formedness: each rule accepts the well-formed case and reports the violation, with the
// span of the offending node, for the ill-formed one. Most cases are written as TVMScript and parsed
// without verification; the ones the parser cannot express (a use before definition) are built by
// hand.
#include "compiler/relax/analysis/well_formed.h"

#include <string>

#include "compiler/ir/diagnostic.h"
#include "compiler/ir/ir.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax {
namespace {

constexpr char kHeader[] = "from tvm.script import ir as I, tirx as T, relax as R\n\n";

ir::IRModule ParseUnverified(const std::string& body) {
  script::ParseOptions options;
  options.verify = false;
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kHeader + body, "wf.py", nullptr, options);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

// Runs the checker and returns its diagnostics as "line:col: message" lines.
std::string Check(const ir::IRModule& mod) {
  ir::DiagnosticList diags;
  absl::Status st = CheckWellFormed(mod, &diags);
  std::string out;
  for (const ir::Diagnostic& d : diags.items()) {
    out += std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " + d.message + "\n";
  }
  EXPECT_EQ(st.ok(), out.empty()) << st;
  return out;
}

TEST(WellFormed, AcceptsWellFormedModule) {
  ir::IRModule mod = ParseUnverified(R"(@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.add(x, x)
            z = R.multiply(y, x)
            R.output(z)
        w: R.Tensor((n,), dtype="float32") = R.negative(z)
        return w
)");
  EXPECT_EQ(Check(mod), "");
}

TEST(WellFormed, ImpureCallInDataflowBlock) {
  EXPECT_EQ(Check(ParseUnverified(R"(@R.function(pure=False)
def main(x: R.Tensor((4,), dtype="float32")):
    with R.dataflow():
        y = R.call_packed("my_print", x, sinfo_args=[R.Tensor((4,), dtype="float32")])
        R.output(y)
    return y
)")), "6:13: impure call to R.call_packed inside a dataflow block\n");
}

TEST(WellFormed, ImpureCallInPureFunction) {
  EXPECT_EQ(Check(ParseUnverified(R"(@R.function
def main(x: R.Tensor((4,), dtype="float32")):
    y = R.call_packed("my_print", x, sinfo_args=[R.Tensor((4,), dtype="float32")])
    return y
)")),
            "5:9: impure call to R.call_packed inside a pure function (mark it R.function(pure=False))\n");
}

// The parser resolves names and checks annotations as it reads, so the remaining violations can only
// come from code that builds IR directly (passes, deserialized modules): they are built by hand.
class HandBuilt : public ::testing::Test {
 protected:
  ir::Type Tensor(int64_t n, ir::DataType dtype = ir::DataType::Float(32)) {
    return MakeTensorType({ir::IntImm(ir::DataType::Int(64), n)}, dtype);
  }
  static ir::Span At(int line) {
    ir::Span s;
    s.line = line;
    s.column = 5;
    return s;
  }
  static ir::Expr Op(const std::string& name, ir::Array<ir::Expr> args, ir::Array<ir::Type> ty_args = {},
                     ir::IRModule mod = ir::IRModule()) {
    absl::StatusOr<ir::relax::Call> c = MakeOpCall(name, args, {}, ty_args, mod);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? ir::Expr(*c) : ir::Expr();
  }
  // A module whose "main" has parameter x: (4,) float32 and the given blocks, body and return type.
  ir::IRModule Main(ir::Array<ir::relax::BindingBlock> blocks, ir::Expr body, ir::Type ret = ir::Type()) {
    ir::IRModule mod = ir::IRModule::Make();
    mod.Add(ir::GlobalVar("main"),
            ir::relax::Function(ir::Array<ir::Var>{x}, ir::relax::SeqExpr(blocks, body), ret));
    return mod;
  }
  ir::Var x{"x", Tensor(4)};
};

TEST_F(HandBuilt, UseBeforeDefinitionAndDoubleDefinition) {
  ir::Var y("y", Tensor(4)), z("z", Tensor(4));
  ir::relax::BindingBlock block(ir::Array<ir::relax::Binding>{
      ir::relax::VarBinding(y, Op("add", {x, z}), At(3)), ir::relax::VarBinding(z, Op("add", {x, x}), At(4)),
      ir::relax::VarBinding(z, Op("add", {x, x}), At(5))});
  EXPECT_EQ(Check(Main({block}, z)),
            "3:5: variable 'z' is used before it is defined\n5:5: variable 'z' is defined more than once\n");
  ir::relax::BindingBlock good(ir::Array<ir::relax::Binding>{
      ir::relax::VarBinding(z, Op("add", {x, x}), At(3)), ir::relax::VarBinding(y, Op("add", {x, z}), At(4))});
  EXPECT_EQ(Check(Main({good}, y)), "");
}

TEST_F(HandBuilt, DataflowVarsStayInTheirBlock) {
  ir::relax::DataflowVar lv("lv", Tensor(4));
  ir::Var y("y", Tensor(4));
  ir::relax::DataflowBlock dataflow(ir::Array<ir::relax::Binding>{
      ir::relax::VarBinding(lv, Op("add", {x, x}), At(3)), ir::relax::VarBinding(y, Op("add", {lv, x}), At(4))});
  EXPECT_EQ(Check(Main({dataflow}, y)), "");
  EXPECT_EQ(Check(Main({dataflow}, lv)),
            "0:0: dataflow variable 'lv' is used outside its dataflow block (list it in R.output)\n");
  ir::relax::BindingBlock plain(ir::Array<ir::relax::Binding>{ir::relax::VarBinding(lv, Op("add", {x, x}), At(7))});
  EXPECT_EQ(Check(Main({plain}, x)), "7:5: DataflowVar 'lv' is bound outside a dataflow block\n");
}

TEST_F(HandBuilt, AnnotationsAgreeWithValues) {
  ir::Var wrong_shape("y", Tensor(5)), wrong_dtype("z", Tensor(4, ir::DataType::Int(32)));
  ir::relax::BindingBlock block(ir::Array<ir::relax::Binding>{
      ir::relax::VarBinding(wrong_shape, Op("add", {x, x}), At(3)),
      ir::relax::VarBinding(wrong_dtype, Op("add", {x, x}), At(4))});
  EXPECT_EQ(Check(Main({block}, x)),
            "3:5: 'y' is annotated R.Tensor((5,), dtype=\"float32\") but its value has type "
            "R.Tensor((4,), dtype=\"float32\") (shape (5,) vs (4,))\n"
            "4:5: 'z' is annotated R.Tensor((4,), dtype=\"int32\") but its value has type "
            "R.Tensor((4,), dtype=\"float32\") (dtype int32 vs float32)\n");
  // As in TVM, a declared return type is kept even when the body's type disagrees.
  EXPECT_EQ(Check(Main({}, x, Tensor(4, ir::DataType::Int(32)))), "");
  EXPECT_EQ(Check(Main({}, x, Tensor(4))), "");
}

TEST_F(HandBuilt, MatchCastThatCanNeverSucceed) {
  ir::Type rank2 = MakeTensorType({ir::IntImm(ir::DataType::Int(64), 2), ir::IntImm(ir::DataType::Int(64), 2)},
                                  ir::DataType::Float(32));
  ir::Var y("y", rank2);
  ir::relax::BindingBlock block(ir::Array<ir::relax::Binding>{ir::relax::MatchCast(y, x, rank2, At(3))});
  EXPECT_EQ(Check(Main({block}, y)),
            "3:5: match_cast: cannot cast a value of type R.Tensor((4,), dtype=\"float32\") to "
            "R.Tensor((2, 2), dtype=\"float32\") (rank 2 vs 1)\n");
}

TEST_F(HandBuilt, GlobalVarsNameModuleFunctions) {
  ir::Var y("y", Tensor(4));
  ir::relax::BindingBlock block(ir::Array<ir::relax::Binding>{ir::relax::VarBinding(
      y, Op("call_tir", {ir::GlobalVar("missing"), ir::relax::Tuple(ir::Array<ir::Expr>{x})}, {Tensor(4)}), At(3))});
  EXPECT_EQ(Check(Main({block}, y)), "3:5: cannot find function 'missing' in the module\n");
}

TEST_F(HandBuilt, BodyMustBeSeqExpr) {
  ir::IRModule mod = ir::IRModule::Make();
  ir::relax::Function f(ir::Array<ir::Var>{x}, x, ir::Type(), true, {}, At(2));
  mod.Add(ir::GlobalVar("main"), f);
  EXPECT_EQ(Check(mod), "2:5: the body of a Relax function must be a SeqExpr\n");
}

}  // namespace
}  // namespace kiln::relax
