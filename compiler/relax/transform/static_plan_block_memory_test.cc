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
// reading: a change detector, not an oracle. The oracle is Computes: where a fixture is a program
// to run, the planned module, built and run on the Relax VM (vm_check.h), must give the values the
// test computes directly; a storage reused while a tensor in it is still live changes them, and
// one smaller than a tensor placed in it fails the run. The fixtures that call a packed function
// no library defines or recurse without a base case are IR shapes only; what such code computes
// is checked end to end (tests/corpus against numpy, compiler/driver/relax_build_e2e_test).
absl::StatusOr<ir::IRModule> Planned(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = CallTIRRewrite(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  out = StaticPlanBlockMemory(*out);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status wf = CheckWellFormed(*out, nullptr);
  EXPECT_TRUE(wf.ok()) << wf;
  return out;
}

std::string Plan(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = Planned(source);
  return out.ok() ? testing::PrintBody(*out) : "";
}

std::vector<float> Ramp(int n, float start, float step) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + step * i;
  return v;
}

// main(x) of the planned `source`, run on the VM with x = Ramp(n, -2, 0.75), must return x + add.
void Computes(const std::string& source, int n, float add) {
  absl::StatusOr<ir::IRModule> out = Planned(source);
  ASSERT_TRUE(out.ok());
  absl::StatusOr<vm::Value> got = testing::RunAfterPass("StaticPlanBlockMemory", *out, {testing::F32({n}, Ramp(n, -2, 0.75f))});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), Ramp(n, -2 + add, 0.75f));
}

constexpr char kKernels[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def inc(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func(private=True)
    def inc_big(A: T.Buffer((16,), "float32"), B: T.Buffer((32,), "float32")):
        for i in range(16):
            B[i] = A[i]

    @T.prim_func(private=True)
    def split(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i]
            C[i] = A[i]

    @T.prim_func(private=True)
    def inc_n(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            B[i] = A[i]
)";

TEST(StaticPlanBlockMemory, ReusesStorageAfterTheLastUse) {
  // lv0 is last read by the call making lv1, so lv2 takes its storage; gv is returned and keeps
  // its own allocation.
  const std::string source = std::string(kKernels) + R"(
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        lv0 = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
        lv1 = R.call_tir(cls.inc, (lv0,), out_ty=R.Tensor((16,), dtype="float32"))
        lv2 = R.call_tir(cls.inc, (lv1,), out_ty=R.Tensor((16,), dtype="float32"))
        gv = R.call_tir(cls.inc, (lv2,), out_ty=R.Tensor((16,), dtype="float32"))
        return gv
)";
  EXPECT_EQ(Plan(source),
            R"(    storage: R.Any = R.memory.alloc_storage(R.shape([64]), 0, R.str("global"), R.dtype("float32"))
    alloc: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([16]), R.dtype("float32"), 0)
    inc(x, alloc)
    storage_1: R.Any = R.memory.alloc_storage(R.shape([64]), 0, R.str("global"), R.dtype("float32"))
    alloc_1: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage_1, 0, R.shape([16]), R.dtype("float32"), 0)
    inc(alloc, alloc_1)
    alloc_2: R.Tensor((16,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([16]), R.dtype("float32"), 0)
    inc(alloc_1, alloc_2)
    alloc_3: R.Tensor((16,), dtype="float32") = R.builtin.alloc_tensor(R.shape([16]), R.dtype("float32"), 0, R.str("global"))
    inc(alloc_2, alloc_3)
    return alloc_3
)");
  Computes(source, 16, 4);
}

TEST(StaticPlanBlockMemory, GrowsASmallerStorage) {
  // lv1 (128 bytes) reuses lv0's 64-byte storage, which is allocated at 128 bytes.
  const std::string source = std::string(kKernels) + R"(
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        lv0 = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
        lv1 = R.call_tir(cls.inc, (lv0,), out_ty=R.Tensor((16,), dtype="float32"))
        lv2 = R.call_tir(cls.inc_big, (lv1,), out_ty=R.Tensor((32,), dtype="float32"))
        lv3 = R.call_tir(cls.inc, (lv1,), out_ty=R.Tensor((16,), dtype="float32"))
        return lv3
)";
  std::string text = Plan(source);
  EXPECT_NE(text.find(R"(storage: R.Any = R.memory.alloc_storage(R.shape([128]))"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(R.memory.alloc_tensor(storage, 0, R.shape([32]))"), std::string::npos) << text;
  Computes(source, 16, 3);
}

TEST(StaticPlanBlockMemory, EscapingAndSymbolicTensorsKeepTheirAllocations) {
  // t escapes into a packed call, s has a symbolic size: neither is planned.
  std::string text = Plan(std::string(kKernels) + R"(
    @R.function(pure=False)
    def main(x: R.Tensor((16,), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        t = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
        u = R.call_packed("keep", t, ty_args=R.Tensor((16,), dtype="float32"))
        s = R.call_tir(cls.inc_n, (y,), out_ty=R.Tensor((n,), dtype="float32"))
        s1 = R.call_tir(cls.inc_n, (s,), out_ty=R.Tensor((n,), dtype="float32"))
        return s1
)");
  EXPECT_EQ(text.find("memory.alloc"), std::string::npos) << text;
}

TEST(StaticPlanBlockMemory, SymbolicSizesArePlannedAtTheirUpperBound) {
  // n <= 8: each (n,) float32 tensor gets a 32-byte storage, reused as for static sizes.
  const std::string source = std::string(kKernels) + R"(
    @R.function
    def main(y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 8}})
        n = T.int64()
        cls = Module
        s0 = R.call_tir(cls.inc_n, (y,), out_ty=R.Tensor((n,), dtype="float32"))
        s1 = R.call_tir(cls.inc_n, (s0,), out_ty=R.Tensor((n,), dtype="float32"))
        s2 = R.call_tir(cls.inc_n, (s1,), out_ty=R.Tensor((n,), dtype="float32"))
        s3 = R.call_tir(cls.inc_n, (s2,), out_ty=R.Tensor((n,), dtype="float32"))
        return s3
)";
  std::string text = Plan(source);
  EXPECT_NE(text.find(R"(storage: R.Any = R.memory.alloc_storage(R.shape([32]))"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(alloc_2: R.Tensor((n,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([n]))"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("storage_2"), std::string::npos) << text;
  // inc_n copies: the result is y, for a size below the bound and at it.
  Computes(source, 3, 0);
  Computes(source, 8, 0);
}

TEST(StaticPlanBlockMemory, ViewsExtendTheLifetime) {
  // lv0 is read through its reshape r after lv1 is made, so lv2 cannot take lv0's storage.
  const std::string source = std::string(kKernels) + R"(
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        lv0 = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
        lv1 = R.call_tir(cls.inc, (lv0,), out_ty=R.Tensor((16,), dtype="float32"))
        r = R.reshape(lv0, R.shape([16]))
        lv2 = R.call_tir(cls.inc, (lv1,), out_ty=R.Tensor((16,), dtype="float32"))
        lv3 = R.call_tir(cls.inc, (r,), out_ty=R.Tensor((16,), dtype="float32"))
        lv4 = R.call_tir(cls.inc, (lv3,), out_ty=R.Tensor((16,), dtype="float32"))
        return lv4
)";
  std::string text = Plan(source);
  EXPECT_NE(text.find("storage_2: R.Any = R.memory.alloc_storage"), std::string::npos) << text;
  EXPECT_EQ(text.find("storage_3"), std::string::npos) << text;
  Computes(source, 16, 3);
}

TEST(StaticPlanBlockMemory, TupleOutputsArePlannedThroughTheirItems) {
  // Both outputs of split are read only by kernels through the tuple's items: both are planned,
  // and lv3 reuses the storage of the first, dead after lv2 is made.
  const std::string source = std::string(kKernels) + R"(
    @R.function
    def main(x: R.Tensor((16,), dtype="float32")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.split, (x,), out_ty=[R.Tensor((16,), dtype="float32"), R.Tensor((16,), dtype="float32")])
        a = lv[0]
        b = lv[1]
        lv2 = R.call_tir(cls.inc, (a,), out_ty=R.Tensor((16,), dtype="float32"))
        lv3 = R.call_tir(cls.inc, (b,), out_ty=R.Tensor((16,), dtype="float32"))
        lv4 = R.call_tir(cls.inc, (lv3,), out_ty=R.Tensor((16,), dtype="float32"))
        return lv4
)";
  std::string text = Plan(source);
  EXPECT_NE(text.find("alloc_1: R.Tensor((16,), dtype=\"float32\") = R.memory.alloc_tensor(storage_1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("alloc_3: R.Tensor((16,), dtype=\"float32\") = R.memory.alloc_tensor(storage,"), std::string::npos)
      << text;
  Computes(source, 16, 2);
}

TEST(StaticPlanBlockMemory, TensorsPassedToAFunctionAtTheEndOfABranchEscape) {
  // The branch's result is the call of main (corpus 013's recursion): a is its argument and must
  // keep its own storage.
  std::string text = Plan(std::string(kKernels) + R"(
    @R.function
    def main(x: R.Tensor((16,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        if c:
            a = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
            b = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((16,), dtype="float32"))
            r = cls.main(a, c)
        else:
            r = x
        return r
)");
  EXPECT_NE(text.find("alloc: R.Tensor((16,), dtype=\"float32\") = R.builtin.alloc_tensor"), std::string::npos) << text;
  EXPECT_NE(text.find("= main(alloc, c)"), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::relax::transform
