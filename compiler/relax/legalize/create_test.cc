// The creation family against numpy: full (tensor and prim fill values), zeros/ones and the *_like
// forms, arange (int and float), eye, tril/triu with offsets, and a symbolic shape that only a
// prim argument of the kernel can carry (n * 2 is no buffer dim it could be bound from).
#include "compiler/ir/structural.h"
#include "compiler/relax/legalize/legalize.h"
#include "compiler/relax/legalize/testing.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::Program;

std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")";
}

TEST(CreateTest, FillOps) {
  EXPECT_EQ(CheckAgainstNumpy(Program("v: " + T("()"), T("(2, 3)"),
                                      {"gv: " + T("(2, 3)") + " = R.full(R.shape([2, 3]), v, dtype=\"float32\")"}),
                              {{{}}}, "out = np.full((2, 3), v, 'float32')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4,)", "int32"), T("(4,)", "int32"),
                                      {"lv: " + T("(4,)", "int32") + " = R.full_like(x, R.prim_value(7), dtype=\"void\")",
                                       "lv1: " + T("(4,)", "int32") + " = R.ones_like(x, dtype=\"void\")",
                                       "lv2: " + T("(4,)", "int32") + " = R.add(lv, lv1)",
                                       "lv3: " + T("(4,)", "int32") + " = R.zeros(R.shape([4]), dtype=\"int32\")",
                                       "gv: " + T("(4,)", "int32") + " = R.add(lv2, lv3)"}),
                              {{{4}, "int32"}}, "out = np.full(4, 8, 'int32')"),
            "");
}

TEST(CreateTest, ArangeAndEye) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1,)"), T("(5,)", "int64"),
                                      {"gv: " + T("(5,)", "int64") + " = R.arange(R.prim_value(3), R.prim_value(13), R.prim_value(2), dtype=\"int64\")"}),
                              {{{1}}}, "out = np.arange(3, 13, 2, dtype='int64')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1,)"), T("(4,)"),
                                      {"gv: " + T("(4,)") + " = R.arange(R.prim_value(T.float32(0.5)), R.prim_value(T.float32(2.5)), R.prim_value(T.float32(0.5)), dtype=\"float32\")"}),
                              {{{1}}}, "out = np.arange(0.5, 2.5, 0.5, dtype='float32')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(1,)"), T("(3, 4)"),
                                      {"gv: " + T("(3, 4)") + " = R.eye(R.prim_value(3), R.prim_value(4), R.prim_value(1), dtype=\"float32\")"}),
                              {{{1}}}, "out = np.eye(3, 4, 1, dtype='float32')"),
            "");
}

TEST(CreateTest, TrilTriu) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 4, 5)"), T("(2, 4, 5)"), {"gv: " + T("(2, 4, 5)") + " = R.tril(x, R.prim_value(1))"}),
                              {{{2, 4, 5}}}, "out = np.tril(x, 1)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 5)"), T("(4, 5)"), {"gv: " + T("(4, 5)") + " = R.triu(x, R.prim_value(-1))"}),
                              {{{4, 5}}}, "out = np.triu(x, -1)"),
            "");
}

TEST(CreateTest, SymbolicDimWithoutABufferIsAPrimArgument) {
  std::string src = Program("x: " + T("(\"n\",)"), T("(n * 2,)"),
                            {"gv: " + T("(n * 2,)") + " = R.zeros(R.shape([n * 2]), dtype=\"float32\")"});
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(src, "t.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<ir::IRModule> out = LegalizeOps(script::AsModule(*parsed));
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = script::printer::Print(*out);
  EXPECT_NE(text.find("R.call_tir(cls.zeros, (n,), out_ty=R.Tensor((n * 2,), dtype=\"float32\"))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("def zeros(T_zeros: T.handle, n: T.int64)"), std::string::npos) << text;
  // The parameter reads back as the parser makes it (an annotated var).
  absl::StatusOr<ir::ObjectRef> reparsed = script::ParseScript(text, "printed.py");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_TRUE(ir::StructuralEqual(script::AsModule(*reparsed), *out)) << text;
  EXPECT_EQ(CheckAgainstNumpy(src, {{{3}}}, "out = np.zeros(6, 'float32')"), "");
}

}  // namespace
}  // namespace kiln::relax::legalize
