// Runner (run.h) and the kernel library build (kernel_build.h) on all three targets: results
// checked against values computed here, scalar argument conversions, return values, the errors a
// caller can provoke (argument count and kinds, shape/dtype/stride mismatches, failed asserts,
// unknown or private entries), strided views as arguments, and parallel loops going through the
// KilnKernelEnv the caller lends.
#include "compiler/driver/run.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "compiler/driver/kernel_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/module.h"

namespace kiln::driver {
namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kI32 = {kDLInt, 32, 1};
constexpr DLDataType kI64 = {kDLInt, 64, 1};

constexpr char kSource[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func
    def axpy(a: T.float32, X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
        for i in range(8):
            Y[i] = a * X[i] + Y[i]

    @T.prim_func
    def pick(a: T.int32, b: T.int32) -> T.int32:
        if a > b:
            return a - b
        return b * 2

    @T.prim_func
    def guarded(x: T.handle, k: T.int32):
        n = T.int32()
        X = T.match_buffer(x, (n,), "int32")
        assert n % 2 == 0, ("ValueError", ["n must be even"])
        for i in range(n):
            X[i] = X[i] * k

    @T.prim_func
    def strided(A: T.Buffer((4, 4), "float32", strides=(8, 1)), B: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            B[i, j] = A[i, j] * T.float32(2.0)

    @T.prim_func
    def par(A: T.Buffer((64,), "int64")):
        for i in T.parallel(64):
            A[i] = T.Cast("int64", i) * T.int64(3)

    @T.prim_func
    def scratch(A: T.Buffer((8,), "float32"), n: T.int32):
        B = T.alloc_buffer((n, n, n), "float32")
        for i in range(n):
            B[i, i, i] = A[i]
        for i in range(n):
            A[i] = B[i, i, i] * T.float32(2.0)

    @T.prim_func(private=True)
    def hidden(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(1.0)
)PY";

ir::IRModule Parse() {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(kSource, "run_test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return script::AsModule(*r);
}

runtime::Tensor Scalar(DLDataType dt, double v) {
  runtime::Tensor t = *runtime::Tensor::Empty({}, dt);
  if (dt.code == kDLFloat && dt.bits == 32) {
    float f = static_cast<float>(v);
    std::memcpy(t.data(), &f, 4);
  } else if (dt.code == kDLFloat) {
    std::memcpy(t.data(), &v, 8);
  } else {
    int64_t i = static_cast<int64_t>(v);
    std::memcpy(t.data(), &i, runtime::DTypeBytes(dt));  // little-endian host
  }
  return t;
}

runtime::Tensor Floats(const std::vector<float>& v) {
  runtime::Tensor t = *runtime::Tensor::Empty({static_cast<int64_t>(v.size())}, kF32);
  std::memcpy(t.data(), v.data(), v.size() * 4);
  return t;
}

const float* F(const runtime::Tensor& t) { return static_cast<const float*>(t.data()); }

class RunTest : public ::testing::TestWithParam<RunTarget> {
 protected:
  void SetUp() override {
    RunOptions o;
    o.target = GetParam();
    o.work_dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "";
    absl::StatusOr<std::unique_ptr<Runner>> r = Runner::Create(Parse(), o);
    ASSERT_TRUE(r.ok()) << r.status();
    runner_ = std::move(*r);
  }
  std::unique_ptr<Runner> runner_;
};

TEST_P(RunTest, BuffersAndConvertedScalars) {
  runtime::Tensor x = Floats({1, 2, 3, 4, 5, 6, 7, 8}), y = Floats({8, 7, 6, 5, 4, 3, 2, 1});
  // A float param accepts an integer 0-d tensor (numpy saves a Python int as int64).
  absl::StatusOr<KilnAny> r = runner_->Call("axpy", {Scalar(kI64, 3), x, y});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->type_index, kKilnNone);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(F(y)[i], 3.0f * (i + 1) + (8 - i)) << i;
  ASSERT_TRUE(runner_->Call("axpy", {Scalar(kF32, 0.5), x, y}).ok());
  EXPECT_EQ(F(y)[0], 0.5f + 11.0f);
}

TEST_P(RunTest, ReturnValue) {
  absl::StatusOr<KilnAny> r = runner_->Call("pick", {Scalar(kI32, 10), Scalar(kI64, 4)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->type_index, kKilnInt);
  EXPECT_EQ(r->v_int64, 6);
  EXPECT_EQ(FormatReturn(*r), "6");
  r = runner_->Call("pick", {Scalar(kI32, 1), Scalar(kI32, 4)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->v_int64, 8);
}

TEST_P(RunTest, SymbolicShapeAndAssert) {
  runtime::Tensor x = *runtime::Tensor::Empty({6}, kI32);
  for (int i = 0; i < 6; ++i) static_cast<int32_t*>(x.data())[i] = i;
  ASSERT_TRUE(runner_->Call("guarded", {x, Scalar(kI32, 5)}).ok());
  EXPECT_EQ(static_cast<int32_t*>(x.data())[5], 25);
  absl::StatusOr<KilnAny> bad = runner_->Call("guarded", {*runtime::Tensor::Empty({5}, kI32), Scalar(kI32, 1)});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("n must be even"), absl::string_view::npos) << bad.status();
}

// An allocation whose extents come at run time: a negative extent or an element count past int32
// is an error on every target (llvm and c allocated a wrapped size and overran it; issue 14).
TEST_P(RunTest, RunTimeAllocationSizes) {
  runtime::Tensor a = Floats({1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(runner_->Call("scratch", {a, Scalar(kI32, 3)}).ok());
  EXPECT_EQ(F(a)[2], 6.0f);
  for (int n : {-8, 65536}) {
    absl::StatusOr<KilnAny> r = runner_->Call("scratch", {a, Scalar(kI32, n)});
    EXPECT_FALSE(r.ok()) << "n = " << n;
  }
}

TEST_P(RunTest, StridedViewArgument) {
  runtime::Tensor base = *runtime::Tensor::Empty({4, 8}, kF32);
  for (int i = 0; i < 32; ++i) const_cast<float*>(F(base))[i] = static_cast<float>(i);
  runtime::Tensor out = *runtime::Tensor::Empty({4, 4}, kF32);
  ASSERT_TRUE(runner_->Call("strided", {*base.View({4, 4}, {8, 1}), out}).ok());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(F(out)[i * 4 + j], 2.0f * (i * 8 + j));
  // A compact (4, 4) tensor lacks the declared row stride of 8.
  absl::StatusOr<KilnAny> bad = runner_->Call("strided", {*runtime::Tensor::Empty({4, 4}, kF32), out});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("stride"), absl::string_view::npos) << bad.status();
}

TEST_P(RunTest, ArgumentErrors) {
  runtime::Tensor x = Floats(std::vector<float>(8, 1.0f));
  absl::StatusOr<KilnAny> r = runner_->Call("axpy", {Scalar(kF32, 1), x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("takes 3 arguments (a, X, Y), got 2"), absl::string_view::npos) << r.status();
  // Shape mismatch: the kernel's check, followed by what was given.
  r = runner_->Call("axpy", {Scalar(kF32, 1), Floats({1, 2}), x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("X.shape[0]"), absl::string_view::npos) << r.status();
  EXPECT_NE(r.status().message().find("X: float32 (2,)"), absl::string_view::npos) << r.status();
  // dtype mismatch
  r = runner_->Call("axpy", {Scalar(kF32, 1), *runtime::Tensor::Empty({8}, kI32), x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dtype"), absl::string_view::npos) << r.status();
  // An int param refuses a float scalar; a scalar must have one element.
  r = runner_->Call("pick", {Scalar(kF32, 1.5), Scalar(kI32, 1)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("int32 scalar but was given float32"), absl::string_view::npos) << r.status();
  r = runner_->Call("pick", {x, Scalar(kI32, 1)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("has 8 elements"), absl::string_view::npos) << r.status();
  // An int32 param refuses an int64 value it cannot hold (2**40 used to be truncated to 0).
  r = runner_->Call("pick", {Scalar(kI64, 1099511627776.0), Scalar(kI32, 1)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("argument #0 (a) is a int32 scalar but was given int64 value 1099511627776, "
                                      "which it cannot hold"),
            absl::string_view::npos)
      << r.status();
  EXPECT_TRUE(runner_->Call("pick", {Scalar(kI64, -2147483648.0), Scalar(kI32, 1)}).ok());
  EXPECT_FALSE(runner_->Call("pick", {Scalar(kI64, 2147483648.0), Scalar(kI32, 1)}).ok());
  EXPECT_EQ(runner_->Call("nope", {}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(runner_->Call("hidden", {x}).status().code(), absl::StatusCode::kInvalidArgument);
}

// A KilnKernelEnv that counts parallel_for calls and runs the body serially.
struct CountingEnv {
  std::atomic<int> calls{0};
  KilnKernelEnv env{&CountingEnv::ParallelFor, this};
  static int32_t ParallelFor(void* self, int64_t n, KilnParallelBody body, void* closure) {
    ++static_cast<CountingEnv*>(self)->calls;
    return body(0, n, closure);
  }
};

TEST_P(RunTest, ParallelLoopsUseTheLentEnv) {
  CountingEnv counting;
  RunOptions o;
  o.target = GetParam();
  o.env = &counting.env;
  absl::StatusOr<std::unique_ptr<Runner>> r = Runner::Create(Parse(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  runtime::Tensor a = *runtime::Tensor::Empty({64}, kI64);
  ASSERT_TRUE((*r)->Call("par", {a}).ok());
  for (int i = 0; i < 64; ++i) ASSERT_EQ(static_cast<int64_t*>(a.data())[i], 3 * i);
  // The interpreter runs every loop serially itself; compiled kernels go through the env.
  if (GetParam() == RunTarget::kInterp) {
    EXPECT_EQ(counting.calls.load(), 0);
  } else {
    EXPECT_GE(counting.calls.load(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, RunTest,
                         ::testing::Values(RunTarget::kInterp, RunTarget::kLLVM, RunTarget::kC),
                         [](const ::testing::TestParamInfo<RunTarget>& info) { return RunTargetName(info.param); });

TEST(RunTargetTest, Parse) {
  EXPECT_EQ(*ParseRunTarget("interp"), RunTarget::kInterp);
  EXPECT_EQ(*ParseRunTarget("llvm -mcpu=native"), RunTarget::kLLVM);
  EXPECT_EQ(*ParseRunTarget("c"), RunTarget::kC);
  EXPECT_EQ(*ParseRunTarget("cuda -arch=sm_90"), RunTarget::kDevice);
  EXPECT_EQ(*ParseRunTarget("nvptx"), RunTarget::kDevice);
  EXPECT_EQ(*ParseRunTarget("opencl"), RunTarget::kOpenCL);
  EXPECT_FALSE(ParseRunTarget("gpu").ok());
  EXPECT_FALSE(ParseRunTarget("c -O3").ok());
}

TEST(DescribeParamsTest, BuffersAndScalars) {
  absl::StatusOr<ir::PrimFunc> f = FindEntry(Parse(), "guarded");
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<ParamInfo> p = DescribeParams(*f);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_TRUE(p[0].is_buffer);
  EXPECT_EQ(p[0].name, "X");
  EXPECT_EQ(p[0].shape, (std::vector<std::string>{"n"}));
  EXPECT_EQ(p[0].dtype, ir::DataType::Int(32));
  EXPECT_FALSE(p[1].is_buffer);
  EXPECT_EQ(p[1].name, "k");
}

TEST(FormatReturnTest, Kinds) {
  KilnAny v{};
  v.type_index = kKilnFloat;
  v.v_float64 = 0.1;
  EXPECT_EQ(std::stod(FormatReturn(v)), 0.1);  // round-trips
  v.type_index = kKilnBool;
  v.v_int64 = 1;
  EXPECT_EQ(FormatReturn(v), "True");
  v.type_index = kKilnNone;
  EXPECT_EQ(FormatReturn(v), "None");
}

TEST(KernelBuildTest, LibraryLoadsAndRuns) {
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  for (const char* target : {"c", "llvm"}) {
    SCOPED_TRACE(target);
    std::string so = dir + "/kernel_build_test_" + target + "_" + std::to_string(getpid()) + ".so";
    std::vector<std::string> kernels;
    absl::Status st = BuildKernelLibrary(Parse(), target, so, &kernels);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(kernels, (std::vector<std::string>{"axpy", "pick", "guarded", "strided", "par", "scratch"}));
    absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib = runtime::KernelLibrary::Load(so);
    ASSERT_TRUE(lib.ok()) << lib.status();
    KilnAny args[2] = {}, result{};
    args[0].type_index = args[1].type_index = kKilnInt;
    args[0].v_int64 = 2, args[1].v_int64 = 9;
    ASSERT_TRUE((*lib)->Call("pick", args, 2, &result).ok());
    EXPECT_EQ(result.v_int64, 18);
    unlink(so.c_str());
  }
  absl::StatusOr<std::string> c = EmitKernelSource(Parse(), "c");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(c->find("kiln_kernel_names"), std::string::npos);
  absl::StatusOr<std::string> ll = EmitKernelSource(Parse(), "llvm");
  ASSERT_TRUE(ll.ok()) << ll.status();
  EXPECT_NE(ll->find("define"), std::string::npos);
  EXPECT_FALSE(BuildKernelLibrary(Parse(), "cuda", dir + "/x.so").ok());
  EXPECT_FALSE(LowerKernels(ir::IRModule::Make(), "c").ok());
}

}  // namespace
}  // namespace kiln::driver
