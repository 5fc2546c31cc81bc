// T.compute (issue 17 F3): the TE-style call expands into a loop nest around one SBlock with
// spatial and reduction axes (and T.init for reductions). Each case checks the printed text (plain
// TVMScript, which must round-trip) and runs the function on the reference interpreter against
// values computed here; the error cases check the message and where it points.
#include <algorithm>
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
  explicit Tensor(std::vector<int64_t> s) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.resize(n);
    for (int64_t k = 0; k < n; ++k) data[k] = static_cast<float>((k * 7) % 11) - 5.0f;
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

// Parses, checks the round trip, and returns the module and its printed text.
absl::StatusOr<ir::IRModule> Parse(const std::string& src, std::string* printed, const ParseOptions& o = {}) {
  absl::StatusOr<ir::ObjectRef> r = ParseScript(src, "compute.py", nullptr, o);
  if (!r.ok()) return r.status();
  absl::Status rt = CheckRoundTrip(src, "compute.py", printed, o);
  if (!rt.ok()) return rt;
  return AsModule(*r);
}

absl::Status RunMain(const ir::IRModule& m, std::vector<Tensor*> args) {
  std::vector<KilnAny> a;
  for (Tensor* t : args) a.push_back(t->Arg());
  KilnAny result{};
  return tir::Interpret(m, "main", a.data(), static_cast<int32_t>(a.size()), &result);
}

std::string ErrorOf(const std::string& body) {
  std::string src = absl::StrCat(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 3), "float32"), C: T.Buffer((4,), "float32")):
)", body);
  return std::string(ParseScript(src, "compute.py").status().message());
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ComputeTest, ElementwiseIntoAnExistingBuffer) {
  std::string text;
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((3, 4), "float32"), B: T.Buffer((3, 4), "float32"), C: T.Buffer((3, 4), "float32")):
    T.compute(C, lambda i, j: A[i, j] * B[i, j] + T.float32(1))
)",
                                         &text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(Has(text, "with T.sblock(\"C\"):")) << text;
  EXPECT_TRUE(Has(text, "v_i, v_j = T.axis.remap(\"SS\", [i, j])")) << text;
  EXPECT_TRUE(Has(text, "T.reads(A[v_i, v_j], B[v_i, v_j])")) << text;
  EXPECT_TRUE(Has(text, "C[v_i, v_j] = A[v_i, v_j] * B[v_i, v_j] + T.float32(1.0)")) << text;
  EXPECT_FALSE(Has(text, "T.compute")) << text;
  EXPECT_FALSE(Has(text, "T.init")) << text;
  Tensor a({3, 4}), b({3, 4}), c({3, 4});
  for (float& x : b.data) x += 0.5f;
  ASSERT_TRUE(RunMain(*m, {&a, &b, &c}).ok());
  for (size_t k = 0; k < c.data.size(); ++k) EXPECT_EQ(c.data[k], a.data[k] * b.data[k] + 1.0f) << k;
}

TEST(ComputeTest, SumReductionHasAReduceAxisAndInit) {
  std::string text;
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 5), "float32"), B: T.Buffer((5, 3), "float32"), C: T.Buffer((4, 3), "float32")):
    T.compute(C, lambda i, j, k: A[i, k] * B[k, j], reduce=(5,), name="matmul")
)",
                                         &text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(Has(text, "with T.sblock(\"matmul\"):")) << text;
  EXPECT_TRUE(Has(text, "v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])")) << text;
  // As te.create_prim_func declares them: the reduction's own buffer is not a read.
  EXPECT_TRUE(Has(text, "T.reads(A[v_i, v_k], B[v_k, v_j])")) << text;
  EXPECT_TRUE(Has(text, "T.writes(C[v_i, v_j])")) << text;
  EXPECT_TRUE(Has(text, "with T.init():")) << text;
  EXPECT_TRUE(Has(text, "C[v_i, v_j] = T.float32(0.0)")) << text;
  EXPECT_TRUE(Has(text, "C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]")) << text;
  Tensor a({4, 5}), b({5, 3}), c({4, 3});
  for (float& x : c.data) x = 99.0f;  // overwritten by the init
  ASSERT_TRUE(RunMain(*m, {&a, &b, &c}).ok());
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      float want = 0;
      for (int k = 0; k < 5; ++k) want += a.data[i * 5 + k] * b.data[k * 3 + j];
      EXPECT_FLOAT_EQ(c.data[i * 3 + j], want) << i << "," << j;
    }
  }
}

TEST(ComputeTest, MaxAndProdCombinersAndAnExplicitInit) {
  std::string text;
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 3), "float32"), M: T.Buffer((4,), "float32"), P: T.Buffer((4,), "float32"),
         S: T.Buffer((4,), "float32")):
    T.compute(M, lambda i, k: A[i, k], reduce=3, combiner="max")
    T.compute(P, lambda i, k: A[i, k], reduce=(3,), combiner="prod")
    T.compute(S, lambda i, k: A[i, k], reduce=(3,), init=T.float32(100), name=None, combiner=None)
)",
                                         &text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(Has(text, "M[v_i] = T.max(M[v_i], A[v_i, v_k])")) << text;
  EXPECT_TRUE(Has(text, "M[v_i] = T.float32(-340282346638528859811704183484516925440.0)")) << text;
  EXPECT_TRUE(Has(text, "P[v_i] = T.float32(1.0)")) << text;
  EXPECT_TRUE(Has(text, "S[v_i] = T.float32(100.0)")) << text;
  Tensor a({4, 3}), mx({4}), pr({4}), sm({4});
  ASSERT_TRUE(RunMain(*m, {&a, &mx, &pr, &sm}).ok());
  for (int i = 0; i < 4; ++i) {
    float want_max = -1e30f, want_prod = 1, want_sum = 100;
    for (int k = 0; k < 3; ++k) {
      float x = a.data[i * 3 + k];
      want_max = std::max(want_max, x);
      want_prod *= x;
      want_sum += x;
    }
    EXPECT_EQ(mx.data[i], want_max);
    EXPECT_FLOAT_EQ(pr.data[i], want_prod);
    EXPECT_FLOAT_EQ(sm.data[i], want_sum);
  }
}

TEST(ComputeTest, NewBuffersAreNamedByTheAssignment) {
  for (const char* deco : {"@T.prim_func(s_tir=True)", "@T.prim_func"}) {
    std::string text;
    absl::StatusOr<ir::IRModule> m = Parse(absl::StrCat("\n", deco, R"(
def main(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    D = T.compute((6,), lambda i: A[i] * T.float32(2))
    E = T.compute(6, lambda i: D[i] + T.float32(1), dtype="float32", name="plus_one")
    T.compute(B, lambda i: E[i] - A[i])
)"),
                                           &text);
    ASSERT_TRUE(m.ok()) << deco << ": " << m.status();
    EXPECT_TRUE(Has(text, "with T.sblock(\"D\"):")) << text;
    EXPECT_TRUE(Has(text, "with T.sblock(\"plus_one\"):")) << text;
    EXPECT_TRUE(Has(text, "E[v_i] = D[v_i] + T.float32(1.0)")) << text;
    // An s_tir function allocates the intermediates in its root block, as te.create_prim_func does.
    EXPECT_EQ(Has(text, "T.sblock_alloc_buffer((6,))"), std::string(deco).find("s_tir") != std::string::npos) << text;
    Tensor a({6}), b({6});
    ASSERT_TRUE(RunMain(*m, {&a, &b}).ok());
    for (size_t k = 0; k < 6; ++k) EXPECT_EQ(b.data[k], a.data[k] + 1.0f) << k;
  }
}

TEST(ComputeTest, TupleParametersMakeOneDefinitionRankPolymorphic) {
  constexpr char kSrc[] = R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer(SHAPE, "float32"), B: T.Buffer(OUT, "float32")):
    T.compute(B, lambda idx, r: T.float32(2) * A[*idx, r], reduce=SHAPE[-1])
)";
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{2, 3}, {2, 3, 4}, {2, 1, 3, 2}}) {
    std::vector<std::string> dims;
    for (int64_t d : shape) dims.push_back(std::to_string(d));
    ParseOptions o;
    std::vector<std::string> out_dims(dims.begin(), dims.end() - 1);
    o.defines = {{"SHAPE", absl::StrCat("(", absl::StrJoin(dims, ", "), ",)")},
                 {"OUT", absl::StrCat("(", absl::StrJoin(out_dims, ", "), ",)")}};
    std::string text;
    absl::StatusOr<ir::IRModule> m = Parse(kSrc, &text, o);
    ASSERT_TRUE(m.ok()) << m.status();
    std::string kinds = absl::StrCat(std::string(shape.size() - 1, 'S'), "R");
    EXPECT_TRUE(Has(text, absl::StrCat("T.axis.remap(\"", kinds, "\""))) << text;
    Tensor a(shape), b(std::vector<int64_t>(shape.begin(), shape.end() - 1));
    ASSERT_TRUE(RunMain(*m, {&a, &b}).ok());
    int64_t inner = shape.back();
    for (size_t k = 0; k < b.data.size(); ++k) {
      float want = 0;
      for (int64_t r = 0; r < inner; ++r) want += 2 * a.data[k * inner + r];
      EXPECT_FLOAT_EQ(b.data[k], want) << dims.size() << ":" << k;
    }
  }
}

TEST(ComputeTest, ABufferReadAtSeveralIndicesIsReadWhole) {
  std::string text;
  absl::StatusOr<ir::IRModule> m = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((7, 2), "float32"), B: T.Buffer((6, 2), "float32")):
    T.compute(B, lambda i, j: A[i, j] + A[i + 1, j])
)",
                                         &text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(Has(text, "T.reads(A[0:7, v_j])")) << text;
  Tensor a({7, 2}), b({6, 2});
  ASSERT_TRUE(RunMain(*m, {&a, &b}).ok());
  for (int k = 0; k < 12; ++k) EXPECT_EQ(b.data[k], a.data[k] + a.data[k + 2]) << k;
}

TEST(ComputeTest, ErrorsNameTheProblemAndTheLine) {
  std::string e = ErrorOf("    T.compute(C, lambda i, j, k: A[i, j], reduce=(3,))\n");
  EXPECT_TRUE(Has(e, "compute.py:4:")) << e;
  EXPECT_TRUE(Has(e, "takes 2 parameters (1 spatial, 1 reduction)")) << e;
  e = ErrorOf("    T.compute(C, lambda i, k: A[i, k], reduce=(3,), combiner=\"mean\")\n");
  EXPECT_TRUE(Has(e, "combiner is \"sum\", \"prod\", \"max\" or \"min\", not \"mean\"")) << e;
  e = ErrorOf("    T.compute(C, lambda i: T.int32(i))\n");
  EXPECT_TRUE(Has(e, "the value is int32 but C is float32 (cast it with T.Cast)")) << e;
  e = ErrorOf("    T.compute(C, lambda i: A[i, 0], init=T.float32(0))\n");
  EXPECT_TRUE(Has(e, "combiner= and init= need reduce=")) << e;
  e = ErrorOf("    T.compute(C, A)\n");
  EXPECT_TRUE(Has(e, "T.compute takes a lambda")) << e;
  e = ErrorOf("    T.compute(C, lambda i: undefined_thing[i])\n");
  EXPECT_TRUE(Has(e, "compute.py:4:")) << e;
  EXPECT_TRUE(Has(e, "undefined_thing")) << e;
  // The statement after a failed T.compute still parses (no builder frame was left open).
  e = ErrorOf("    T.compute(C, lambda i: nope[i])\n    T.compute(C, lambda i: A[i, 0])\n    C[0] = bad\n");
  EXPECT_TRUE(Has(e, "compute.py:6:")) << e;
}

}  // namespace
}  // namespace kiln::script
