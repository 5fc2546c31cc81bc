// The reference interpreter on TVMScript snippets and on programs of the shared conformance corpus
// (../shared/corpus/tir): inputs are generated here, expected outputs computed here in plain C++,
// and argument errors, assertion failures, out-of-bounds accesses and max_steps are checked for
// their status codes and messages.
#include "compiler/tir/interp/interp.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/script/script.h"
#include "compiler/tir/interp/value.h"
#include "gtest/gtest.h"
#include "tests/util/shared_dir.h"

namespace kiln::tir {
namespace {

// Whether `text` contains `part` (gmock is not part of the test dependencies).
::testing::AssertionResult HasSubstr(absl::string_view text, absl::string_view part) {
  if (absl::StrContains(text, part)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// ---------------------------------------------------------------- helpers

ir::IRModule Parse(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

ir::IRModule Corpus(const std::string& stem) {
  absl::StatusOr<std::string> dir = testing::SharedDir();
  EXPECT_TRUE(dir.ok()) << dir.status();
  std::ifstream in(*dir + "/corpus/tir/" + stem + ".py");
  EXPECT_TRUE(in.good()) << stem;
  std::stringstream ss;
  ss << in.rdbuf();
  return Parse(ss.str());
}

template <typename T> DLDataType DType();
template <> DLDataType DType<float>() { return {kDLFloat, 32, 1}; }
template <> DLDataType DType<int8_t>() { return {kDLInt, 8, 1}; }
template <> DLDataType DType<int32_t>() { return {kDLInt, 32, 1}; }

// A DLTensor over owned data, keeping its shape and strides alive.
template <typename T>
struct Tensor {
  std::vector<T> data;
  std::vector<int64_t> shape, strides;
  DLTensor t{};
  explicit Tensor(std::vector<int64_t> s, std::vector<int64_t> st = {}) : shape(std::move(s)), strides(std::move(st)) {
    int64_t n = 1;
    for (size_t k = 0; k < shape.size(); ++k) n = strides.empty() ? n * shape[k] : std::max(n, shape[k] * strides[k]);
    data.assign(n, T());
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = DType<T>();
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
  }
  KilnAny Arg() {
    KilnAny a{};
    a.type_index = kKilnDLTensorPtr;
    a.v_ptr = &t;
    return a;
  }
};

KilnAny IntArg(int64_t v) {
  KilnAny a{};
  a.type_index = kKilnInt;
  a.v_int64 = v;
  return a;
}
KilnAny FloatArg(double v) {
  KilnAny a{};
  a.type_index = kKilnFloat;
  a.v_float64 = v;
  return a;
}

absl::Status RunMain(const ir::IRModule& m, std::vector<KilnAny> args, KilnAny* result = nullptr,
                 const InterpOptions& options = {}, const std::string& entry = "main") {
  KilnAny local{};
  return Interpret(m, entry, args.data(), static_cast<int32_t>(args.size()), result ? result : &local, options);
}

// Deterministic pseudo-random values (a fixed LCG), so failures reproduce.
class Rng {
 public:
  uint32_t Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state_ >> 33);
  }
  int64_t Int(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Next() % static_cast<uint32_t>(hi - lo)); }
  float Float(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(Next() % 1000000) / 1e6f; }

 private:
  uint64_t state_ = 12345;
};

// ---------------------------------------------------------------- corpus programs

TEST(InterpTest, VectorAdd) {
  ir::IRModule m = Corpus("001_vector_add_f32");
  Tensor<float> a({128}), b({128}), c({128});
  Rng rng;
  for (int i = 0; i < 128; ++i) {
    a.data[i] = rng.Float(-2, 2);
    b.data[i] = rng.Float(-2, 2);
  }
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg(), c.Arg()}).ok());
  for (int i = 0; i < 128; ++i) EXPECT_EQ(c.data[i], a.data[i] + b.data[i]) << i;
}

TEST(InterpTest, DeclBufferOverAPointerExpressionViewsThatMemory) {
  // data=T.address_of(A[16]): B is the upper half of A.
  ir::IRModule m = Parse(R"(@T.prim_func
def upper_half(A: T.Buffer((32,), "float32")):
    B = T.decl_buffer((16,), "float32", data=T.address_of(A[16]))
    for i in range(16):
        B[i] = B[i] * T.float32(2)
)");
  Tensor<float> a({32});
  for (int i = 0; i < 32; ++i) a.data[i] = static_cast<float>(i);
  absl::Status st = RunMain(m, {a.Arg()}, nullptr, {}, "upper_half");
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < 32; ++i) EXPECT_EQ(a.data[i], i < 16 ? i : 2.0f * i) << i;
}

TEST(InterpTest, Int8ArithmeticWraps) {
  ir::IRModule m = Corpus("002_int8_wrapping_add");  // C = A + B - A * B
  Tensor<int8_t> a({64}), b({64}), c({64});
  for (int i = 0; i < 64; ++i) {
    a.data[i] = static_cast<int8_t>(i * 4 - 128);
    b.data[i] = static_cast<int8_t>(127 - i * 3);
  }
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg(), c.Arg()}).ok());
  for (int i = 0; i < 64; ++i) {
    int x = a.data[i], y = b.data[i];
    EXPECT_EQ(c.data[i], static_cast<int8_t>(static_cast<uint8_t>(x + y - x * y))) << i;
  }
}

TEST(InterpTest, FloorAndTruncatingDivisionOnNegatives) {
  ir::IRModule m = Corpus("026_int_division_variants");  // rows: //, %, truncdiv, truncmod
  Tensor<int32_t> a({40}), b({40}), r({4, 40});
  const int divisors[] = {-7, -3, -2, 2, 3, 5};
  for (int i = 0; i < 40; ++i) {
    a.data[i] = i * 5 - 97;
    b.data[i] = divisors[i % 6];
  }
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg(), r.Arg()}).ok());
  for (int i = 0; i < 40; ++i) {
    int x = a.data[i], y = b.data[i];
    int fd = static_cast<int>(std::floor(static_cast<double>(x) / y));
    EXPECT_EQ(r.data[i], fd) << x << " // " << y;
    EXPECT_EQ(r.data[40 + i], x - fd * y) << x << " % " << y;
    EXPECT_EQ(r.data[80 + i], x / y) << x << " truncdiv " << y;
    EXPECT_EQ(r.data[120 + i], x % y) << x << " truncmod " << y;
  }
  // Spot checks of the loop's reference: -77 and 3 differ under floor and truncation.
  EXPECT_EQ(a.data[4], -77);
  EXPECT_EQ(r.data[4], -26);
  EXPECT_EQ(r.data[44], 1);
  EXPECT_EQ(r.data[84], -25);
  EXPECT_EQ(r.data[124], -2);
}

TEST(InterpTest, SBlockMatmulRunsInitOnFirstReductionIteration) {
  ir::IRModule m = Corpus("015_sblock_matmul");  // C[32, 24] = A[32, 16] @ B[16, 24]
  Tensor<float> a({32, 16}), b({16, 24}), c({32, 24});
  Rng rng;
  for (float& x : a.data) x = rng.Float(-1, 1);
  for (float& x : b.data) x = rng.Float(-1, 1);
  for (float& x : c.data) x = 1000.0f;  // init must overwrite this, not accumulate onto it
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg(), c.Arg()}).ok());
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 24; ++j) {
      float acc = 0;
      for (int k = 0; k < 16; ++k) acc = acc + a.data[i * 16 + k] * b.data[k * 24 + j];
      EXPECT_NEAR(c.data[i * 24 + j], acc, 1e-5) << i << ", " << j;
    }
  }
}

TEST(InterpTest, ReductionWithAllocBuffersSoftmax) {
  ir::IRModule m = Corpus("017_sblock_softmax");
  Tensor<float> a({4, 64}), b({4, 64});
  Rng rng;
  for (float& x : a.data) x = rng.Float(-6, 6);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 4; ++i) {
    double mx = -1e30, sum = 0;
    for (int k = 0; k < 64; ++k) mx = std::max(mx, static_cast<double>(a.data[i * 64 + k]));
    for (int k = 0; k < 64; ++k) sum += std::exp(a.data[i * 64 + k] - mx);
    for (int k = 0; k < 64; ++k) EXPECT_NEAR(b.data[i * 64 + k], std::exp(a.data[i * 64 + k] - mx) / sum, 1e-6);
  }
}

TEST(InterpTest, StridedParameter) {
  ir::IRModule m = Corpus("010_strided_param");  // A declares strides (32, 1); B = A + 1
  Tensor<float> a({16, 16}, {32, 1}), b({16, 16});
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<float>(i);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) EXPECT_EQ(b.data[i * 16 + j], static_cast<float>(i * 32 + j) + 1.0f);
  }
  // A compact A does not have the declared row stride; B, declared compact, rejects strides.
  Tensor<float> compact({16, 16}), b_strided({16, 16}, {32, 1});
  absl::Status st = RunMain(m, {compact.Arg(), b.Arg()});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(st.message(), "ValueError: main: argument A.strides[0] has an unsatisfied constraint: 32 == A.strides[0]"));
  st = RunMain(m, {a.Arg(), b_strided.Arg()});
  EXPECT_TRUE(HasSubstr(st.message(), "argument B.strides has an unsatisfied constraint: B must be compact"));
}

TEST(InterpTest, MatchBufferBindsSymbolicShape) {
  ir::IRModule m = Corpus("009_match_buffer_symbolic");  // B = A * 3 - 1 over (n,)
  Tensor<float> a({37}), b({37});
  for (int i = 0; i < 37; ++i) a.data[i] = 0.5f * i;
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(b.data[i], a.data[i] * 3.0f - 1.0f);
  Tensor<float> short_b({36});
  absl::Status st = RunMain(m, {a.Arg(), short_b.Arg()});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(HasSubstr(st.message(), "argument B.shape[0] has an unsatisfied constraint: n == B.shape[0]"));
}

TEST(InterpTest, AssertFailureReportsKindAndMessage) {
  ir::IRModule m = Corpus("024_assert_shape_guard");  // n even, scale > 0; B = A / scale
  Tensor<float> a({12, 4}), b({12, 4});
  for (int i = 0; i < 48; ++i) a.data[i] = static_cast<float>(i);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg(), FloatArg(4.0)}).ok());
  for (int i = 0; i < 48; ++i) EXPECT_EQ(b.data[i], a.data[i] / 4.0f);

  absl::Status st = RunMain(m, {a.Arg(), b.Arg(), FloatArg(-1.0)});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "ValueError: scale must be positive");
  Tensor<float> a7({7, 4}), b7({7, 4});
  st = RunMain(m, {a7.Arg(), b7.Arg(), FloatArg(1.0)});
  EXPECT_EQ(st.message(), "ValueError: n must be even");
}

TEST(InterpTest, BadArgumentsAreRejectedLikeACompiledKernel) {
  ir::IRModule m = Corpus("001_vector_add_f32");  // (A, B, C): float32 (128,)
  Tensor<float> a({128}), b({128}), c({128});
  auto message = [&](std::vector<KilnAny> args) {
    absl::Status st = RunMain(m, std::move(args));
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    return std::string(st.message());
  };
  EXPECT_EQ(message({a.Arg(), b.Arg()}), "TypeError: main: expected 3 arguments (A, B, C)");
  EXPECT_EQ(message({a.Arg(), IntArg(3), c.Arg()}), "TypeError: main: argument B (#1) must be a tensor (DLTensor*)");
  Tensor<int32_t> ints({128});
  EXPECT_EQ(message({ints.Arg(), b.Arg(), c.Arg()}),
            "TypeError: main: argument A.dtype has an unsatisfied constraint: A.dtype == float32");
  Tensor<float> two_d({128, 1});
  EXPECT_EQ(message({a.Arg(), two_d.Arg(), c.Arg()}),
            "ValueError: main: argument B.ndim has an unsatisfied constraint: 1 == B.ndim");
  Tensor<float> longer({129});
  EXPECT_EQ(message({a.Arg(), b.Arg(), longer.Arg()}),
            "ValueError: main: argument C.shape[0] has an unsatisfied constraint: 128 == C.shape[0]");
  Tensor<float> null_data({128});
  null_data.t.data = nullptr;
  EXPECT_EQ(message({a.Arg(), null_data.Arg(), c.Arg()}), "ValueError: main: argument B.data is NULL");
  KilnAny null_tensor{};
  null_tensor.type_index = kKilnDLTensorPtr;
  EXPECT_EQ(message({null_tensor, b.Arg(), c.Arg()}), "TypeError: main: argument A is NULL, expected a tensor");
  Tensor<float> offset({128});
  offset.t.byte_offset = 4;
  EXPECT_EQ(message({a.Arg(), b.Arg(), offset.Arg()}),
            "ValueError: main: argument C.byte_offset has an unsatisfied constraint: 0 == C.byte_offset");
}

TEST(InterpTest, ScalarParamsAndReturn) {
  ir::IRModule m = Corpus("040_return_scalar");  // a > b ? a*3 - b : max(a, b) + min(a, 0)
  for (auto [x, y] : std::vector<std::pair<int, int>>{{17, 5}, {-4, 9}, {3, 3}, {-8, -2}}) {
    KilnAny result{};
    ASSERT_TRUE(RunMain(m, {IntArg(x), IntArg(y)}, &result).ok());
    EXPECT_EQ(result.type_index, kKilnInt);
    EXPECT_EQ(result.v_int64, x > y ? x * 3 - y : std::max(x, y) + std::min(x, 0)) << x << ", " << y;
  }
  absl::Status st = RunMain(m, {FloatArg(1.5), IntArg(2)});
  EXPECT_EQ(st.message(), "TypeError: main: argument a (#0) must be an integer (int32)");
}

TEST(InterpTest, CallsAnotherPrimFunc) {
  ir::IRModule m = Corpus("041_cross_function_call");  // B = smoothstep(clip(A, 0, 1))
  Tensor<float> a({64}), b({64});
  for (int i = 0; i < 64; ++i) a.data[i] = -0.5f + i * (2.0f / 64);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 64; ++i) {
    float t = std::min(std::max(a.data[i], 0.0f), 1.0f);
    EXPECT_NEAR(b.data[i], t * t * (3.0f - 2.0f * t), 1e-6);
  }
}

TEST(InterpTest, WhileLoopAndLocalScalars) {
  ir::IRModule m = Corpus("023_while_collatz");
  Tensor<int32_t> a({32}), steps({32});
  for (int i = 0; i < 32; ++i) a.data[i] = 1 + i * 6;
  ASSERT_TRUE(RunMain(m, {a.Arg(), steps.Arg()}).ok());
  for (int i = 0; i < 32; ++i) {
    int x = a.data[i], n = 0;
    while (x != 1) {
      x = x % 2 == 0 ? x / 2 : 3 * x + 1;
      ++n;
    }
    EXPECT_EQ(steps.data[i], n) << a.data[i];
  }
}

TEST(InterpTest, MaxStepsStopsANonTerminatingWhile) {
  ir::IRModule m = Parse(R"(
@T.prim_func
def main(A: T.Buffer((1,), "int32")):
    x: T.int32
    x = 0
    while x < 10:
        A[0] = A[0] + 1
)");
  Tensor<int32_t> a({1});
  InterpOptions options;
  options.max_steps = 1000;
  absl::Status st = RunMain(m, {a.Arg()}, nullptr, options);
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
  EXPECT_GT(a.data[0], 100);  // it did run until stopped
  EXPECT_LT(a.data[0], 1000);
}

TEST(InterpTest, OutOfBoundsAccessIsAnError) {
  ir::IRModule m = Parse(R"(
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i + 1]
)");
  Tensor<float> a({16}), b({16});
  for (int i = 0; i < 16; ++i) {
    a.data[i] = static_cast<float>(i + 1);
    b.data[i] = -1.0f;
  }
  absl::Status st = RunMain(m, {a.Arg(), b.Arg()});
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange) << st;
  EXPECT_TRUE(HasSubstr(st.message(), "out-of-bounds access A[16]"));
  EXPECT_EQ(b.data[14], 16.0f);  // the iterations before ran
  EXPECT_EQ(b.data[15], -1.0f);  // the failing one stored nothing
}

TEST(InterpTest, UndefinedArithmeticIsAnError) {
  ir::IRModule div = Parse(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    A[0] = A[0] // A[1]
)");
  Tensor<int32_t> a({2});
  a.data = {7, 0};
  a.t.data = a.data.data();
  absl::Status zero = RunMain(div, {a.Arg()});
  EXPECT_EQ(zero.code(), absl::StatusCode::kOutOfRange);
  // The fault names the function and the source location, as checked-mode kernels do.
  EXPECT_EQ(zero.message(), "main: int32 division by zero (at test.py:4:12)") << zero;
  ir::IRModule cast = Parse(R"(
@T.prim_func
def main(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "int8")):
    B[0] = T.Cast("int8", A[0])
)");
  Tensor<float> f({1});
  Tensor<int8_t> i8({1});
  f.data[0] = 300.0f;
  absl::Status st = RunMain(cast, {f.Arg(), i8.Arg()});
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange) << st;
  f.data[0] = -100.75f;
  ASSERT_TRUE(RunMain(cast, {f.Arg(), i8.Arg()}).ok());
  EXPECT_EQ(i8.data[0], -100);  // truncation toward zero
}

// T.call_packed goes to InterpOptions::call_packed (how GPU targets run a split host function),
// with handles, integers and floats in the kernel ABI's form; without a hook it is UNIMPLEMENTED.
TEST(InterpTest, CallPackedGoesToTheHook) {
  ir::IRModule m = Parse(R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32"), n: T.int32):
    T.call_packed("launch", A.data, n * 2, T.float32(0.5))
)");
  Tensor<float> a({4});
  std::string called;
  std::vector<KilnAny> seen;
  InterpOptions options;
  options.call_packed = [&](const std::string& name, const std::vector<KilnAny>& args) {
    called = name;
    seen = args;
    return absl::OkStatus();
  };
  ASSERT_TRUE(RunMain(m, {a.Arg(), IntArg(3)}, nullptr, options).ok());
  EXPECT_EQ(called, "launch");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].type_index, kKilnOpaquePtr);
  EXPECT_EQ(seen[0].v_ptr, a.data.data());
  EXPECT_EQ(seen[1].type_index, kKilnInt);
  EXPECT_EQ(seen[1].v_int64, 6);
  EXPECT_EQ(seen[2].type_index, kKilnFloat);
  EXPECT_EQ(seen[2].v_float64, 0.5);
  options.call_packed = [](const std::string&, const std::vector<KilnAny>&) {
    return absl::InternalError("device lost");
  };
  absl::Status st = RunMain(m, {a.Arg(), IntArg(3)}, nullptr, options);
  EXPECT_TRUE(absl::IsInternal(st)) << st;
  EXPECT_TRUE(absl::IsUnimplemented(RunMain(m, {a.Arg(), IntArg(3)}))) << RunMain(m, {a.Arg(), IntArg(3)});
}

// vscale has no value here: a scalable vector program is refused before it runs, by position.
TEST(InterpTest, ScalableVectorIsRejected) {
  ir::IRModule m = Parse(R"(
@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    A[0:T.vscale() * 4] = T.Broadcast(T.float32(1), T.vscale() * 4)
)");
  Tensor<float> a({128});
  absl::Status st = RunMain(m, {a.Arg()});
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(HasSubstr(st.message(), "the TIR interpreter does not support scalable vectors"));
  EXPECT_TRUE(HasSubstr(st.message(), "at test.py:4:"));
}

TEST(InterpTest, IfThenElseIsLazy) {
  // The false arm reads A out of bounds on the padding; only a lazy if_then_else stays in bounds.
  ir::IRModule m = Corpus("021_pad_if_then_else");
  Tensor<float> a({10, 10}), b({14, 14});
  for (int i = 0; i < 100; ++i) a.data[i] = static_cast<float>(i);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 14; ++i) {
    for (int j = 0; j < 14; ++j) {
      bool inside = i >= 2 && i < 12 && j >= 2 && j < 12;
      EXPECT_EQ(b.data[i * 14 + j], inside ? a.data[(i - 2) * 10 + j - 2] : -1.0f);
    }
  }
}

TEST(InterpTest, VectorsRampBroadcastShuffle) {
  ir::IRModule ramp = Corpus("030_ramp_broadcast");  // B[4i..4i+3] = A[...] * 3 + i
  Tensor<float> a({64}), b({64});
  for (int i = 0; i < 64; ++i) a.data[i] = static_cast<float>(i) * 0.25f;
  ASSERT_TRUE(RunMain(ramp, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(b.data[i], a.data[i] * 3.0f + static_cast<float>(i / 4));
  ir::IRModule shuffle = Corpus("031_shuffle_reverse");  // reverses each group of 4
  Tensor<int32_t> x({32}), y({32});
  for (int i = 0; i < 32; ++i) x.data[i] = i * 7 - 50;
  ASSERT_TRUE(RunMain(shuffle, {x.Arg(), y.Arg()}).ok());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y.data[i], x.data[(i / 4) * 4 + 3 - i % 4]);
}

TEST(InterpTest, MathIntrinsics) {
  ir::IRModule m = Corpus("032_math_intrinsics");
  Tensor<float> a({32}), r({9, 32});
  for (int i = 0; i < 32; ++i) a.data[i] = -3.0f + i * 0.19f;
  ASSERT_TRUE(RunMain(m, {a.Arg(), r.Arg()}).ok());
  for (int i = 0; i < 32; ++i) {
    double x = a.data[i];
    double want[9] = {std::exp(x), std::log(std::fabs(x) + 1), std::sqrt(std::fabs(x)), std::tanh(x),
                      1 / (1 + std::exp(-x)), std::fabs(x), std::floor(x), std::ceil(x), std::pow(std::fabs(x), 1.5)};
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(r.data[k * 32 + i], want[k], 1e-5 * (1 + std::fabs(want[k]))) << k << " " << x;
  }
}

TEST(InterpTest, GpuBarrierSplitsThreadBlock) {
  // Each thread writes tile[tx], syncs, then reads tile[63 - tx]: correct only if every thread's
  // write happens before any thread's read.
  ir::IRModule m = Corpus("038_gpu_shared_tile");
  Tensor<float> a({256}), b({256});
  for (int i = 0; i < 256; ++i) a.data[i] = static_cast<float>(i);
  ASSERT_TRUE(RunMain(m, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(b.data[i], a.data[(i / 64) * 64 + 63 - i % 64]) << i;
}

TEST(InterpTest, LetAllocAndDeclBuffer) {
  ir::IRModule let = Corpus("025_let_bindings");  // B[255 - (16i + j)] = A[i, j]^2 + 1
  Tensor<float> a({16, 16}), b({256});
  for (int i = 0; i < 256; ++i) a.data[i] = 0.01f * i;
  ASSERT_TRUE(RunMain(let, {a.Arg(), b.Arg()}).ok());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(b.data[255 - i], a.data[i] * a.data[i] + 1.0f);
  ir::IRModule decl = Corpus("034_decl_buffer_flat_view");  // B[k] = flat(A)[63 - k] + k
  Tensor<int32_t> x({8, 8}), y({64});
  for (int i = 0; i < 64; ++i) x.data[i] = i * 3 - 90;
  ASSERT_TRUE(RunMain(decl, {x.Arg(), y.Arg()}).ok());
  for (int k = 0; k < 64; ++k) EXPECT_EQ(y.data[k], x.data[63 - k] + k);
}

TEST(InterpTest, BlockMatchBufferIsAView) {
  ir::IRModule m = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(4, 4):
        with T.sblock("tile"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 2:vi * 2 + 2, vj * 2:vj * 2 + 2])
            T.writes(B[vi * 2:vi * 2 + 2, vj * 2:vj * 2 + 2])
            S = T.match_buffer(A[vi * 2:vi * 2 + 2, vj * 2:vj * 2 + 2], (2, 2), strides=("s0", "s1"))
            D = T.match_buffer(B[vi * 2:vi * 2 + 2, vj * 2:vj * 2 + 2], (2, 2), strides=("d0", "d1"))
            D[0, 0] = S[1, 1]
            D[1, 1] = S[0, 0]
            D[0, 1] = S[0, 1]
            D[1, 0] = S[1, 0]
)");
  Tensor<float> a({8, 8}), b({8, 8});
  for (int i = 0; i < 64; ++i) a.data[i] = static_cast<float>(i);
  absl::Status st = RunMain(m, {a.Arg(), b.Arg()});
  ASSERT_TRUE(st.ok()) << st;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      bool diag = (i % 2) == (j % 2);
      int si = diag ? (i ^ 1) : i, sj = diag ? (j ^ 1) : j;
      EXPECT_EQ(b.data[i * 8 + j], a.data[si * 8 + sj]) << i << ", " << j;
    }
  }
}

TEST(InterpTest, UnknownIntrinsicIsUnimplemented) {
  using namespace ir;  // NOLINT
  Stmt body = Evaluate(Call(DataType::Int(32), Op("tirx.no_such_op"), {IntImm(DataType::Int(32), 1)}));
  IRModule m = IRModule::Make();
  m.Add(GlobalVar("main"), PrimFunc({}, body));
  absl::Status st = RunMain(m, {});
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(HasSubstr(st.message(), "tirx.no_such_op"));
  EXPECT_EQ(RunMain(m, {}, nullptr, {}, "missing").code(), absl::StatusCode::kNotFound);
}

// ---------------------------------------------------------------- value helpers

TEST(InterpValueTest, HalfAndBFloat16Conversions) {
  EXPECT_EQ(interp::DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(interp::DoubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(interp::DoubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(interp::DoubleToHalf(65520.0), 0x7c00);  // rounds up to inf
  EXPECT_EQ(interp::DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(interp::DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);  // tie to even (zero)
  EXPECT_EQ(interp::DoubleToHalf(0.1), 0x2e66);
  EXPECT_EQ(interp::DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // tie to even
  EXPECT_EQ(interp::DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(interp::HalfToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(interp::HalfToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(interp::FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(interp::FloatToBFloat16(3.14159265f), 0x4049);
  EXPECT_EQ(interp::BFloat16ToFloat(0xc000), -2.0f);
  EXPECT_EQ(interp::WrapInt(200, ir::DataType::Int(8)), -56);
  EXPECT_EQ(interp::WrapInt(-1, ir::DataType::UInt(16)), 65535);
}

TEST(InterpTest, Float16Program) {
  ir::IRModule m = Parse(R"(
@T.prim_func
def main(X: T.Buffer((4,), "float16"), Z: T.Buffer((4,), "float16")):
    for i in range(4):
        Z[i] = X[i] * T.float16(0.5) + T.float16(1.0)
)");
  std::vector<uint16_t> x = {0x3c00, 0xc000, 0x7bff, 0x2e66}, z(4);  // 1, -2, 65504, ~0.1
  std::vector<int64_t> shape = {4};
  DLTensor tx{x.data(), {kDLCPU, 0}, 1, {kDLFloat, 16, 1}, shape.data(), nullptr, 0};
  DLTensor tz{z.data(), {kDLCPU, 0}, 1, {kDLFloat, 16, 1}, shape.data(), nullptr, 0};
  KilnAny ax{}, az{};
  ax.type_index = az.type_index = kKilnDLTensorPtr;
  ax.v_ptr = &tx;
  az.v_ptr = &tz;
  ASSERT_TRUE(RunMain(m, {ax, az}).ok());
  EXPECT_EQ(z[0], 0x3e00);  // 1.5
  EXPECT_EQ(z[1], 0x0000);  // -1 + 1 = 0
  EXPECT_EQ(z[2], 0x77ff);  // 32752 + 1 rounds back to 32752
  EXPECT_EQ(z[3], 0x3c33);  // 0.05 + 1 = 1.0498046875
}

}  // namespace
}  // namespace kiln::tir
