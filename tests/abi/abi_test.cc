// The kernel ABI's argument checks (runtime/kernel_abi.h, compiled in by MakePackedAPI), end to end:
// PrimFuncs written in TVMScript are lowered and built with BOTH the LLVM JIT and the C backend
// (a kernel library loaded with dlopen), then called with one bad argument at a time. Every call
// must come back as an error whose exact message names the argument and the constraint it breaks
// (never a crash), and the same message on both backends. Valid calls are checked against values
// computed here, so the checks are known not to reject good arguments.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/tir_pipeline.h"
#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "compiler/target/llvm/jit.h"
#include "compiler/target/source/c/codegen_c.h"
#include "compiler/target/testing/lowered_ir.h"
#include "gtest/gtest.h"
#include "runtime/kernel_abi.h"
#include "runtime/module.h"

namespace kiln {
namespace {

// add: constant shape, compact. scale: a symbolic dim shared by two args, float64, a scalar.
// window: a variable elem_offset (bound from byte_offset). strided: declared strides.
// grid: a 2-D compact buffer (stride checks beyond the innermost dim).
constexpr char kSource[] = R"(
@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        for i in range(16):
            C[i] = A[i] + B[i]

    @T.prim_func
    def scale(a: T.handle, b: T.handle, k: T.int32):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float64")
        B = T.match_buffer(b, (n,), "float64")
        for i in range(n):
            B[i] = A[i] * T.Cast("float64", k)

    @T.prim_func
    def window(a: T.handle, b: T.handle):
        off = T.int32()
        A = T.match_buffer(a, (8,), "int16", elem_offset=off)
        B = T.match_buffer(b, (8,), "int16")
        for i in range(8):
            B[i] = A[i] + T.int16(1)

    @T.prim_func
    def strided(A: T.Buffer((4, 4), "float32", strides=(8, 1)), B: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            B[i, j] = A[i, j] * T.float32(2.0)

    @T.prim_func
    def grid(A: T.Buffer((4, 8), "int32"), B: T.Buffer((4, 8), "int32")):
        for i, j in T.grid(4, 8):
            B[i, j] = A[i, j] + i * 8 + j
)";

using codegen::testing::Tensor;
using codegen::testing::TempLibraryPath;

enum class Backend { kLLVMJit, kCLibrary };

absl::StatusOr<std::unique_ptr<runtime::KernelModule>> Build(Backend backend) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kSource, "abi_test.py");
  if (!parsed.ok()) return parsed.status();
  driver::PipelineOptions options;
  options.target_kind = backend == Backend::kLLVMJit ? "llvm" : "c";
  absl::StatusOr<ir::IRModule> lowered = driver::LowerTIR(script::AsModule(*parsed), options);
  if (!lowered.ok()) return lowered.status();
  if (backend == Backend::kLLVMJit) {
    absl::StatusOr<std::unique_ptr<codegen::JitModule>> jit = codegen::JitModule::Create(*lowered);
    if (!jit.ok()) return jit.status();
    return std::unique_ptr<runtime::KernelModule>(std::move(*jit));
  }
  absl::StatusOr<std::string> src = codegen::GenerateC(*lowered);
  if (!src.ok()) return src.status();
  std::string path = TempLibraryPath("abi_test");
  if (absl::Status st = codegen::CompileCToSharedLibrary(*src, path); !st.ok()) return st;
  absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib = runtime::KernelLibrary::Load(path);
  std::remove(path.c_str());  // the mapping stays valid after unlink
  if (!lib.ok()) return lib.status();
  return std::unique_ptr<runtime::KernelModule>(std::move(*lib));
}

constexpr DLDataType kF32 = {kDLFloat, 32, 1};
constexpr DLDataType kF64 = {kDLFloat, 64, 1};
constexpr DLDataType kI16 = {kDLInt, 16, 1};
constexpr DLDataType kI32 = {kDLInt, 32, 1};

KilnAny IntArg(int64_t v) {
  KilnAny a{};
  a.type_index = kKilnInt;
  a.v_int64 = v;
  return a;
}

class AbiTest : public ::testing::TestWithParam<Backend> {
 protected:
  // One build per backend for the whole suite: compiling is the slow part.
  static void SetUpTestSuite() {
    for (Backend b : {Backend::kLLVMJit, Backend::kCLibrary}) {
      absl::StatusOr<std::unique_ptr<runtime::KernelModule>> m = Build(b);
      if (m.ok()) {
        modules_[static_cast<int>(b)] = m->release();
      } else {
        build_errors_[static_cast<int>(b)] = std::string(m.status().message());
      }
    }
  }
  static void TearDownTestSuite() {
    for (runtime::KernelModule*& m : modules_) {
      delete m;
      m = nullptr;
    }
  }
  void SetUp() override {
    module_ = modules_[static_cast<int>(GetParam())];
    ASSERT_NE(module_, nullptr) << build_errors_[static_cast<int>(GetParam())];
  }

  // Calls `name` and returns its error message ("" and a test failure if it succeeded).
  std::string Fail(const std::string& name, KilnAny* args, int num_args) {
    KilnAny result{};
    absl::Status st = module_->Call(name, args, num_args, &result);
    EXPECT_FALSE(st.ok()) << name << " accepted bad arguments";
    if (!st.ok()) {
      EXPECT_EQ(result.type_index, kKilnErrorMessage);
    }
    return std::string(st.message());
  }

  // add(A, B, C) over fresh buffers after `edit` spoils them.
  template <typename Edit>
  std::string FailAdd(Edit edit, int num_args = 3) {
    Tensor ta(a_, {16}, kF32), tb(b_, {16}, kF32), tc(c_, {16}, kF32);
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    edit(args, &ta, &tb);
    return Fail("add", args, num_args);
  }

  runtime::KernelModule* module_ = nullptr;
  // 16-byte aligned storage so that "+k bytes" is misaligned for exactly the tests' reasons.
  alignas(16) float a_[32] = {};
  alignas(16) float b_[16] = {};
  alignas(16) float c_[16] = {};
  static runtime::KernelModule* modules_[2];
  static std::string build_errors_[2];
};

runtime::KernelModule* AbiTest::modules_[2] = {nullptr, nullptr};
std::string AbiTest::build_errors_[2];

INSTANTIATE_TEST_SUITE_P(Backends, AbiTest, ::testing::Values(Backend::kLLVMJit, Backend::kCLibrary),
                         [](const auto& info) { return info.param == Backend::kLLVMJit ? "LLVMJit" : "CLibrary"; });

TEST_P(AbiTest, ValidCallsRun) {
  for (int i = 0; i < 16; ++i) {
    a_[i] = 0.25f * i;
    b_[i] = 7.0f - i;
  }
  {
    Tensor ta(a_, {16}, kF32), tb(b_, {16}, kF32), tc(c_, {16}, kF32);
    KilnAny args[3] = {ta.Arg(), tb.Arg(), tc.Arg()};
    ASSERT_TRUE(module_->Call("add", args, 3, nullptr).ok());
    for (int i = 0; i < 16; ++i) EXPECT_EQ(c_[i], 0.25f * i + (7.0f - i)) << i;
  }
  {
    // n = 5 from the shapes; k = 3.
    alignas(8) double x[5] = {1, -2, 3.5, 0, 10}, y[5] = {};
    Tensor tx(x, {5}, kF64), ty(y, {5}, kF64);
    KilnAny args[3] = {tx.Arg(), ty.Arg(), IntArg(3)};
    ASSERT_TRUE(module_->Call("scale", args, 3, nullptr).ok());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(y[i], x[i] * 3) << i;
  }
  {
    // elem_offset = byte_offset / 2 = 3: A is src[3..11).
    int16_t src[12], dst[8] = {};
    for (int i = 0; i < 12; ++i) src[i] = static_cast<int16_t>(100 * i);
    Tensor ta(src, {8}, kI16), tb(dst, {8}, kI16);
    ta.t.byte_offset = 6;
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    ASSERT_TRUE(module_->Call("window", args, 2, nullptr).ok());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(dst[i], 100 * (i + 3) + 1) << i;
  }
  {
    // Row stride 8: A reads every other half-row of a 4x8 array.
    float src[32], dst[16] = {};
    for (int i = 0; i < 32; ++i) src[i] = static_cast<float>(i);
    Tensor ta(src, {4, 4}, kF32, {8, 1}), tb(dst, {4, 4}, kF32);
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    ASSERT_TRUE(module_->Call("strided", args, 2, nullptr).ok());
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) EXPECT_EQ(dst[i * 4 + j], 2.0f * (i * 8 + j)) << i << "," << j;
    }
  }
  {
    // Explicit compact strides, and any stride on a dim of extent 1, are accepted.
    int32_t src[32], dst[32] = {};
    for (int i = 0; i < 32; ++i) src[i] = -i;
    Tensor ta(src, {4, 8}, kI32, {8, 1}), tb(dst, {4, 8}, kI32);
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    ASSERT_TRUE(module_->Call("grid", args, 2, nullptr).ok());
    for (int i = 0; i < 32; ++i) EXPECT_EQ(dst[i], 0) << i;
  }
}

TEST_P(AbiTest, WrongNumArgs) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor*, Tensor*) {}, 2), "TypeError: add: expected 3 arguments (A, B, C)");
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor*, Tensor*) {}, 0), "TypeError: add: expected 3 arguments (A, B, C)");
  alignas(16) int16_t x[8] = {}, y[8] = {};
  Tensor ta(x, {8}, kI16), tb(y, {8}, kI16);
  KilnAny args[3] = {ta.Arg(), tb.Arg(), IntArg(0)};
  EXPECT_EQ(Fail("window", args, 3), "TypeError: window: expected 2 arguments (A, B)");
}

TEST_P(AbiTest, IntWhereTensorExpected) {
  EXPECT_EQ(FailAdd([](KilnAny* args, Tensor*, Tensor*) { args[1] = IntArg(3); }),
            "TypeError: add: argument B (#1) must be a tensor (DLTensor*)");
  EXPECT_EQ(FailAdd([](KilnAny* args, Tensor*, Tensor*) { args[2].type_index = kKilnFloat; }),
            "TypeError: add: argument C (#2) must be a tensor (DLTensor*)");
}

TEST_P(AbiTest, TensorWhereIntExpected) {
  alignas(8) double x[4] = {}, y[4] = {};
  Tensor tx(x, {4}, kF64), ty(y, {4}, kF64);
  KilnAny args[3] = {tx.Arg(), ty.Arg(), tx.Arg()};
  EXPECT_EQ(Fail("scale", args, 3), "TypeError: scale: argument k (#2) must be an integer (int32)");
}

TEST_P(AbiTest, NullTensor) {
  EXPECT_EQ(FailAdd([](KilnAny* args, Tensor*, Tensor*) { args[0].v_ptr = nullptr; }),
            "TypeError: add: argument A is NULL, expected a tensor");
}

TEST_P(AbiTest, NullData) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor*, Tensor* b) { b->t.data = nullptr; }),
            "ValueError: add: argument B.data is NULL");
}

TEST_P(AbiTest, WrongNDim) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->SetShape({4, 4}); }),
            "ValueError: add: argument A.ndim has an unsatisfied constraint: 1 == A.ndim");
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->SetShape({}); }),
            "ValueError: add: argument A.ndim has an unsatisfied constraint: 1 == A.ndim");
}

TEST_P(AbiTest, WrongDType) {
  const std::string expected = "TypeError: add: argument A.dtype has an unsatisfied constraint: A.dtype == float32";
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->t.dtype = {kDLInt, 32, 1}; }), expected);   // code
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->t.dtype = {kDLFloat, 16, 1}; }), expected);  // bits
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->t.dtype = {kDLFloat, 32, 4}; }), expected);  // lanes
  alignas(8) double x[4] = {}, y[4] = {};
  Tensor tx(x, {4}, kF64), ty(y, {4}, kF32);
  KilnAny args[3] = {tx.Arg(), ty.Arg(), IntArg(1)};
  EXPECT_EQ(Fail("scale", args, 3),
            "TypeError: scale: argument B.dtype has an unsatisfied constraint: B.dtype == float64");
}

TEST_P(AbiTest, WrongConstantShape) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor*, Tensor* b) { b->shape[0] = 17; }),
            "ValueError: add: argument B.shape[0] has an unsatisfied constraint: 16 == B.shape[0]");
  int32_t x[32] = {}, y[32] = {};
  Tensor ta(x, {4, 8}, kI32), tb(y, {8, 4}, kI32);
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  EXPECT_EQ(Fail("grid", args, 2),
            "ValueError: grid: argument B.shape[0] has an unsatisfied constraint: 4 == B.shape[0]");
}

TEST_P(AbiTest, InconsistentSymbolicShape) {
  alignas(8) double x[9] = {}, y[9] = {};
  Tensor tx(x, {8}, kF64), ty(y, {9}, kF64);
  KilnAny args[3] = {tx.Arg(), ty.Arg(), IntArg(2)};
  EXPECT_EQ(Fail("scale", args, 3),
            "ValueError: scale: argument B.shape[0] has an unsatisfied constraint: n == B.shape[0]");
}

TEST_P(AbiTest, NonCompactStridesForCompactBuffer) {
  const std::string expected =
      "ValueError: grid: argument A.strides has an unsatisfied constraint: A must be compact (row-major contiguous)";
  int32_t x[64] = {}, y[32] = {};
  {
    Tensor ta(x, {4, 8}, kI32, {16, 1}), tb(y, {4, 8}, kI32);  // padded rows
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    EXPECT_EQ(Fail("grid", args, 2), expected);
  }
  {
    Tensor ta(x, {4, 8}, kI32, {8, 2}), tb(y, {4, 8}, kI32);  // strided innermost dim
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    EXPECT_EQ(Fail("grid", args, 2), expected);
  }
  {
    Tensor ta(x, {4, 8}, kI32, {1, 4}), tb(y, {4, 8}, kI32);  // column-major
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    EXPECT_EQ(Fail("grid", args, 2), expected);
  }
}

TEST_P(AbiTest, DeclaredStridesMismatch) {
  float x[32] = {}, y[16] = {};
  {
    Tensor ta(x, {4, 4}, kF32), tb(y, {4, 4}, kF32);  // NULL strides = compact = (4, 1), not (8, 1)
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    EXPECT_EQ(Fail("strided", args, 2),
              "ValueError: strided: argument A.strides[0] has an unsatisfied constraint: 8 == A.strides[0]");
  }
  {
    Tensor ta(x, {4, 4}, kF32, {8, 2}), tb(y, {4, 4}, kF32);
    KilnAny args[2] = {ta.Arg(), tb.Arg()};
    EXPECT_EQ(Fail("strided", args, 2),
              "ValueError: strided: argument A.strides[1] has an unsatisfied constraint: 1 == A.strides[1]");
  }
}

TEST_P(AbiTest, MisalignedData) {
  EXPECT_EQ(FailAdd([this](KilnAny*, Tensor* a, Tensor*) { a->t.data = reinterpret_cast<char*>(a_) + 1; }),
            "ValueError: add: argument A.data is misaligned: expected an address that is a multiple of 4 bytes");
  alignas(16) double x[8] = {}, y[4] = {};
  Tensor tx(reinterpret_cast<char*>(x) + 4, {4}, kF64), ty(y, {4}, kF64);
  KilnAny args[3] = {tx.Arg(), ty.Arg(), IntArg(1)};
  EXPECT_EQ(Fail("scale", args, 3),
            "ValueError: scale: argument A.data is misaligned: expected an address that is a multiple of 8 bytes");
}

TEST_P(AbiTest, ByteOffset) {
  // A constant (absent) elem_offset wants byte_offset 0.
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor*) { a->t.byte_offset = 4; }),
            "ValueError: add: argument A.byte_offset has an unsatisfied constraint: 0 == A.byte_offset");
  // A variable elem_offset takes any multiple of the element size, and nothing else.
  alignas(16) int16_t x[16] = {}, y[8] = {};
  Tensor ta(x, {8}, kI16), tb(y, {8}, kI16);
  ta.t.byte_offset = 3;
  KilnAny args[2] = {ta.Arg(), tb.Arg()};
  EXPECT_EQ(Fail("window", args, 2),
            "ValueError: window: argument A.byte_offset has an unsatisfied constraint: A.byte_offset % 2 == 0");
}

TEST_P(AbiTest, WrongDeviceType) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor*, Tensor* b) { b->t.device = {kDLCUDA, 0}; }),
            "ValueError: add: argument B.device_type has an unsatisfied constraint: 1 (cpu) == B.device_type");
}

// The first failing check wins, in argument order: a broken A is reported before a broken B.
TEST_P(AbiTest, FirstErrorWins) {
  EXPECT_EQ(FailAdd([](KilnAny*, Tensor* a, Tensor* b) {
              a->shape[0] = 3;
              b->t.dtype = {kDLInt, 8, 1};
            }),
            "ValueError: add: argument A.shape[0] has an unsatisfied constraint: 16 == A.shape[0]");
}

}  // namespace
}  // namespace kiln
