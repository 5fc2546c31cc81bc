// The reduction family against numpy: sum/prod/max/min/mean/variance/std over one, several or all
// axes with and without keepdims, argmax/argmin, cumsum/cumprod (axis, flattened, exclusive), and
// sort/argsort/topk, including an integer dtype and a symbolic dim.
#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::Program;

std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")";
}

struct Case {
  std::string call, out_shape, numpy;
};

TEST(ReduceTest, ReductionsOverAxes) {
  std::vector<Case> cases = {
      {"R.sum(x, axis=[1], keepdims=False)", "(3, 5)", "x.sum(axis=1)"},
      {"R.sum(x, axis=[0, 2], keepdims=True)", "(1, 4, 1)", "x.sum(axis=(0, 2), keepdims=True)"},
      {"R.sum(x, axis=None, keepdims=False)", "()", "x.sum()"},
      {"R.prod(x, axis=[2], keepdims=False)", "(3, 4)", "x.prod(axis=2)"},
      {"R.max(x, axis=[-1], keepdims=False)", "(3, 4)", "x.max(axis=-1)"},
      {"R.min(x, axis=[0], keepdims=True)", "(1, 4, 5)", "x.min(axis=0, keepdims=True)"},
      {"R.mean(x, axis=[1, 2], keepdims=False)", "(3,)", "x.mean(axis=(1, 2))"},
      {"R.variance(x, axis=[1], keepdims=True)", "(3, 1, 5)", "x.var(axis=1, keepdims=True)"},
      {"R.std(x, axis=None, keepdims=False)", "()", "x.std()"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.call);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4, 5)"), T(c.out_shape), {"gv: " + T(c.out_shape) + " = " + c.call}),
                                {{{3, 4, 5}}}, "out = np.asarray(" + c.numpy + ", dtype='float32')", 1e-5, 1e-5),
              "");
  }
  // Integers and a symbolic dim.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(\"n\", 6)", "int32"), T("(n,)", "int32"),
                                      {"gv: " + T("(n,)", "int32") + " = R.sum(x, axis=[1], keepdims=False)"}),
                              {{{7, 6}, "int32"}}, "out = x.sum(axis=1).astype('int32')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 6)", "int64"), T("(6,)", "int64"),
                                      {"gv: " + T("(6,)", "int64") + " = R.max(x, axis=[0], keepdims=False)"}),
                              {{{4, 6}, "int64"}}, "out = x.max(axis=0)"),
            "");
}

TEST(ReduceTest, ArgmaxArgmin) {
  std::vector<Case> cases = {
      {"R.argmax(x, axis=1, keepdims=False)", "(3, 5)", "np.argmax(x, axis=1)"},
      {"R.argmin(x, axis=-1, keepdims=True)", "(3, 4, 1)", "np.argmin(x, axis=-1)[..., None]"},
      {"R.argmax(x, axis=None, keepdims=False)", "()", "np.argmax(x)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.call);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4, 5)"), T(c.out_shape, "int64"),
                                        {"gv: " + T(c.out_shape, "int64") + " = " + c.call}),
                                {{{3, 4, 5}}}, "out = np.asarray(" + c.numpy + ", dtype='int64')"),
              "");
  }
  // Ties resolve to the first occurrence, as numpy's.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 9)", "int32"), T("(4,)", "int64"),
                                      {"gv: " + T("(4,)", "int64") + " = R.argmax(x, axis=1, keepdims=False)"}),
                              {{{4, 9}, "int32"}}, "out = np.argmax(x, axis=1)"),
            "");
}

TEST(ReduceTest, Scans) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 6)"), T("(3, 6)"),
                                      {"gv: " + T("(3, 6)") + " = R.cumsum(x, axis=1, dtype=\"float32\", exclusive=False)"}),
                              {{{3, 6}}}, "out = np.cumsum(x, axis=1, dtype='float32')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 4)", "int32"), T("(12,)", "int64"),
                                      {"gv: " + T("(12,)", "int64") + " = R.cumsum(x, axis=None, dtype=\"int64\", exclusive=False)"}),
                              {{{3, 4}, "int32"}}, "out = np.cumsum(x, dtype='int64')"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4, 3)"), T("(4, 3)"),
                                      {"gv: " + T("(4, 3)") + " = R.cumsum(x, axis=0, dtype=\"float32\", exclusive=True)"}),
                              {{{4, 3}}}, "out = np.concatenate([np.zeros((1, 3), 'float32'), np.cumsum(x, axis=0)[:-1]])"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 5)"), T("(2, 5)"),
                                      {"gv: " + T("(2, 5)") + " = R.cumprod(x, axis=1, dtype=\"float32\", exclusive=False)"}),
                              {{{2, 5}}}, "out = np.cumprod(x, axis=1, dtype='float32')"),
            "");
}

TEST(ReduceTest, SortArgsortTopk) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 7)"), T("(3, 7)"),
                                      {"gv: " + T("(3, 7)") + " = R.sort(x, axis=-1, descending=False)"}),
                              {{{3, 7}}}, "out = np.sort(x, axis=-1)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(5, 3)"), T("(5, 3)"),
                                      {"gv: " + T("(5, 3)") + " = R.sort(x, axis=0, descending=True)"}),
                              {{{5, 3}}}, "out = -np.sort(-x, axis=0)"),
            "");
  // Integer ties keep their order (stable), as numpy's stable argsort.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 9)", "int32"), T("(2, 9)", "int32"),
                                      {"gv: " + T("(2, 9)", "int32") + " = R.argsort(x, axis=-1, descending=False, dtype=\"int32\")"}),
                              {{{2, 9}, "int32"}}, "out = np.argsort(x, axis=-1, kind='stable').astype('int32')"),
            "");
  std::string both = "R.Tuple(" + T("(3, 2)") + ", " + T("(3, 2)", "int64") + ")";
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 6)"), both,
                                      {"gv: " + both + " = R.topk(x, k=2, axis=-1, ret_type=\"both\", largest=True, dtype=\"int64\")"}),
                              {{{3, 6}}},
                              "i = np.argsort(-x, axis=-1, kind='stable')[:, :2]\n"
                              "out = (np.take_along_axis(x, i, axis=-1), i.astype('int64'))"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(6,)"), T("(3,)"),
                                      {"gv: " + T("(3,)") + " = R.topk(x, k=3, axis=0, ret_type=\"values\", largest=False, dtype=\"int32\")"}),
                              {{{6}}}, "out = np.sort(x)[:3]"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
