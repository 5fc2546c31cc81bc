#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. The oracle is the Relax VM: the pass's output, built
// and run (vm_check.h), must give the values the test computes directly; a storage or tensor killed
// before its last use changes them or fails the run.
absl::StatusOr<ir::IRModule> Killed(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = KillAfterLastUse(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Kill(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = Killed(source);
  return out.ok() ? testing::PrintBody(*out) : "";
}

// s dies with its tensor's creation (the tensor keeps it), a after the kernel reading it last; b
// and d die inside the branch that reads them last, t in the other; e and x are results or
// parameters and stay.
constexpr char kBranches[] = R"(
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
)";

TEST(KillAfterLastUse, KillsAfterTheLastUseInEachBranch) {
  EXPECT_EQ(Kill(kBranches),
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
  // Each branch, run: b = x + 2, e = x + 4.
  absl::StatusOr<ir::IRModule> out = Killed(kBranches);
  ASSERT_TRUE(out.ok());
  const std::vector<float> x = {-1.5f, 0, 2.25f, 7};
  for (bool c : {true, false}) {
    SCOPED_TRACE(c);
    absl::StatusOr<vm::Value> got = testing::RunAfterPass("KillAfterLastUse", *out, {testing::F32({4}, x), testing::Bool(c)});
    ASSERT_TRUE(got.ok()) << got.status();
    const float add = c ? 4 : 2;
    EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{x[0] + add, x[1] + add, x[2] + add, x[3] + add}));
  }
}

}  // namespace
}  // namespace kiln::relax::transform
