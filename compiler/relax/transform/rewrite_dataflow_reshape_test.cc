#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

constexpr char kKernels[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reshape(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), T_reshape: T.Buffer((T.int64(6),), "float32")):
        # with T.sblock("root"):
        for ax0 in range(T.int64(6)):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(T.int64(6), ax0)
                T.reads(A[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)])
                T.writes(T_reshape[v_ax0])
                T_reshape[v_ax0] = A[v_ax0 % T.int64(6) // T.int64(3), v_ax0 % T.int64(3)]

    @T.prim_func(private=True)
    def flatten_plain(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(3), T.int64(2)), "float32")):
        for i, j in T.grid(T.int64(3), T.int64(2)):
            B[i, j] = A[(i * T.int64(2) + j) // T.int64(3), (i * T.int64(2) + j) % T.int64(3)]

    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(3), T.int64(2)), "float32")):
        for i, j in T.grid(T.int64(3), T.int64(2)):
            B[i, j] = A[j, i]
)";

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. The oracle is the Relax VM: the rewritten module,
// built and run (vm_check.h), must give the values numpy's reshape and transpose give (a kernel
// taken for a reshape that is not one changes them).
absl::StatusOr<ir::IRModule> Rewritten(const std::string& main) {
  absl::StatusOr<ir::IRModule> out = RewriteDataflowReshape(testing::Parse(std::string(kKernels) + main));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Rewrite(const std::string& main) {
  absl::StatusOr<ir::IRModule> out = Rewritten(main);
  return out.ok() ? testing::PrintBody(*out) : "";
}

TEST(RewriteDataflowReshape, ReshapeKernelsInDataflowBecomeReshape) {
  const std::string main = R"(
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((6,), dtype="float32"), R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32"), R.Tensor((6,), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((6,), dtype="float32"))
            lv1 = R.call_tir(cls.flatten_plain, (x,), out_ty=R.Tensor((3, 2), dtype="float32"))
            lv2 = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((3, 2), dtype="float32"))
            gv = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((6,), dtype="float32"))
            res = (lv, lv1, lv2, gv)
            R.output(gv, lv2, res)
        return res
)";
  EXPECT_EQ(Rewrite(main),
            R"(    with R.dataflow():
        lv: R.Tensor((6,), dtype="float32") = R.reshape(x, R.shape([6]))
        lv1: R.Tensor((3, 2), dtype="float32") = R.reshape(x, R.shape([3, 2]))
        lv2 = R.call_tir(transpose, (x,), out_ty=R.Tensor((3, 2), dtype="float32"))
        gv = R.call_tir(reshape, (x,), out_ty=R.Tensor((6,), dtype="float32"))
        res: R.Tuple(R.Tensor((6,), dtype="float32"), R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32"), R.Tensor((6,), dtype="float32")) = (lv, lv1, lv2, gv)
        R.output(lv2, gv, res)
    return res
)");
  // x = [[0, 1, 2], [3, 4, 5]]: the reshapes keep the row-major order, the transpose does not.
  absl::StatusOr<ir::IRModule> out = Rewritten(main);
  ASSERT_TRUE(out.ok());
  absl::StatusOr<vm::Value> got = testing::RunAfterPass("RewriteDataflowReshape", *out, {testing::F32({2, 3}, {0, 1, 2, 3, 4, 5})});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->is_tuple() && got->as_tuple().size() == 4) << got->DebugString();
  const std::vector<float> row_major = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(testing::F32Values(got->as_tuple()[0]), row_major);
  EXPECT_EQ(testing::F32Values(got->as_tuple()[1]), row_major);
  EXPECT_EQ(testing::F32Values(got->as_tuple()[2]), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(testing::F32Values(got->as_tuple()[3]), row_major);
}

TEST(RewriteDataflowReshape, OutsideDataflowNothingChanges) {
  std::string text = Rewrite(R"(
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((6,), dtype="float32"))
        return lv
)");
  EXPECT_EQ(text.find("R.reshape("), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::relax::transform
