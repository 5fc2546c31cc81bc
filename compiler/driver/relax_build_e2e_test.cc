// End to end: corpus Relax modules (../shared/corpus/relax) through BuildExecutable, serialized and
// loaded back, then run on the Relax VM (runtime/vm) with results checked against values computed
// here: fused element-wise chains, a call_tir of a hand-written PrimFunc (static, symbolic with a
// shape-heap argument, two outputs, in place), tuples in and out, If on a bool tensor, recursion
// through a GlobalVar, constants. 001 also runs from the C target. Programs of tests/script/relax
// that once reached VM codegen unlowered (a call nested in a tuple, R.call_inplace_packed) build
// for llvm and c and run there.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/value.h"
#include "runtime/vm/vm.h"
#include "tests/util/shared_dir.h"

namespace kiln::driver {
namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kI32 = {kDLInt, 32, 1};
constexpr DLDataType kBool = {runtime::kDLBoolCode, 8, 1};

template <typename T>
runtime::Tensor MakeTensor(const std::vector<int64_t>& shape, DLDataType dtype, const std::vector<T>& values) {
  absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty(shape, dtype);
  EXPECT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->nbytes(), static_cast<int64_t>(values.size() * sizeof(T)));
  std::memcpy(t->data(), values.data(), values.size() * sizeof(T));
  return *t;
}

template <typename T>
std::vector<T> Values(const vm::Value& v) {
  EXPECT_TRUE(v.is_tensor()) << v.DebugString();
  if (!v.is_tensor()) return {};
  const runtime::Tensor& t = v.as_tensor();
  std::vector<T> out(t.numel());
  std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

// Builds corpus file `name` for `target`, round-trips it through its bytes and starts a VM on it.
std::unique_ptr<vm::VirtualMachine> Load(const std::string& name, const std::string& target = "llvm") {
  absl::StatusOr<std::string> shared = kiln::testing::SharedDir();
  EXPECT_TRUE(shared.ok()) << shared.status();
  if (!shared.ok()) return nullptr;
  absl::StatusOr<vm::Executable> built = LoadOrBuildExecutable(*shared + "/corpus/relax/" + name, target);
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return nullptr;
  absl::StatusOr<vm::Executable> loaded = vm::Executable::Deserialize(built->Serialize());
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  vm::VMOptions options;
  options.num_threads = 1;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(loaded)), options);
  EXPECT_TRUE(machine.ok()) << machine.status();
  return machine.ok() ? *std::move(machine) : nullptr;
}

// Builds `path` (relative to the repository root, in the runfiles) for `target`.
std::shared_ptr<const vm::Executable> BuildRepoProgram(const std::string& path, const std::string& target) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  EXPECT_TRUE(srcdir != nullptr && workspace != nullptr) << "run under bazel test";
  if (srcdir == nullptr || workspace == nullptr) return nullptr;
  absl::StatusOr<vm::Executable> built =
      LoadOrBuildExecutable(std::string(srcdir) + "/" + workspace + "/" + path, target);
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return nullptr;
  return std::make_shared<const vm::Executable>(*std::move(built));
}

// ... and starts a VM on it.
std::unique_ptr<vm::VirtualMachine> LoadRepoProgram(const std::string& path, const std::string& target) {
  std::shared_ptr<const vm::Executable> exec = BuildRepoProgram(path, target);
  if (exec == nullptr) return nullptr;
  vm::VMOptions options;
  options.num_threads = 1;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = vm::VirtualMachine::Create(exec, options);
  EXPECT_TRUE(machine.ok()) << machine.status();
  return machine.ok() ? *std::move(machine) : nullptr;
}

TEST(RelaxBuildE2E, AddMultiply) {
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    std::unique_ptr<vm::VirtualMachine> m = Load("001_add_multiply.py", target);
    ASSERT_NE(m, nullptr);
    std::vector<float> x(32), y(32), expected(32);
    for (int i = 0; i < 32; ++i) {
      x[i] = 0.25f * i - 3;
      y[i] = 1.5f - 0.125f * i;
      expected[i] = (x[i] + y[i]) * x[i];
    }
    absl::StatusOr<vm::Value> r = m->Invoke(
        "main", {vm::Value::Tensor(MakeTensor({4, 8}, kF32, x)), vm::Value::Tensor(MakeTensor({4, 8}, kF32, y))});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values<float>(*r), expected);
  }
}

TEST(RelaxBuildE2E, NestedCallsAreNormalized) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), b: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv = R.add(x, b)
            z = R.nn.relu(R.subtract(lv, R.multiply(b, b)))
            R.output(z)
        return z
)", "nested.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<vm::Executable> exec = BuildExecutable(script::AsModule(*parsed), "llvm");
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> m =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(exec)), vm::VMOptions());
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<float> x(32), b(32), expected(32);
  for (int i = 0; i < 32; ++i) {
    x[i] = 0.5f * i - 4;
    b[i] = 0.25f * (i % 5);
    expected[i] = std::max(0.0f, x[i] + b[i] - b[i] * b[i]);
  }
  absl::StatusOr<vm::Value> r = (*m)->Invoke(
      "main", {vm::Value::Tensor(MakeTensor({4, 8}, kF32, x)), vm::Value::Tensor(MakeTensor({4, 8}, kF32, b))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), expected);
}

TEST(RelaxBuildE2E, CallTIRStatic) {
  std::unique_ptr<vm::VirtualMachine> m = Load("008_call_tir_static.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(16), expected(16);
  for (int i = 0; i < 16; ++i) x[i] = i * 0.5f, expected[i] = x[i] + 1.0f;
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(MakeTensor({16}, kF32, x))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), expected);
  // A wrong shape is caught by the parameter checks VMShapeLower adds.
  std::vector<float> short_x(8);
  r = m->Invoke("main", {vm::Value::Tensor(MakeTensor({8}, kF32, short_x))});
  EXPECT_FALSE(r.ok());
}

TEST(RelaxBuildE2E, IfOnABoolTensor) {
  std::unique_ptr<vm::VirtualMachine> m = Load("012_if_else_bool_tensor.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(8), sum(8), prod(8);
  for (int i = 0; i < 8; ++i) x[i] = i - 2.5f, sum[i] = x[i] + x[i], prod[i] = x[i] * x[i];
  for (bool c : {true, false}) {
    absl::StatusOr<vm::Value> r = m->Invoke(
        "main", {vm::Value::Tensor(MakeTensor<uint8_t>({}, kBool, {c})), vm::Value::Tensor(MakeTensor({8}, kF32, x))});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values<float>(*r), c ? sum : prod);
  }
}

TEST(RelaxBuildE2E, RecursiveFactorial) {
  std::unique_ptr<vm::VirtualMachine> m = Load("013_recursive_factorial.py");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(MakeTensor<int32_t>({}, kI32, {6})),
                                                   vm::Value::Tensor(MakeTensor<int32_t>({}, kI32, {1}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>(*r), std::vector<int32_t>{720});
}

TEST(RelaxBuildE2E, ConstantsAndBroadcast) {
  std::unique_ptr<vm::VirtualMachine> m = Load("016_const_and_broadcast.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(12), expected(12);
  for (int i = 0; i < 12; ++i) x[i] = i - 6.0f, expected[i] = std::max(x[i] * 0.5f + 2.0f, 1.0f);
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(MakeTensor({3, 4}, kF32, x))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), expected);
}

TEST(RelaxBuildE2E, SymbolicRowsThroughTheShapeHeap) {
  std::unique_ptr<vm::VirtualMachine> m = Load("009_call_tir_symbolic_prim_arg.py");
  ASSERT_NE(m, nullptr);
  for (int n : {1, 3}) {
    std::vector<float> x(n * 4), expected(n * 4);
    for (int i = 0; i < n * 4; ++i) x[i] = 0.5f * i + 1, expected[i] = x[i] * static_cast<float>(i / 4 + 1);
    absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(MakeTensor({n, 4}, kF32, x))});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->as_tensor().shape(), (std::vector<int64_t>{n, 4}));
    EXPECT_EQ(Values<float>(*r), expected);
  }
}

TEST(RelaxBuildE2E, TuplesInAndOut) {
  std::unique_ptr<vm::VirtualMachine> m = Load("010_tuple_get_item.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> a = {1, 2, 3, 4}, b = {0.5f, -1, 8, 2};
  absl::StatusOr<vm::Value> r = m->Invoke(
      "main", {vm::Value::Tuple({vm::Value::Tensor(MakeTensor({4}, kF32, a)), vm::Value::Tensor(MakeTensor({4}, kF32, b))}),
               vm::Value::Tensor(MakeTensor<float>({}, kF32, {3}))});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->is_tuple());
  ASSERT_EQ(r->as_tuple().size(), 2u);
  EXPECT_EQ(Values<float>(r->as_tuple()[0]), (std::vector<float>{0.5f, 3, -5, 2}));
  EXPECT_EQ(Values<float>(r->as_tuple()[1]), (std::vector<float>{1.5f, -3, 24, 6}));
}

TEST(RelaxBuildE2E, KernelWithTwoOutputs) {
  std::unique_ptr<vm::VirtualMachine> m = Load("021_call_tir_two_outputs.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(32), expected(4);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>((i * 7) % 11) - 5;
  for (int r = 0; r < 4; ++r) {
    float lo = x[r * 8], hi = x[r * 8];
    for (int k = 0; k < 8; ++k) lo = std::min(lo, x[r * 8 + k]), hi = std::max(hi, x[r * 8 + k]);
    expected[r] = hi - lo;
  }
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(MakeTensor({4, 8}, kF32, x))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), expected);
}

TEST(RelaxBuildE2E, InPlaceKernel) {
  std::unique_ptr<vm::VirtualMachine> m = Load("022_call_tir_inplace.py");
  ASSERT_NE(m, nullptr);
  std::vector<float> x(8), expected(8);
  for (int i = 0; i < 8; ++i) x[i] = i - 3.0f, expected[i] = (x[i] + 1) * 2;
  runtime::Tensor input = MakeTensor({8}, kF32, x);
  absl::StatusOr<vm::Value> r = m->Invoke("main", {vm::Value::Tensor(input)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), expected);
  // The in-place kernel wrote the intermediate, not the caller's input.
  EXPECT_EQ(Values<float>(vm::Value::Tensor(input)), x);
}


// tests/script/relax/004: comparisons and logical operators, the last result a call nested in the
// result tuple (`gv = lv6, R.logical_and(lv7, lv9)`): Normalize binds it so that it is legalized.
TEST(RelaxBuildE2E, ComparisonsWithACallNestedInTheResultTuple) {
  const std::vector<float> x = {1, 2, -0.5f, 4, -1, 0, 3, INFINITY, 2, 2, -3, 5, 0, 7, 1, -2};
  const std::vector<float> y = {1, 3, 2, -INFINITY, -1, 1, 2, INFINITY, 5, 2, -4, 4.5f, 0, 6, 8, -2};
  std::vector<uint8_t> first(16), second(16);
  for (int i = 0; i < 16; ++i) {
    const bool eq = x[i] == y[i], ne = x[i] != y[i], lt = x[i] < y[i], le = x[i] <= y[i];
    const bool gt = x[i] > y[i], ge = x[i] >= y[i];
    first[i] = eq && ne;
    second[i] = (lt || le) && (ge != !gt);
  }
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    std::unique_ptr<vm::VirtualMachine> m = LoadRepoProgram("tests/script/relax/004_comparison_logical.py", target);
    ASSERT_NE(m, nullptr);
    absl::StatusOr<vm::Value> r = m->Invoke(
        "main", {vm::Value::Tensor(MakeTensor({4, 4}, kF32, x)), vm::Value::Tensor(MakeTensor({4, 4}, kF32, y))});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(r->is_tuple()) << r->DebugString();
    ASSERT_EQ(r->as_tuple().size(), 2u);
    EXPECT_EQ(Values<uint8_t>(r->as_tuple()[0]), first);
    EXPECT_EQ(Values<uint8_t>(r->as_tuple()[1]), second);
  }
}

// tests/script/relax/062: R.call_inplace_packed lowers, as in TVM, to a call of the packed function
// itself (which writes into and returns the arguments it names). The program's packed functions
// are defined nowhere, so it builds, and a VM then asks for my_inplace_add by name; the in-place
// test below runs.
TEST(RelaxBuildE2E, InplacePackedCallsBuildAsPackedCalls) {
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    std::shared_ptr<const vm::Executable> exec =
        BuildRepoProgram("tests/script/relax/062_inplace_packed_pure_closure.py", target);
    ASSERT_NE(exec, nullptr);
    EXPECT_EQ(exec->func_map.count("my_inplace_add"), 1u);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> m = vm::VirtualMachine::Create(exec, vm::VMOptions());
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
    EXPECT_NE(m.status().message().find("\"my_inplace_add\""), absl::string_view::npos) << m.status();
  }
}

// R.call_inplace_packed on builtins whose results alias their arguments: the tuple of both
// arguments (vm.builtin.make_tuple) and a same-shape view (vm.builtin.reshape), then computed on.
TEST(RelaxBuildE2E, InplacePackedCallsRun) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")) = R.call_inplace_packed("vm.builtin.make_tuple", x, y, inplace_indices=[0, 1], ty_args=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        a: R.Tensor((4,), dtype="float32") = t[1]
        v: R.Tensor((4,), dtype="float32") = R.call_inplace_packed("vm.builtin.reshape", a, R.shape([4]), inplace_indices=[0], ty_args=R.Tensor((4,), dtype="float32"))
        z: R.Tensor((4,), dtype="float32") = R.subtract(t[0], R.multiply(v, v))
        return z
)", "inplace.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::vector<float> x = {1, -2, 0.5f, 8}, y = {3, 0.25f, -1, 2};
  std::vector<float> expected(4);
  for (int i = 0; i < 4; ++i) expected[i] = x[i] - y[i] * y[i];
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<vm::Executable> exec = BuildExecutable(script::AsModule(*parsed), target);
    ASSERT_TRUE(exec.ok()) << exec.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> m =
        vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(exec)), vm::VMOptions());
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<vm::Value> r =
        (*m)->Invoke("main", {vm::Value::Tensor(MakeTensor({4}, kF32, x)), vm::Value::Tensor(MakeTensor({4}, kF32, y))});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Values<float>(*r), expected);
  }
}

}  // namespace
}  // namespace kiln::driver
