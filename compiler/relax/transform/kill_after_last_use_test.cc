#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. What the lowered code computes is checked end to end:
// tests/corpus (the Relax corpus and models through the whole pipeline, against numpy) and
// compiler/driver/relax_build_e2e_test.
std::string Kill(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = KillAfterLastUse(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "";
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return testing::PrintBody(*out);
}

// s dies with its tensor's creation (the tensor keeps it), a after the kernel reading it last; b
// and d die inside the branch that reads them last, t in the other; e and x are results or
// parameters and stay.
TEST(KillAfterLastUse, KillsAfterTheLastUseInEachBranch) {
  EXPECT_EQ(Kill(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        s = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
        a = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"))
        _1 = cls.inc(x, a)
        b = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        _2 = cls.inc(a, b)
        t = (b, x)
        if c:
            d = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
            _3 = cls.inc(b, d)
            e = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
            _4 = cls.inc(d, e)
            r = e
        else:
            u = t[0]
            r = u
        return r
)"),
            R"(    s: R.Any = R.memory.alloc_storage(R.shape([16]), 0, R.str("global"), R.dtype("float32"))
    a: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(s, 0, R.shape([4]), R.dtype("float32"), 0)
    R.memory.kill_storage(s)
    inc(x, a)
    b: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
    inc(a, b)
    R.memory.kill_tensor(a)
    t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = (b, x)
    if c:
        d: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        inc(b, d)
        R.memory.kill_tensor(b)
        e: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
        inc(d, e)
        R.memory.kill_tensor(d)
        r: R.Tensor((4,), dtype="float32") = e
    else:
        u: R.Tensor((4,), dtype="float32") = t[0]
        R.vm.kill_object(t)
        r: R.Tensor((4,), dtype="float32") = u
    return r
)");
}

}  // namespace
}  // namespace kiln::relax::transform
