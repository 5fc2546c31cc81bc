#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

using testing::Parse;
using testing::PrintFunction;

TEST(CallTIRRewrite, Explore) {
  ir::IRModule mod = Parse(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale_rows(a: T.handle, b: T.handle, n: T.int64):
        A = T.match_buffer(a, (n, T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            B[i, j] = A[i, j] * T.Cast("float32", i + T.int64(1))

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.scale_rows, (x, n), out_ty=R.Tensor((n, 4), dtype="float32"))
            R.output(gv)
        return gv
)");
  absl::StatusOr<ir::IRModule> a = ToNonDataflow(mod);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<ir::IRModule> b = RemovePurityChecking(*a);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<ir::IRModule> c = CallTIRRewrite(*b);
  ASSERT_TRUE(c.ok()) << c.status();
  std::cout << PrintFunction(*c) << "\n";
  EXPECT_TRUE(CheckWellFormed(*c, nullptr).ok()) << CheckWellFormed(*c, nullptr);
  absl::StatusOr<ir::IRModule> d = LowerRuntimeBuiltin(*c);
  ASSERT_TRUE(d.ok()) << d.status();
  std::cout << PrintFunction(*d) << "\n";
  EXPECT_TRUE(CheckWellFormed(*d, nullptr).ok()) << CheckWellFormed(*d, nullptr);
  absl::StatusOr<ir::IRModule> e = VMShapeLower(*d);
  ASSERT_TRUE(e.ok()) << e.status();
  std::cout << PrintFunction(*e) << "\n" << PrintFunction(*e, "shape_func") << "\n";
  EXPECT_TRUE(CheckWellFormed(*e, nullptr).ok()) << CheckWellFormed(*e, nullptr);
}

}  // namespace
}  // namespace kiln::relax::transform
