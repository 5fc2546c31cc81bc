// The data-movement family against numpy: reshape/flatten, expand_dims, squeeze, permute_dims,
// broadcast_to, concat (with axis=None), stack, split (sections and indices), flip, repeat, tile,
// gather_elements, scatter_elements, one_hot, collapse_sum_to and no_grad, with a symbolic dim
// where the op allows it.
#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/testing.h"
#include "gtest/gtest.h"

namespace kiln::relax::legalize {
namespace {

using testing::CheckAgainstNumpy;
using testing::InputSpec;
using testing::Program;

std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "R.Tensor(" + shape + ", dtype=\"" + dtype + "\")";
}

struct Case {
  std::string call, out_shape, numpy;
};

TEST(ManipulateTest, ShapeOps) {
  std::vector<Case> cases = {
      {"R.reshape(x, R.shape([6, 4]))", "(6, 4)", "x.reshape(6, 4)"},
      {"R.reshape(x, R.shape([4, -1]))", "(4, 6)", "x.reshape(4, -1)"},
      {"R.flatten(x)", "(24,)", "x.reshape(-1)"},
      {"R.nn.batch_flatten(x)", "(2, 12)", "x.reshape(2, -1)"},
      {"R.expand_dims(x, axis=[0, 3])", "(1, 2, 3, 1, 4)", "x[None, :, :, None, :]"},
      {"R.permute_dims(x, axes=[2, 0, 1])", "(4, 2, 3)", "x.transpose(2, 0, 1)"},
      {"R.permute_dims(x, axes=None)", "(4, 3, 2)", "x.transpose()"},
      {"R.broadcast_to(x, R.shape([5, 2, 3, 4]))", "(5, 2, 3, 4)", "np.broadcast_to(x, (5, 2, 3, 4))"},
      {"R.flip(x, axis=1)", "(2, 3, 4)", "np.flip(x, axis=1)"},
      {"R.repeat(x, repeats=2, axis=2)", "(2, 3, 8)", "np.repeat(x, 2, axis=2)"},
      {"R.repeat(x, repeats=2, axis=None)", "(48,)", "np.repeat(x, 2)"},
      {"R.tile(x, repeats=[2, 1, 3])", "(4, 3, 12)", "np.tile(x, (2, 1, 3))"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.call);
    EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 3, 4)"), T(c.out_shape), {"gv: " + T(c.out_shape) + " = " + c.call}),
                                {{{2, 3, 4}}}, "out = " + c.numpy),
              "");
  }
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 1, 4, 1)"), T("(3, 4)"), {"gv: " + T("(3, 4)") + " = R.squeeze(x, axis=None)"}),
                              {{{3, 1, 4, 1}}}, "out = x.squeeze()"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(3, 1, 4, 1)"), T("(3, 4, 1)"), {"gv: " + T("(3, 4, 1)") + " = R.squeeze(x, axis=[1])"}),
                              {{{3, 1, 4, 1}}}, "out = x.squeeze(1)"),
            "");
  // Symbolic: reshape and transpose of an (n, 4) tensor.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(\"n\", 4)"), T("(4, n)"),
                                      {"lv: " + T("(n, 2, 2)") + " = R.reshape(x, R.shape([n, 2, 2]))",
                                       "lv1: " + T("(n, 4)") + " = R.reshape(lv, R.shape([n, 4]))",
                                       "gv: " + T("(4, n)") + " = R.permute_dims(lv1, axes=[1, 0])"}),
                              {{{5, 4}}}, "out = x.T"),
            "");
}

TEST(ManipulateTest, ConcatStackSplit) {
  std::string params = "a: " + T("(2, 3)", "int32") + ", b: " + T("(4, 3)", "int32") + ", c: " + T("(1, 3)", "int32");
  std::vector<InputSpec> specs = {{{2, 3}, "int32"}, {{4, 3}, "int32"}, {{1, 3}, "int32"}};
  EXPECT_EQ(CheckAgainstNumpy(Program(params, T("(7, 3)", "int32"), {"gv: " + T("(7, 3)", "int32") + " = R.concat((a, b, c), axis=0)"}),
                              specs, "out = np.concatenate([a, b, c], axis=0)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program(params, T("(21,)", "int32"), {"gv: " + T("(21,)", "int32") + " = R.concat((a, b, c), axis=None)"}),
                              specs, "out = np.concatenate([a.ravel(), b.ravel(), c.ravel()])"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("a: " + T("(2, 3)") + ", b: " + T("(2, 3)"), T("(2, 2, 3)"),
                                      {"gv: " + T("(2, 2, 3)") + " = R.stack((a, b), axis=1)"}),
                              {{{2, 3}}, {{2, 3}}}, "out = np.stack([a, b], axis=1)"),
            "");
  std::string parts = "R.Tuple(" + T("(2, 2)") + ", " + T("(2, 3)") + ", " + T("(2, 1)") + ")";
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 6)"), parts,
                                      {"gv: " + parts + " = R.split(x, indices_or_sections=[2, 5], axis=1)"}),
                              {{{2, 6}}}, "out = tuple(np.split(x, [2, 5], axis=1))"),
            "");
  std::string thirds = "R.Tuple(" + T("(2, 4)") + ", " + T("(2, 4)") + ", " + T("(2, 4)") + ")";
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(6, 4)"), thirds,
                                      {"gv: " + thirds + " = R.split(x, indices_or_sections=3, axis=0)"}),
                              {{{6, 4}}}, "out = tuple(np.split(x, 3, axis=0))"),
            "");
  // Symbolic concat: n is bound by the inputs' shapes.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(\"n\", 2)") + ", y: " + T("(3, 2)"), T("(n + 3, 2)"),
                                      {"gv: " + T("(n + 3, 2)") + " = R.concat((x, y), axis=0)"}),
                              {{{4, 2}}, {{3, 2}}}, "out = np.concatenate([x, y])"),
            "");
}

TEST(ManipulateTest, GatherScatterOneHot) {
  // Indices in [-5, 5) into an axis of extent 5: negative ones count from the end.
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(5, 4)") + ", i: " + T("(3, 4)", "int64"), T("(3, 4)"),
                                      {"gv: " + T("(3, 4)") + " = R.gather_elements(x, i, axis=0)"}),
                              {{{5, 4}}, {{3, 4}, "int64"}}, "out = np.take_along_axis(x, i % 5, axis=0)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(5, 4)") + ", i: " + T("(2, 4)", "int64") + ", u: " + T("(2, 4)"), T("(5, 4)"),
                                      {"gv: " + T("(5, 4)") + " = R.scatter_elements(x, i, u, axis=0, reduction=\"add\")"}),
                              {{{5, 4}}, {{2, 4}, "int64"}, {{2, 4}}},
                              "out = x.copy()\nnp.add.at(out, (i % 5, np.arange(4)[None, :].repeat(2, 0)), u)"),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("i: " + T("(6,)", "int32"), T("(6, 5)"),
                                      {"gv: " + T("(6, 5)") + " = R.one_hot(i, R.prim_value(T.float32(1.0)), R.prim_value(T.float32(0.0)), depth=5, axis=-1)"}),
                              {{{6}, "int32"}}, "out = (i[:, None] == np.arange(5)[None, :]).astype('float32')"),
            "");
}

TEST(ManipulateTest, Meshgrid) {
  for (const char* indexing : {"ij", "xy"}) {
    SCOPED_TRACE(indexing);
    bool xy = std::string(indexing) == "xy";
    std::string shape = xy ? "(4, 3)" : "(3, 4)";
    std::string ret = "R.Tuple(" + T(shape) + ", " + T(shape) + ")";
    EXPECT_EQ(CheckAgainstNumpy(Program("a: " + T("(3,)") + ", b: " + T("(4,)"), ret,
                                        {"gv: " + ret + " = R.meshgrid((a, b), indexing=\"" + indexing + "\")"}),
                                {{{3}}, {{4}}}, std::string("out = tuple(np.meshgrid(a, b, indexing='") + indexing + "'))"),
              "");
  }
}

TEST(ManipulateTest, CollapseSumAndIdentities) {
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(2, 3, 4)"), T("(3, 1)"),
                                      {"gv: " + T("(3, 1)") + " = R.collapse_sum_to(x, R.shape([3, 1]))"}),
                              {{{2, 3, 4}}}, "out = x.sum(axis=(0, 2))[:, None]", 1e-5, 1e-5),
            "");
  EXPECT_EQ(CheckAgainstNumpy(Program("x: " + T("(4,)"), T("(4,)"),
                                      {"lv: " + T("(4,)") + " = R.grad.no_grad(x)", "gv: " + T("(4,)") + " = R.exp(lv)"}),
                              {{{4}}}, "out = np.exp(x)"),
            "");
}

}  // namespace
}  // namespace kiln::relax::legalize
