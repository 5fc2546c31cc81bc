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
// reading: a change detector, not an oracle. The oracle is the Relax VM: the lowered module, built
// and run (vm_check.h), must give the values the test states. The fixture copying to a CUDA
// device is an IR shape only (the CPU build has no such device); what such code computes is
// checked end to end (tests/corpus on GPU targets).
absl::StatusOr<ir::IRModule> Lowered(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = LowerRuntimeBuiltin(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Lower(const std::string& source, const std::string& name = "main") {
  absl::StatusOr<ir::IRModule> out = Lowered(source);
  return out.ok() ? testing::PrintBody(*out, name) : "";
}

// main of the lowered `source`, run on the VM with `args`.
absl::StatusOr<vm::Value> RunLowered(const std::string& source, const std::vector<vm::Value>& args) {
  absl::StatusOr<ir::IRModule> out = Lowered(source);
  if (!out.ok()) return out.status();
  return testing::RunAfterPass("LowerRuntimeBuiltin", *out, args);
}

TEST(LowerRuntimeBuiltin, AllocTensorBecomesStorageAndTensor) {
  const std::string source = R"(
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
)";
  EXPECT_EQ(Lower(source),
            R"(    storage: R.Any = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    a: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    s: R.Any = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    t: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(s, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.vm.kill_object(t)
    R.vm.kill_object(s)
    return a
)");
  // a is uninitialized: what is checked is that the allocations and kills run and that a has its
  // shape and dtype.
  absl::StatusOr<vm::Value> got = RunLowered(source, {testing::F32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got).size(), 6u);
  EXPECT_EQ(got->as_tensor().shape(), (std::vector<int64_t>{2, 3}));
}

TEST(LowerRuntimeBuiltin, ShapeOperatorsAndPackedCalls) {
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        s = R.shape_of(x)
        y = R.reshape(x, R.shape([6]))
        z = R.call_packed("vm.builtin.copy", y, ty_args=R.Tensor((6,), dtype="float32"))
        t = R.shape_to_tensor(s)
        return z
)";
  EXPECT_EQ(Lower(source),
            R"(    s: R.Shape([2, 3]) = R.ExternFunc("vm.builtin.shape_of")(x)
    y: R.Tensor((6,), dtype="float32") = R.ExternFunc("vm.builtin.reshape")(x, R.shape([6]))
    z: R.Tensor((6,), dtype="float32") = R.ExternFunc("vm.builtin.copy")(y)
    t: R.Tensor((2,), dtype="int64") = R.ExternFunc("relax.run.shape_to_tensor")(s)
    return z
)");
  absl::StatusOr<vm::Value> got = RunLowered(source, {testing::F32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(got->as_tensor().shape(), (std::vector<int64_t>{6}));
}

TEST(LowerRuntimeBuiltin, Closures) {
  // A closure's captured values are its last arguments (the VM appends them, as TVM's does): c(w)
  // calls first(w, x), which returns w.
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def first(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        c = R.make_closure(cls.first, (x,))
        r = R.invoke_closure(c, (w,), ty_args=R.Tensor((4,), dtype="float32"))
        return r
)";
  EXPECT_EQ(Lower(source),
            R"(    c: R.Any = R.ExternFunc("vm.builtin.make_closure")(first, x)
    r: R.Tensor((4,), dtype="float32") = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, w), ty_args=R.Tensor((4,), dtype="float32"))
    return r
)");
  absl::StatusOr<vm::Value> got = RunLowered(source, {testing::F32({4}, {1, 2, 3, 4}), testing::F32({4}, {5, 6, 7, 8})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{5, 6, 7, 8}));
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
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        return y
)";
  EXPECT_EQ(Lower(source),
            R"(    y: R.Tensor((4,), dtype="float32") = R.add(x, x)
    return y
)");
  // R.add needs LegalizeOps, which comes before this pass: the whole pipeline runs.
  absl::StatusOr<ir::IRModule> out = Lowered(source);
  ASSERT_TRUE(out.ok());
  absl::StatusOr<vm::Value> got = testing::RunOnVM(*out, {testing::F32({4}, {-1, 0.5f, 2, 3})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{-2, 1, 4, 6}));
}

}  // namespace
}  // namespace kiln::relax::transform
