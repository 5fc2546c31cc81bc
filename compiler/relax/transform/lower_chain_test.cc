// Programs exercising what the lowering passes must carry through together (If, recursion,
// tuples, constants, shape results, num_input, closures, local functions) reach the VM-lowered
// form, and the lowered program, run on the Relax VM (vm_check.h), gives the values computed here.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "runtime/tensor.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

constexpr char kKernels[] = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def inc(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func(private=True)
    def positive(A: T.Buffer((4,), "float32"), B: T.Buffer((), "bool")):
        B[()] = A[0] > T.float32(0.0)

    @T.prim_func(private=True)
    def inc_n(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 2))
        B = T.match_buffer(b, (n, 2))
        for i, j in T.grid(n, 2):
            B[i, j] = A[i, j] + T.float32(1.0)
)";

// Runs the passes in pipeline order and checks the VM-lowered form (printing the module if it is
// not); the lowered module, or an error.
absl::StatusOr<ir::IRModule> Lowers(const std::string& functions) {
  ir::IRModule mod = testing::Parse(std::string(kKernels) + functions);
  for (auto pass : {LambdaLift, RewriteDataflowReshape, ToNonDataflow, RemovePurityChecking, CallTIRRewrite,
                    StaticPlanBlockMemory, KillAfterLastUse, LowerRuntimeBuiltin, ComputePrimValue}) {
    absl::StatusOr<ir::IRModule> next = pass(mod);
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok()) return next;
    absl::Status wf = CheckWellFormed(*next, nullptr);
    EXPECT_TRUE(wf.ok()) << wf;
    if (!wf.ok()) return wf;
    mod = *next;
  }
  absl::StatusOr<ir::IRModule> lowered = VMShapeLower(mod);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  if (!lowered.ok()) return lowered;
  absl::Status form = CheckVMLoweredForm(*lowered);
  EXPECT_TRUE(form.ok()) << form << "\n" << script::printer::Print(*lowered);
  if (!form.ok()) return form;
  return lowered;
}

// main of the lowered `functions`, run on the VM with `args`.
absl::StatusOr<vm::Value> LowerAndRun(const std::string& functions, const std::vector<vm::Value>& args) {
  absl::StatusOr<ir::IRModule> lowered = Lowers(functions);
  if (!lowered.ok()) return lowered.status();
  return testing::RunAfterPass("VMShapeLower", *lowered, args);
}

std::vector<float> Plus1(const std::vector<float>& v) {
  std::vector<float> out = v;
  for (float& f : out) f += 1;
  return out;
}

TEST(LowerChain, IfOnAKernelResultAndRecursion) {
  // main recurses on x + 1 while x[0] > 0, so only x[0] <= 0 returns: x itself. A 0-d int32 k.
  absl::StatusOr<runtime::Tensor> k = runtime::Tensor::Empty({}, DLDataType{kDLInt, 32, 1});
  ASSERT_TRUE(k.ok()) << k.status();
  *static_cast<int32_t*>(k->data()) = 7;
  const std::vector<float> x = {-1, 2, 3, 4};
  absl::StatusOr<vm::Value> got = LowerAndRun(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), k: R.Tensor((), dtype="int32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.positive, (x,), out_ty=R.Tensor((), dtype="bool"))
            R.output(c)
        if c:
            y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            r = cls.main(y, k)
        else:
            r = x
        return r
)",
                                              {testing::F32({4}, x), vm::Value::Tensor(*k)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), x);
}

TEST(LowerChain, TuplesAndConstants) {
  const std::vector<float> a = {0.5f, -1, 8, 2};
  absl::StatusOr<vm::Value> got = LowerAndRun(R"(
    @R.function
    def main(t: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        a = t[0]
        b = R.call_tir(cls.inc, (R.const([1.0, 2.0, 3.0, 4.0], "float32"),), out_ty=R.Tensor((4,), dtype="float32"))
        c = R.call_tir(cls.inc, (a,), out_ty=R.Tensor((4,), dtype="float32"))
        return (b, c)
)",
                                              {vm::Value::Tuple({testing::F32({4}, a), testing::F32({4}, {9, 9, 9, 9})})});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->is_tuple() && got->as_tuple().size() == 2) << got->DebugString();
  EXPECT_EQ(testing::F32Values(got->as_tuple()[0]), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(testing::F32Values(got->as_tuple()[1]), Plus1(a));
}

TEST(LowerChain, SymbolicShapeResults) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  absl::StatusOr<vm::Value> got = LowerAndRun(R"(
    @R.function
    def main(x: R.Tensor(("n", 2), dtype="float32")) -> R.Tuple(R.Tensor(("n", 2), dtype="float32"), R.Shape(["n", 2])):
        n = T.int64()
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.inc_n, (x,), out_ty=R.Tensor((n, 2), dtype="float32"))
            s = R.shape_of(y)
            gv = (y, s)
            R.output(gv)
        return gv
)",
                                              {testing::F32({3, 2}, x)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->is_tuple() && got->as_tuple().size() == 2) << got->DebugString();
  EXPECT_EQ(testing::F32Values(got->as_tuple()[0]), Plus1(x));
  ASSERT_TRUE(got->as_tuple()[1].is_shape()) << got->DebugString();
  EXPECT_EQ(got->as_tuple()[1].as_shape(), (std::vector<int64_t>{3, 2}));
}

TEST(LowerChain, NumInputAndClosures) {
  // f(x) calls step(x, w) (captured values come last): x + 1.
  const std::vector<float> x = {1, 2, 3, 4}, w = {-5, -6, -7, -8};
  absl::StatusOr<vm::Value> got = LowerAndRun(R"(
    @R.function
    def step(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.inc, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 1})
        cls = Module
        f = R.make_closure(cls.step, (w,))
        r = R.invoke_closure(f, (x,), ty_args=R.Tensor((4,), dtype="float32"))
        return r
)",
                                              {testing::F32({4}, x), testing::F32({4}, w)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), Plus1(x));
}

TEST(LowerChain, LocalClosures) {
  // step reads the captured w, not its argument: w + 1.
  const std::vector<float> x = {1, 2, 3, 4}, w = {-5, -6, -7, -8};
  absl::StatusOr<vm::Value> got = LowerAndRun(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), w: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        @R.function
        def step(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z = R.call_tir(cls.inc, (w,), out_ty=R.Tensor((4,), dtype="float32"))
            return z
        r = step(x)
        return r
)",
                                              {testing::F32({4}, x), testing::F32({4}, w)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), Plus1(w));
}

}  // namespace
}  // namespace kiln::relax::transform
