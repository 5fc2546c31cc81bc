// The "opencl" run target (device_run.h) against the reference interpreter: kernels with thread
// bindings run on the OpenCL platform (PoCL on CPU machines) and must produce what "interp"
// produces from the same inputs. Skipped, with the reason, where no OpenCL platform exists.
#include <cstring>
#include <random>

#include "compiler/driver/run.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kI32 = {kDLInt, 32, 1};

constexpr char kSource[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func
    def vadd(a: T.handle, b: T.handle, c: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for bx in T.thread_binding((n + 63) // 64, thread="blockIdx.x"):
            for tx in T.thread_binding(64, thread="threadIdx.x"):
                if bx * 64 + tx < n:
                    C[bx * 64 + tx] = A[bx * 64 + tx] + B[bx * 64 + tx]

    @T.prim_func
    def block_sum(a: T.handle, s: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 64), "float32")
        S = T.match_buffer(s, (n,), "float32")
        bx = T.launch_thread("blockIdx.x", n)
        buf = T.alloc_shared((64,), "float32")
        tx = T.launch_thread("threadIdx.x", 64)
        buf[tx] = A[bx, tx]
        T.tvm_storage_sync("shared")
        if tx < 32:
            buf[tx] = buf[tx] + buf[tx + 32]
        T.tvm_storage_sync("shared")
        if tx < 16:
            buf[tx] = buf[tx] + buf[tx + 16]
        T.tvm_storage_sync("shared")
        if tx < 8:
            buf[tx] = buf[tx] + buf[tx + 8]
        T.tvm_storage_sync("shared")
        if tx < 4:
            buf[tx] = buf[tx] + buf[tx + 4]
        T.tvm_storage_sync("shared")
        if tx < 2:
            buf[tx] = buf[tx] + buf[tx + 2]
        T.tvm_storage_sync("shared")
        if tx == 0:
            S[bx] = buf[0] + buf[1]

    @T.prim_func
    def affine2d(a: T.handle, b: T.handle, alpha: T.float32, shift: T.int32):
        n = T.int32()
        m = T.int32()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for by in T.thread_binding(n, thread="blockIdx.y"):
            for bx in T.thread_binding((m + 7) // 8, thread="blockIdx.x"):
                for tx in T.thread_binding(8, thread="threadIdx.x"):
                    if bx * 8 + tx < m:
                        B[by, bx * 8 + tx] = alpha * A[by, bx * 8 + tx] + T.Cast("float32", (by * m + bx * 8 + tx) % shift)
)PY";

ir::IRModule Parse() {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(kSource, "opencl_run_test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ir::Downcast<ir::IRModule>(*r) : ir::IRModule();
}

runtime::Tensor Random(const std::vector<int64_t>& shape, std::mt19937* rng) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, kF32);
  std::uniform_real_distribution<float> d(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) static_cast<float*>(t.data())[i] = d(*rng);
  return t;
}

runtime::Tensor Copy(const runtime::Tensor& t) {
  runtime::Tensor c = *runtime::Tensor::Empty(t.shape(), t.dtype());
  std::memcpy(c.data(), t.data(), t.nbytes());
  return c;
}

template <typename T>
runtime::Tensor Scalar(DLDataType dt, T v) {
  runtime::Tensor t = *runtime::Tensor::Empty({}, dt);
  std::memcpy(t.data(), &v, sizeof(T));
  return t;
}

class OpenCLRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    module_ = new ir::IRModule(Parse());
    RunOptions interp, cl;
    interp.target = RunTarget::kInterp;
    cl.target = RunTarget::kOpenCL;
    interp_ = Runner::Create(*module_, interp)->release();
    absl::StatusOr<std::unique_ptr<Runner>> r = Runner::Create(*module_, cl);
    if (r.ok()) {
      opencl_ = r->release();
    } else {
      unavailable_ = new absl::Status(r.status());
    }
  }
  static void TearDownTestSuite() {
    delete opencl_;
    delete interp_;
    delete module_;
    delete unavailable_;
  }
  void SetUp() override {
    if (opencl_ != nullptr) return;
    ASSERT_TRUE(absl::IsUnavailable(*unavailable_)) << *unavailable_;  // anything else is a failure
    GTEST_SKIP() << unavailable_->message();
  }

  // Runs `entry` on both targets (on copies of `args`) and expects equal float outputs.
  void ExpectSame(const std::string& entry, const std::vector<runtime::Tensor>& args, double tol) {
    std::vector<runtime::Tensor> a, b;
    for (const runtime::Tensor& t : args) a.push_back(Copy(t)), b.push_back(Copy(t));
    absl::StatusOr<KilnAny> ra = interp_->Call(entry, a);
    ASSERT_TRUE(ra.ok()) << ra.status();
    absl::StatusOr<KilnAny> rb = opencl_->Call(entry, b);
    ASSERT_TRUE(rb.ok()) << rb.status();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].dtype().code != kDLFloat || args[i].ndim() == 0) continue;
      const float* x = static_cast<const float*>(a[i].data());
      const float* y = static_cast<const float*>(b[i].data());
      for (int64_t k = 0; k < args[i].numel(); ++k) ASSERT_NEAR(x[k], y[k], tol) << entry << " arg " << i << " [" << k << "]";
    }
  }

  static ir::IRModule* module_;
  static Runner* interp_;
  static Runner* opencl_;
  static absl::Status* unavailable_;
};

ir::IRModule* OpenCLRunTest::module_ = nullptr;
Runner* OpenCLRunTest::interp_ = nullptr;
Runner* OpenCLRunTest::opencl_ = nullptr;
absl::Status* OpenCLRunTest::unavailable_ = nullptr;

TEST_F(OpenCLRunTest, VectorAddWithBlockThreadSplitAndTail) {
  std::mt19937 rng(1);
  for (int64_t n : {1, 64, 200}) {
    ExpectSame("vadd", {Random({n}, &rng), Random({n}, &rng), Random({n}, &rng)}, 0);
  }
}

TEST_F(OpenCLRunTest, SharedMemoryReductionWithBarriers) {
  std::mt19937 rng(2);
  ExpectSame("block_sum", {Random({5, 64}, &rng), Random({5}, &rng)}, 1e-5);
}

TEST_F(OpenCLRunTest, TwoDimensionalGridWithSymbolicShapeAndScalars) {
  std::mt19937 rng(3);
  ExpectSame("affine2d", {Random({3, 21}, &rng), Random({3, 21}, &rng), Scalar(kF32, 0.5f), Scalar(kI32, int32_t{7})},
             1e-6);
}

TEST_F(OpenCLRunTest, HostChecksArgumentsBeforeLaunching) {
  std::mt19937 rng(4);
  absl::StatusOr<KilnAny> r = opencl_->Call("vadd", {Random({8}, &rng), Random({9}, &rng), Random({8}, &rng)});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
}

}  // namespace
}  // namespace kiln::driver
