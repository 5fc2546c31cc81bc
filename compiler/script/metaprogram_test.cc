// TVMScript metaprogramming (issue 17 F2/F4): T.macro (hygienic and not) expanded at parse time,
// Python `for` over captured tuples unrolled, and rank-polymorphic kernels (`T.grid(*shape)`,
// `T.axis.remap("S" * len(shape), idx)`, `B[*v]`). Each result is checked for its structure (the
// printed text, which must round-trip) and run on the reference interpreter against values computed
// here.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "compiler/tir/interp/interp.h"
#include "gtest/gtest.h"

namespace kiln::script {
namespace {

// A float32 DLTensor over owned data.
struct Tensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
  DLTensor t{};
  explicit Tensor(std::vector<int64_t> s, float fill) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.assign(n, fill);
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
  }
  KilnAny Arg() {
    KilnAny a{};
    a.type_index = kKilnDLTensorPtr;
    a.v_ptr = &t;
    return a;
  }
};

absl::StatusOr<ir::IRModule> Parse(const std::string& src, const ParseOptions& o = {}) {
  absl::StatusOr<ir::ObjectRef> r = ParseScript(src, "meta.py", nullptr, o);
  if (!r.ok()) return r.status();
  std::string printed;
  absl::Status rt = CheckRoundTrip(src, "meta.py", &printed, o);
  if (!rt.ok()) return rt;
  return AsModule(*r);
}

absl::Status RunMain(const ir::IRModule& m, std::vector<Tensor*> args) {
  std::vector<KilnAny> a;
  for (Tensor* t : args) a.push_back(t->Arg());
  KilnAny result{};
  return tir::Interpret(m, "main", a.data(), static_cast<int32_t>(a.size()), &result);
}

constexpr char kMacros[] = R"(
C = 10

@T.macro
def add_c(buf, i, j):
    buf[i, j] = buf[i, j] + T.float32(C)

@T.macro(hygienic=False)
def times_c(buf, i, j):
    buf[i, j] = buf[i, j] * T.Cast("float32", C)

@T.prim_func
def main(A: T.Buffer((4, 3), "float32")):
    for i in range(4):
        for C in range(3):
            add_c(A, i, C)
            times_c(A, i, j=C)
)";

TEST(MacroTest, HygienicResolvesAtTheDefinitionNonHygienicAtTheCall) {
  absl::StatusOr<ir::IRModule> m = Parse(kMacros);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string text = printer::Print(*m);
  // Expanded in place: no call remains, the module constant and the loop variable are substituted.
  EXPECT_EQ(text.find("add_c"), std::string::npos) << text;
  EXPECT_NE(text.find("A[i, C] = A[i, C] + T.float32(10.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("A[i, C] = A[i, C] * T.Cast(\"float32\", C)"), std::string::npos) << text;
  Tensor a({4, 3}, 1.0f);
  ASSERT_TRUE(RunMain(*m, {&a}).ok());
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(a.data[i * 3 + j], 11.0f * j) << i << "," << j;
  }
}

TEST(MacroTest, HygienicBodyDoesNotSeeTheCallersNames) {
  constexpr char kSrc[] = R"(
@T.macro
def bump(buf):
    buf[i] = buf[i] + T.float32(1)

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        bump(A)
)";
  absl::Status st = ParseScript(kSrc, "meta.py").status();
  EXPECT_NE(st.message().find("meta.py:4:"), std::string::npos) << st;
  EXPECT_NE(st.message().find("Undefined variable: i"), std::string::npos) << st;
  // The same body, non-hygienic, uses the caller's loop variable.
  std::string open = absl::StrCat(kSrc);
  open.replace(open.find("@T.macro"), 8, "@T.macro(hygienic=False)");
  absl::StatusOr<ir::IRModule> m = Parse(open);
  ASSERT_TRUE(m.ok()) << m.status();
  Tensor a({4}, 2.0f);
  ASSERT_TRUE(RunMain(*m, {&a}).ok());
  for (float x : a.data) EXPECT_EQ(x, 3.0f);
}

TEST(MacroTest, ArgumentErrorsAndRecursion) {
  auto error_of = [](const std::string& call, const std::string& extra = "") {
    std::string src = absl::StrCat(R"(
@T.macro
def put(buf, i, v=T.float32(0)):
    buf[i] = v
)", extra, R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    )", call, "\n");
    return std::string(ParseScript(src, "meta.py").status().message());
  };
  EXPECT_NE(error_of("put(A)").find("macro 'put' is missing its argument 'i'"), std::string::npos) << error_of("put(A)");
  EXPECT_NE(error_of("put(A, 0, 1, 2)").find("takes 3 arguments, got 4"), std::string::npos);
  EXPECT_NE(error_of("put(A, 0, w=1)").find("has no parameter 'w'"), std::string::npos);
  EXPECT_NE(error_of("put(A, 0, i=1)").find("got two values for 'i'"), std::string::npos);
  std::string rec = error_of("loop(A)", "\n@T.macro\ndef loop(buf):\n    loop(buf)\n");
  EXPECT_NE(rec.find("levels deep (recursive?)"), std::string::npos) << rec;
  // Defaults are used when not given.
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.macro
def put(buf, i, v=T.float32(5)):
    buf[i] = v

@T.prim_func
def main(A: T.Buffer((2,), "float32")):
    put(A, 0)
    put(A, 1, v=T.float32(6))
)");
  ASSERT_TRUE(m.ok()) << m.status();
  Tensor a({2}, 0.0f);
  ASSERT_TRUE(RunMain(*m, {&a}).ok());
  EXPECT_EQ(a.data, (std::vector<float>{5, 6}));
}

TEST(UnrolledForTest, PythonLoopsOverCapturedTuplesEmitNoLoop) {
  ParseOptions o;
  o.defines = {{"SHIFTS", "(1, 2, 4)"}, {"PAIRS", "((0, 3), (1, 5))"}};
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        for s in SHIFTS:
            A[i] = A[i] + T.float32(s)
    for k, v in PAIRS:
        A[k] = A[k] * T.float32(v)
)",
                                          o);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string text = printer::Print(*m);
  EXPECT_EQ(text.find("for s"), std::string::npos) << text;
  EXPECT_NE(text.find("A[i] = A[i] + T.float32(4.0)"), std::string::npos) << text;
  Tensor a({4}, 1.0f);
  ASSERT_TRUE(RunMain(*m, {&a}).ok());
  EXPECT_EQ(a.data, (std::vector<float>{24, 40, 8, 8}));
}

constexpr char kRankPolymorphic[] = R"(
@T.macro
def add_one(dst, src, v):
    dst[*v] = src[*v] + T.float32(1)

@T.prim_func
def main(A: T.Buffer(SHAPE, "float32"), B: T.Buffer(SHAPE, "float32")):
    for idx in T.grid(*SHAPE):
        with T.sblock("add"):
            v = T.axis.remap("S" * len(SHAPE), idx)
            add_one(B, A, v)
)";

TEST(RankPolymorphismTest, OneDefinitionForRanksOneToFour) {
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{5}, {2, 3}, {2, 3, 4}, {2, 1, 3, 2}}) {
    std::vector<std::string> dims;
    for (int64_t d : shape) dims.push_back(std::to_string(d));
    ParseOptions o;
    o.defines = {{"SHAPE", absl::StrCat("(", absl::StrJoin(dims, ", "), ",)")}};
    absl::StatusOr<ir::IRModule> m = Parse(kRankPolymorphic, o);
    ASSERT_TRUE(m.ok()) << m.status();
    std::string text = printer::Print(*m);
    // One block axis per dimension (TVM prints a lone one as T.axis.spatial).
    std::string axes = shape.size() == 1 ? "T.axis.spatial(5, idx)"
                                         : absl::StrCat("T.axis.remap(\"", std::string(shape.size(), 'S'), "\"");
    EXPECT_NE(text.find(axes), std::string::npos) << text;
    Tensor a(shape, 0.0f), b(shape, 0.0f);
    for (size_t k = 0; k < a.data.size(); ++k) a.data[k] = static_cast<float>(k);
    ASSERT_TRUE(RunMain(*m, {&a, &b}).ok());
    for (size_t k = 0; k < a.data.size(); ++k) EXPECT_EQ(b.data[k], k + 1.0f) << dims.size();
  }
}

}  // namespace
}  // namespace kiln::script
