// The elementwise family against numpy: unary math, binary arithmetic with broadcasting (shapes,
// scalars, symbolic dims), integer division and modulo semantics, comparisons, logical and bitwise
// ops, and astype, in several dtypes, on the interpreter and LLVM.
#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::InputSpec;
using testing::Program;

std::string F32(const std::string& shape) { return "R.Tensor(" + shape + ", dtype=\"float32\")"; }

struct UnaryCase {
  std::string op, numpy;
};

TEST(ElementwiseTest, UnaryMathMatchesNumpy) {
  std::vector<UnaryCase> cases = {
      {"exp", "np.exp(x)"},
      {"log", "np.log(x)"},
      {"sqrt", "np.sqrt(x)"},
      {"rsqrt", "1 / np.sqrt(x)"},
      {"sigmoid", "1 / (1 + np.exp(-x))"},
      {"tanh", "np.tanh(x)"},
      {"sin", "np.sin(x)"},
      {"cos", "np.cos(x)"},
      {"tan", "np.tan(x)"},
      {"asin", "np.arcsin(x)"},
      {"acos", "np.arccos(x)"},
      {"atan", "np.arctan(x)"},
      {"sinh", "np.sinh(x)"},
      {"cosh", "np.cosh(x)"},
      {"asinh", "np.arcsinh(x)"},
      {"acosh", "np.arccosh(x)"},
      {"atanh", "np.arctanh(x)"},
      {"erf", "import math\nout = np.vectorize(math.erf)(x).astype('float32')"},
      {"abs", "np.abs(x)"},
      {"negative", "-x"},
      {"floor", "np.floor(x)"},
      {"ceil", "np.ceil(x)"},
      {"trunc", "np.trunc(x)"},
      {"round", "np.round(x)"},
      {"sign", "np.sign(x)"},
      {"square", "x * x"},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.op);
    std::string code = c.numpy.find("out =") != std::string::npos ? c.numpy : "out = " + c.numpy;
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(3, 5)"), F32("(3, 5)"),
                                        {"gv: " + F32("(3, 5)") + " = R." + c.op + "(x)"}),
                                {{{3, 5}}}, code, 1e-5, 1e-6),
              "");
  }
}

TEST(ElementwiseTest, UnaryOnOtherDtypes) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: R.Tensor((6,), dtype=\"float64\")", "R.Tensor((6,), dtype=\"float64\")",
                                      {"gv: R.Tensor((6,), dtype=\"float64\") = R.exp(x)"}),
                              {{{6}, "float64"}}, "out = np.exp(x)", 1e-12, 1e-12),
            "");
  for (const char* op : {"abs", "negative", "sign", "square"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: R.Tensor((7,), dtype=\"int32\")", "R.Tensor((7,), dtype=\"int32\")",
                                        {absl::StrCat("gv: R.Tensor((7,), dtype=\"int32\") = R.", op, "(x)")}),
                                {{{7}, "int32"}},
                                absl::StrCat("out = ", std::string(op) == "negative" ? "-x"
                                                       : std::string(op) == "square" ? "x * x"
                                                                                     : absl::StrCat("np.", op, "(x)"))),
              "");
  }
  EXPECT_EQ(CheckAgainstNumpy(Program("x: R.Tensor((7,), dtype=\"int32\")", "R.Tensor((7,), dtype=\"int32\")",
                                      {"gv: R.Tensor((7,), dtype=\"int32\") = R.bitwise_not(x)"}),
                              {{{7}, "int32"}}, "out = ~x"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: R.Tensor((7,), dtype=\"bool\")", "R.Tensor((7,), dtype=\"bool\")",
                                      {"gv: R.Tensor((7,), dtype=\"bool\") = R.logical_not(x)"}),
                              {{{7}, "bool"}}, "out = ~x"),
            "");
}

TEST(ElementwiseTest, PredicatesAndClip) {
  std::string body = "lv: " + F32("(8,)") + " = R.log(x)";
  for (const char* op : {"isnan", "isinf", "isfinite"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(8,)"), "R.Tensor((8,), dtype=\"bool\")",
                                        {body, absl::StrCat("gv: R.Tensor((8,), dtype=\"bool\") = R.", op, "(lv)")}),
                                {{{8}}}, absl::StrCat("out = np.", op, "(np.log(x))")),
              "");
  }
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(8,)"), F32("(8,)"),
                                      {"gv: " + F32("(8,)") + " = R.clip(x, R.prim_value(-1), R.prim_value(1))"}),
                              {{{8}}}, "out = np.clip(x, -1, 1)"),
            "");
}

struct BinaryCase {
  std::string op, numpy;
};

TEST(ElementwiseTest, BinaryBroadcasting) {
  std::vector<BinaryCase> cases = {
      {"add", "x + y"},         {"subtract", "x - y"},      {"multiply", "x * y"},
      {"divide", "x / y"},      {"maximum", "np.maximum(x, y)"}, {"minimum", "np.minimum(x, y)"},
      {"power", "np.power(np.abs(x), y)"}, {"atan2", "np.arctan2(x, y)"}, {"log_add_exp", "np.logaddexp(x, y)"},
      {"floor_divide", "np.floor_divide(x, y)"}, {"floor_mod", "np.mod(x, y)"}, {"mod", "np.fmod(x, y)"},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(c.op);
    std::vector<std::string> body;
    std::string lhs = "x";
    if (c.op == "power") {
      body.push_back("ax: " + F32("(2, 3, 4)") + " = R.abs(x)");
      lhs = "ax";
    }
    body.push_back("gv: " + F32("(2, 3, 4)") + " = R." + c.op + "(" + lhs + ", y)");
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(2, 3, 4)") + ", y: " + F32("(3, 1)"), F32("(2, 3, 4)"), body),
                                {{{2, 3, 4}}, {{3, 1}}}, "out = " + c.numpy, 1e-5, 1e-5),
              "");
  }
  // Both operands broadcast; a constant scalar.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(4, 1)") + ", y: " + F32("(1, 5)"), F32("(4, 5)"),
                                      {"lv: " + F32("(4, 5)") + " = R.multiply(x, y)",
                                       "gv: " + F32("(4, 5)") + " = R.add(lv, R.const(0.5, \"float32\"))"}),
                              {{{4, 1}}, {{1, 5}}}, "out = x * y + np.float32(0.5)"),
            "");
}

TEST(ElementwiseTest, IntegerDivisionSemantics) {
  // Divisors y*y+1 are never zero.
  for (const BinaryCase& c : std::vector<BinaryCase>{{"divide", "np.fix(x / d).astype('int32')"},
                                                     {"floor_divide", "np.floor_divide(x, d)"},
                                                     {"floor_mod", "np.mod(x, d)"},
                                                     {"mod", "np.fmod(x, d)"}}) {
    SCOPED_TRACE(c.op);
    std::string t = "R.Tensor((12,), dtype=\"int32\")";
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + t + ", y: " + t, t,
                                        {"sq: " + t + " = R.multiply(y, y)",
                                         "d: " + t + " = R.add(sq, R.const(1, \"int32\"))",
                                         "gv: " + t + " = R." + c.op + "(x, d)"}),
                                {{{12}, "int32"}, {{12}, "int32"}}, "d = y * y + 1\nout = " + c.numpy),
              "");
  }
}

TEST(ElementwiseTest, IntegerBitwiseAndShifts) {
  std::string t = "R.Tensor((9,), dtype=\"int32\")";
  for (const BinaryCase& c : std::vector<BinaryCase>{{"bitwise_and", "x & y"},
                                                     {"bitwise_or", "x | y"},
                                                     {"bitwise_xor", "x ^ y"},
                                                     {"left_shift", "x << np.abs(y)"},
                                                     {"right_shift", "x >> np.abs(y)"}}) {
    SCOPED_TRACE(c.op);
    std::vector<std::string> body = {"ay: " + t + " = R.abs(y)", "gv: " + t + " = R." + c.op + "(x, ay)"};
    std::string code = c.numpy;
    if (c.op.find("shift") == std::string::npos) code = c.numpy.substr(0, c.numpy.size() - 1) + "np.abs(y)";
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + t + ", y: " + t, t, body), {{{9}, "int32"}, {{9}, "int32"}},
                                "out = " + code),
              "");
  }
}

TEST(ElementwiseTest, ComparisonsAndLogical) {
  std::string b = "R.Tensor((3, 4), dtype=\"bool\")";
  for (const BinaryCase& c : std::vector<BinaryCase>{{"equal", "x == np.round(y)"},
                                                     {"not_equal", "x != np.round(y)"},
                                                     {"less", "x < np.round(y)"},
                                                     {"less_equal", "x <= np.round(y)"},
                                                     {"greater", "x > np.round(y)"},
                                                     {"greater_equal", "x >= np.round(y)"}}) {
    SCOPED_TRACE(c.op);
    // Rounded operands make equality happen.
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(3, 4)") + ", y: " + F32("(4,)"), b,
                                        {"rx: " + F32("(3, 4)") + " = R.round(x)",
                                         "ry: " + F32("(4,)") + " = R.round(y)",
                                         "gv: " + b + " = R." + c.op + "(rx, ry)"}),
                                {{{3, 4}}, {{4}}}, "x = np.round(x)\nout = " + c.numpy),
              "");
  }
  for (const BinaryCase& c : std::vector<BinaryCase>{{"logical_and", "x & y"},
                                                     {"logical_or", "x | y"},
                                                     {"logical_xor", "x ^ y"}}) {
    SCOPED_TRACE(c.op);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + b + ", y: " + b, b, {"gv: " + b + " = R." + c.op + "(x, y)"}),
                                {{{3, 4}, "bool"}, {{3, 4}, "bool"}}, "out = " + c.numpy),
              "");
  }
}

TEST(ElementwiseTest, Astype) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + F32("(10,)"), "R.Tensor((10,), dtype=\"int32\")",
                                      {"lv: " + F32("(10,)") + " = R.multiply(x, R.const(3.0, \"float32\"))",
                                       "gv: R.Tensor((10,), dtype=\"int32\") = R.astype(lv, dtype=\"int32\")"}),
                              {{{10}}}, "out = (x * np.float32(3)).astype('int32')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: R.Tensor((10,), dtype=\"int64\")", "R.Tensor((10,), dtype=\"float64\")",
                                      {"gv: R.Tensor((10,), dtype=\"float64\") = R.astype(x, dtype=\"float64\")"}),
                              {{{10}, "int64"}}, "out = x.astype('float64')"),
            "");
}

TEST(ElementwiseTest, QuantizeDequantize) {
  std::string params = "x: " + F32("(3, 4)") + ", s: " + F32("(4,)") + ", z: R.Tensor((4,), dtype=\"int8\")";
  std::string q = "R.Tensor((3, 4), dtype=\"int8\")";
  EXPECT_EQ(CheckAgainstNumpy(Program(params, q,
                                      {"abs_s: " + F32("(4,)") + " = R.abs(s)",
                                       "sc: " + F32("(4,)") + " = R.multiply(abs_s, R.const(0.01, \"float32\"))",
                                       "gv: " + q + " = R.quantize(x, sc, z, out_dtype=\"int8\", axis=1)"}),
                              {{{3, 4}}, {{4}}, {{4}, "int8"}},
                              "sc = np.abs(s) * np.float32(0.01)\n"
                              "out = np.clip(np.round(x / sc) + z, -128, 127).astype('int8')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + q + ", s: " + F32("()") + ", z: R.Tensor((), dtype=\"int8\")", F32("(3, 4)"),
                                      {"gv: " + F32("(3, 4)") + " = R.dequantize(x, s, z, out_dtype=\"float32\", axis=-1)"}),
                              {{{3, 4}, "int8"}, {{}}, {{}, "int8"}},
                              "out = ((x.astype('float32') - z) * s).astype('float32')"),
            "");
}

TEST(ElementwiseTest, SymbolicShapesFlowThrough) {
  std::string t = "R.Tensor((\"n\", 4), dtype=\"float32\")";
  std::string tn = "R.Tensor((n, 4), dtype=\"float32\")";
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + t + ", b: " + F32("(4,)"), t,
                                      {"lv: " + tn + " = R.add(x, b)", "gv: " + tn + " = R.exp(lv)"}),
                              {{{5, 4}}, {{4}}}, "out = np.exp(x + b)"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
