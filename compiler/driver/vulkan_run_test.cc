// The "vulkan" run target (device_run.h) against the reference interpreter: kernels with thread
// bindings run as SPIR-V on the Vulkan device (lavapipe on CPU machines) and must produce what
// "interp" produces from the same inputs. Skipped, with the reason, where no Vulkan device exists.
#include <cstring>
#include <random>

#include "compiler/driver/run.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

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
    def block_sum_loop(a: T.handle, s: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 64), "int32")
        S = T.match_buffer(s, (n,), "int32")
        bx = T.launch_thread("blockIdx.x", n)
        buf = T.alloc_shared((64,), "int32")
        tx = T.launch_thread("threadIdx.x", 64)
        buf[tx] = A[bx, tx]
        T.tvm_storage_sync("shared")
        for k in range(6):
            if tx < T.shift_right(32, k):
                buf[tx] = buf[tx] + buf[tx + T.shift_right(32, k)]
            T.tvm_storage_sync("shared")
        if tx == 0:
            S[bx] = buf[0]

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

    @T.prim_func
    def block_size_from_a_scalar(a: T.handle, t: T.int32):
        n = T.int32()
        A = T.match_buffer(a, (n,), "int32")
        for bx in T.thread_binding((n + t - 1) // t, thread="blockIdx.x"):
            for tx in T.thread_binding(t, thread="threadIdx.x"):
                if bx * t + tx < n:
                    A[bx * t + tx] = A[bx * t + tx] * 2 + tx

    @T.prim_func
    def int_ops(a: T.handle, b: T.handle, r: T.handle):
        A = T.match_buffer(a, (64,), "int32")
        B = T.match_buffer(b, (64,), "int32")
        R = T.match_buffer(r, (10, 64), "int32")
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            R[0, tx] = A[tx] // B[tx]
            R[1, tx] = A[tx] % B[tx]
            R[2, tx] = T.truncdiv(A[tx], B[tx])
            R[3, tx] = T.truncmod(A[tx], B[tx])
            R[4, tx] = T.shift_left(A[tx], 3) + T.shift_right(A[tx], 2)
            R[5, tx] = T.bitwise_and(A[tx], B[tx]) + T.bitwise_or(A[tx], 7) - T.bitwise_xor(A[tx], B[tx])
            R[6, tx] = T.min(A[tx], B[tx]) * T.max(A[tx], B[tx])
            R[7, tx] = T.Select(A[tx] < B[tx], A[tx] * 3, B[tx] - 5)
            R[8, tx] = T.Cast("int32", T.Cast("float32", A[tx]) * T.float32(0.75))
            R[9, tx] = A[tx] * B[tx] * 65537

    @T.prim_func
    def collatz(a: T.handle, s: T.handle):
        A = T.match_buffer(a, (48,), "int32")
        S = T.match_buffer(s, (48,), "int32")
        for bx in T.thread_binding(3, thread="blockIdx.x"):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                x: T.int32
                n: T.int32
                x = A[bx * 16 + tx]
                n = 0
                while x != 1:
                    if x % 2 == 0:
                        x = x // 2
                    else:
                        x = x * 3 + 1
                    n = n + 1
                S[bx * 16 + tx] = n

    @T.prim_func
    def pad(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (10, 10), "float32")
        B = T.match_buffer(b, (14, 14), "float32")
        for i in T.thread_binding(14, thread="blockIdx.x"):
            for j in T.thread_binding(14, thread="threadIdx.x"):
                B[i, j] = T.if_then_else(2 <= i and i < 12 and 2 <= j and j < 12, A[i - 2, j - 2], T.float32(-1.0))

    @T.prim_func
    def math(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (128,), "float32")
        B = T.match_buffer(b, (8, 128), "float32")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(64, thread="threadIdx.x"):
                B[0, bx * 64 + tx] = T.exp(A[bx * 64 + tx])
                B[1, bx * 64 + tx] = T.log(T.fabs(A[bx * 64 + tx]) + T.float32(0.5))
                B[2, bx * 64 + tx] = T.sqrt(T.fabs(A[bx * 64 + tx]))
                B[3, bx * 64 + tx] = T.tanh(A[bx * 64 + tx])
                B[4, bx * 64 + tx] = T.sigmoid(A[bx * 64 + tx])
                B[5, bx * 64 + tx] = T.floor(A[bx * 64 + tx] * T.float32(3.0)) + T.ceil(A[bx * 64 + tx])
                B[6, bx * 64 + tx] = T.pow(T.fabs(A[bx * 64 + tx]), T.float32(1.5))
                B[7, bx * 64 + tx] = T.max(A[bx * 64 + tx], T.float32(0.0)) / (T.float32(1.0) + T.min(A[bx * 64 + tx], T.float32(0.25)))

    @T.prim_func
    def narrow(a: T.handle, b: T.handle, m: T.handle, c: T.handle, d: T.handle, k: T.int8, flag: T.bool):
        A = T.match_buffer(a, (32,), "int8")
        B = T.match_buffer(b, (32,), "uint8")
        M = T.match_buffer(m, (32,), "bool")
        C = T.match_buffer(c, (32,), "int8")
        D = T.match_buffer(d, (32,), "int64")
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            C[tx] = A[tx] * T.int8(3) + k
            D[tx] = T.Cast("int64", A[tx]) * T.int64(4000000000) + T.Cast("int64", B[tx])
            M[tx] = (A[tx] > T.int8(0)) != flag

    @T.prim_func
    def half_double(a: T.handle, b: T.handle, c: T.handle, alpha: T.float16):
        A = T.match_buffer(a, (64,), "float16")
        B = T.match_buffer(b, (64,), "float64")
        C = T.match_buffer(c, (64,), "float16")
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            C[tx] = A[tx] * alpha + T.float16(1.5)
            B[tx] = T.sqrt(B[tx] * T.float64(2.0)) + T.Cast("float64", A[tx])
)PY";

ir::IRModule Parse() {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(kSource, "vulkan_run_test.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ir::Downcast<ir::IRModule>(*r) : ir::IRModule();
}

runtime::Tensor Empty(const std::vector<int64_t>& shape, DLDataType dt) { return *runtime::Tensor::Empty(shape, dt); }

// Uniform values in [lo, hi) of any numeric dtype (bool: 0/1; a divisor avoids 0 when lo > 0).
runtime::Tensor Random(const std::vector<int64_t>& shape, DLDataType dt, double lo, double hi, std::mt19937* rng) {
  runtime::Tensor t = Empty(shape, dt);
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = d(*rng);
    void* p = static_cast<uint8_t*>(t.data()) + i * ((dt.bits + 7) / 8);
    if (dt.code == kDLFloat && dt.bits == 32) *static_cast<float*>(p) = static_cast<float>(v);
    if (dt.code == kDLFloat && dt.bits == 64) *static_cast<double*>(p) = v;
    if (dt.code == kDLFloat && dt.bits == 16) *static_cast<_Float16*>(p) = static_cast<_Float16>(v);
    if (dt.code == kDLInt && dt.bits == 8) *static_cast<int8_t*>(p) = static_cast<int8_t>(v);
    if (dt.code == kDLInt && dt.bits == 32) *static_cast<int32_t*>(p) = static_cast<int32_t>(v);
    if (dt.code == kDLInt && dt.bits == 64) *static_cast<int64_t*>(p) = static_cast<int64_t>(v);
    if (dt.code == kDLUInt && dt.bits == 8) *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
    if (dt.code == runtime::kDLBoolCode) *static_cast<uint8_t*>(p) = v >= 0.5;
  }
  return t;
}

runtime::Tensor Copy(const runtime::Tensor& t) {
  runtime::Tensor c = Empty(t.shape(), t.dtype());
  std::memcpy(c.data(), t.data(), t.nbytes());
  return c;
}

template <typename T>
runtime::Tensor Scalar(DLDataType dt, T v) {
  runtime::Tensor t = Empty({}, dt);
  std::memcpy(t.data(), &v, sizeof(T));
  return t;
}

constexpr DLDataType kF16 = {kDLFloat, 16, 1}, kF32 = {kDLFloat, 32, 1}, kF64 = {kDLFloat, 64, 1};
constexpr DLDataType kI8 = {kDLInt, 8, 1}, kI32 = {kDLInt, 32, 1}, kI64 = {kDLInt, 64, 1};
constexpr DLDataType kU8 = {kDLUInt, 8, 1}, kBool = {runtime::kDLBoolCode, 8, 1};

double Element(const runtime::Tensor& t, int64_t i) {
  const uint8_t* p = static_cast<const uint8_t*>(t.data()) + i * ((t.dtype().bits + 7) / 8);
  DLDataType dt = t.dtype();
  if (dt.code == kDLFloat && dt.bits == 16) return static_cast<double>(*reinterpret_cast<const _Float16*>(p));
  if (dt.code == kDLFloat && dt.bits == 32) return *reinterpret_cast<const float*>(p);
  return *reinterpret_cast<const double*>(p);
}

class VulkanRunTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    module_ = new ir::IRModule(Parse());
    RunOptions interp, vk;
    interp.target = RunTarget::kInterp;
    vk.target = RunTarget::kVulkan;
    interp_ = Runner::Create(*module_, interp)->release();
    absl::StatusOr<std::unique_ptr<Runner>> r = Runner::Create(*module_, vk);
    if (r.ok()) {
      vulkan_ = r->release();
    } else {
      unavailable_ = new absl::Status(r.status());
    }
  }
  static void TearDownTestSuite() {
    delete vulkan_;
    delete interp_;
    delete module_;
    delete unavailable_;
  }
  void SetUp() override {
    if (vulkan_ != nullptr) return;
    ASSERT_TRUE(absl::IsUnavailable(*unavailable_)) << *unavailable_;  // anything else is a failure
    GTEST_SKIP() << unavailable_->message();
  }

  // Runs `entry` on both targets (on copies of `args`); integer and bool buffers must be equal
  // bit for bit, float buffers within `tol` (relative to the magnitude, at least absolute `tol`).
  void ExpectSame(const std::string& entry, const std::vector<runtime::Tensor>& args, double tol) {
    std::vector<runtime::Tensor> a, b;
    for (const runtime::Tensor& t : args) a.push_back(Copy(t)), b.push_back(Copy(t));
    absl::StatusOr<KilnAny> ra = interp_->Call(entry, a);
    ASSERT_TRUE(ra.ok()) << ra.status();
    absl::StatusOr<KilnAny> rb = vulkan_->Call(entry, b);
    ASSERT_TRUE(rb.ok()) << rb.status();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].ndim() == 0) continue;
      if (args[i].dtype().code != kDLFloat) {
        ASSERT_EQ(std::memcmp(a[i].data(), b[i].data(), a[i].nbytes()), 0) << entry << " arg " << i;
        continue;
      }
      for (int64_t k = 0; k < args[i].numel(); ++k) {
        double x = Element(a[i], k), y = Element(b[i], k);
        ASSERT_NEAR(x, y, tol * std::max(1.0, std::abs(x))) << entry << " arg " << i << " [" << k << "]";
      }
    }
  }

  static ir::IRModule* module_;
  static Runner* interp_;
  static Runner* vulkan_;
  static absl::Status* unavailable_;
};

ir::IRModule* VulkanRunTest::module_ = nullptr;
Runner* VulkanRunTest::interp_ = nullptr;
Runner* VulkanRunTest::vulkan_ = nullptr;
absl::Status* VulkanRunTest::unavailable_ = nullptr;

TEST_F(VulkanRunTest, VectorAddWithBlockThreadSplitAndTail) {
  std::mt19937 rng(1);
  for (int64_t n : {1, 64, 200}) {
    ExpectSame("vadd", {Random({n}, kF32, -1, 1, &rng), Random({n}, kF32, -1, 1, &rng), Empty({n}, kF32)}, 0);
  }
}

TEST_F(VulkanRunTest, SharedMemoryReductionWithBarriers) {
  std::mt19937 rng(2);
  ExpectSame("block_sum", {Random({5, 64}, kF32, -1, 1, &rng), Empty({5}, kF32)}, 1e-6);
}

// The interpreter runs a block's threads one after another, so it takes barriers only between
// top-level statements; a barrier inside a loop is checked against the sums directly.
TEST_F(VulkanRunTest, BarrierInsideALoop) {
  std::mt19937 rng(12);
  runtime::Tensor a = Random({7, 64}, kI32, -1000, 1000, &rng), s = Empty({7}, kI32);
  absl::StatusOr<KilnAny> r = vulkan_->Call("block_sum_loop", {a, s});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 7; ++i) {
    int32_t want = 0;
    for (int j = 0; j < 64; ++j) want += static_cast<const int32_t*>(a.data())[i * 64 + j];
    EXPECT_EQ(static_cast<const int32_t*>(s.data())[i], want) << i;
  }
}

TEST_F(VulkanRunTest, TwoDimensionalGridWithSymbolicShapeAndScalars) {
  std::mt19937 rng(3);
  ExpectSame("affine2d", {Random({3, 21}, kF32, -1, 1, &rng), Empty({3, 21}, kF32), Scalar(kF32, 0.5f),
                          Scalar(kI32, int32_t{7})},
             1e-6);
}

TEST_F(VulkanRunTest, BlockSizeComputedOnTheHostSpecializesThePipeline) {
  std::mt19937 rng(4);
  for (int32_t t : {1, 7, 32, 100}) {
    ExpectSame("block_size_from_a_scalar", {Random({150}, kI32, -100, 100, &rng), Scalar(kI32, t)}, 0);
  }
}

TEST_F(VulkanRunTest, IntegerDivisionShiftsBitwiseMinMaxSelectAndWrapAround) {
  std::mt19937 rng(5);
  runtime::Tensor b = Random({64}, kI32, 1, 50, &rng);
  for (int i = 0; i < 64; i += 2) static_cast<int32_t*>(b.data())[i] *= -1;  // both signs of divisor
  ExpectSame("int_ops", {Random({64}, kI32, -1000, 1000, &rng), b, Empty({10, 64}, kI32)}, 0);
}

TEST_F(VulkanRunTest, WhileLoopOverLocalScalars) {
  std::mt19937 rng(6);
  ExpectSame("collatz", {Random({48}, kI32, 1, 100, &rng), Empty({48}, kI32)}, 0);
}

TEST_F(VulkanRunTest, IfThenElseNeverLoadsTheSideNotTaken) {
  std::mt19937 rng(7);
  ExpectSame("pad", {Random({10, 10}, kF32, -1, 1, &rng), Empty({14, 14}, kF32)}, 0);
}

TEST_F(VulkanRunTest, MathFunctions) {
  std::mt19937 rng(8);
  // Vulkan allows GLSL.std.450 a few ulp; lavapipe is close to libm.
  ExpectSame("math", {Random({128}, kF32, -3, 3, &rng), Empty({8, 128}, kF32)}, 1e-5);
}

TEST_F(VulkanRunTest, NarrowWideAndBoolTypesInBuffersAndScalars) {
  std::mt19937 rng(9);
  ExpectSame("narrow", {Random({32}, kI8, -128, 127, &rng), Random({32}, kU8, 0, 255, &rng), Empty({32}, kBool),
                        Empty({32}, kI8), Empty({32}, kI64), Scalar(kI8, int8_t{100}), Scalar(kBool, uint8_t{1})},
             0);
}

TEST_F(VulkanRunTest, Float16AndFloat64) {
  std::mt19937 rng(10);
  ExpectSame("half_double", {Random({64}, kF16, -2, 2, &rng), Random({64}, kF64, 0, 3, &rng), Empty({64}, kF16),
                             Scalar(kF16, static_cast<_Float16>(0.7))},
             0);
}

TEST_F(VulkanRunTest, HostChecksArgumentsBeforeLaunching) {
  std::mt19937 rng(11);
  absl::StatusOr<KilnAny> r =
      vulkan_->Call("vadd", {Random({8}, kF32, 0, 1, &rng), Random({9}, kF32, 0, 1, &rng), Empty({8}, kF32)});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
}

}  // namespace
}  // namespace kiln::driver
