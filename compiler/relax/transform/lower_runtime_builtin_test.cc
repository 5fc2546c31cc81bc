#include "compiler/relax/transform/passes.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/test_util.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. These fixtures are IR shapes rather than programs to
// run (they return uninitialized allocations, copy to a GPU device or call shape operators the CPU
// build does not legalize), so what the lowered code computes is checked end to end instead:
// tests/corpus (the Relax corpus and models against numpy) and
// compiler/driver/relax_build_e2e_test.
std::string Lower(const std::string& source, const std::string& name = "main") {
  absl::StatusOr<ir::IRModule> out = LowerRuntimeBuiltin(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "";
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return testing::PrintBody(*out, name);
}

TEST(LowerRuntimeBuiltin, AllocTensorBecomesStorageAndTensor) {
  EXPECT_EQ(Lower(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        a = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
        s = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
        t = R.memory.alloc_tensor(s, 0, R.shape([2, 3]), R.dtype("float32"))
        k = R.memory.kill_tensor(t)
        k1 = R.memory.kill_storage(s)
        return a
)"),
            R"(    storage: R.Any = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    a: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    s: R.Any = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    t: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(s, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.vm.kill_object(t)
    R.vm.kill_object(s)
    return a
)");
}

TEST(LowerRuntimeBuiltin, ShapeOperatorsAndPackedCalls) {
  EXPECT_EQ(Lower(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        s = R.shape_of(x)
        y = R.reshape(x, R.shape([6]))
        z = R.call_packed("my_func", y, 1, ty_args=R.Tensor((6,), dtype="float32"))
        t = R.shape_to_tensor(s)
        return z
)"),
            R"(    s: R.Shape([2, 3]) = R.ExternFunc("vm.builtin.shape_of")(x)
    y: R.Tensor((6,), dtype="float32") = R.ExternFunc("vm.builtin.reshape")(x, R.shape([6]))
    z: R.Tensor((6,), dtype="float32") = R.ExternFunc("my_func")(y, 1)
    t: R.Tensor((2,), dtype="int64") = R.ExternFunc("relax.run.shape_to_tensor")(s)
    return z
)");
}

TEST(LowerRuntimeBuiltin, Closures) {
  EXPECT_EQ(Lower(R"(
@I.ir_module
class Module:
    @R.function
    def add(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        c = R.make_closure(cls.add, (x,))
        r = R.invoke_closure(c, (x,), ty_args=R.Tensor((4,), dtype="float32"))
        return r
)"),
            R"(    c: R.Any = R.ExternFunc("vm.builtin.make_closure")(add, x)
    r: R.Tensor((4,), dtype="float32") = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, x), ty_args=R.Tensor((4,), dtype="float32"))
    return r
)");
}

TEST(LowerRuntimeBuiltin, ToVDeviceNamesTheDevice) {
  EXPECT_EQ(Lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.to_vdevice(x, "cuda:1")
        return y
)"),
            R"(    y: R.Tensor((4,), dtype="float32", vdevice="cuda:1") = R.ExternFunc("vm.builtin.to_device")(x, 2, 1, R.str("global"))
    return y
)");
}

TEST(LowerRuntimeBuiltin, OtherOperatorsAreLeftAlone) {
  EXPECT_EQ(Lower(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y
)"),
            R"(    y: R.Tensor((4,), dtype="float32") = R.add(x, x)
    return y
)");
}

}  // namespace
}  // namespace kiln::relax::transform
