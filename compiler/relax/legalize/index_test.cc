// The indexing family against numpy: take (axis, axis=None, clip and wrap modes), strided_slice
// (negative begins, steps, reversed) and where (broadcast condition and branches).
#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::Program;

std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")";
}

TEST(IndexTest, Take) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 5)") + ", i: " + T("(2, 3)", "int64"), T("(4, 2, 3)"),
                                      {"gv: " + T("(4, 2, 3)") + " = R.take(x, i, axis=1, mode=\"wrap\")"}),
                              {{{4, 5}}, {{2, 3}, "int64"}}, "out = np.take(x, i, axis=1, mode='wrap')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 5)") + ", i: " + T("(6,)", "int32"), T("(6, 5)"),
                                      {"gv: " + T("(6, 5)") + " = R.take(x, i, axis=0, mode=\"clip\")"}),
                              {{{4, 5}}, {{6}, "int32"}}, "out = np.take(x, i, axis=0, mode='clip')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 5)") + ", i: " + T("(7,)", "int64"), T("(7,)"),
                                      {"gv: " + T("(7,)") + " = R.take(x, i, axis=None, mode=\"wrap\")"}),
                              {{{4, 5}}, {{7}, "int64"}}, "out = np.take(x, i, mode='wrap')"),
            "");
}

TEST(IndexTest, StridedSlice) {
  struct Case {
    std::string args, out_shape, numpy;
  };
  std::vector<Case> cases = {
      {"(R.prim_value(1),), (R.prim_value(1),), (R.prim_value(5),)", "(6, 4)", "x[:, 1:5]"},
      {"(R.prim_value(0), R.prim_value(1)), (R.prim_value(-4), R.prim_value(0)), (R.prim_value(100), R.prim_value(8)), "
       "(R.prim_value(2), R.prim_value(3))",
       "(2, 3)", "x[-4::2, 0:8:3]"},
      {"(R.prim_value(1),), (R.prim_value(6),), (R.prim_value(-100),), (R.prim_value(-2),)", "(6, 4)", "x[:, 6::-2]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.numpy);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(6, 8)"), T(c.out_shape),
                                        {"gv: " + T(c.out_shape) + " = R.strided_slice(x, " + c.args + ")"}),
                                {{{6, 8}}}, "out = " + c.numpy),
              "");
  }
}

TEST(IndexTest, Where) {
  EXPECT_EQ(CheckAgainstNumpy(Program("c: " + T("(3, 1)", "bool") + ", x: " + T("(3, 4)") + ", y: " + T("(4,)"), T("(3, 4)"),
                                      {"gv: " + T("(3, 4)") + " = R.where(c, x, y)"}),
                              {{{3, 1}, "bool"}, {{3, 4}}, {{4}}}, "out = np.where(c, x, y)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(5,)", "int32") + ", y: " + T("(5,)", "int32"), T("(5,)", "int32"),
                                      {"c: " + T("(5,)", "bool") + " = R.greater(x, y)",
                                       "gv: " + T("(5,)", "int32") + " = R.where(c, x, y)"}),
                              {{{5}, "int32"}, {{5}, "int32"}}, "out = np.where(x > y, x, y)"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
