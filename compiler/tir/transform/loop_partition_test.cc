#include "gtest/gtest.h"
#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "compiler/tir/transform/interp_check.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimFunc Parse(const std::string& text) {
  absl::StatusOr<ObjectRef> r = script::ParseScript(text, "t.py");
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || !r->as<PrimFuncNode>()) return PrimFunc();
  return Downcast<PrimFunc>(*r);
}

// LoopPartition then Simplify (as the pipeline runs them) must give `after`. The `after` texts are
// kiln's own printer output for the pass's result, checked by reading: a change detector, not the
// oracle. The oracle is the reference interpreter: the program before and after the pass must
// write the same values for every n in `ns`.
void ExpectPartition(const std::string& before, const std::string& after, const std::vector<int64_t>& ns) {
  PrimFunc f = Parse(before), want = Parse(after);
  ASSERT_TRUE(f.defined() && want.defined());
  PrimFunc got = Simplify(LoopPartition(f));
  EXPECT_TRUE(StructuralEqual(got->body, want->body, true))
      << "got:\n" << script::printer::Print(got) << "\nwant:\n" << script::printer::Print(want);
  testing::ExpectSameBehaviour(f, got, ns);
}

// n from empty through a few partial tiles to the buffers' size (64 for the smallest).
const std::vector<int64_t> kNs = {0, 1, 2, 3, 5, 7, 10, 33, 63, 64};

// A non-divisible tile of 4 over a symbolic n: the middle loop has no guard (and vectorizes), the
// epilogue keeps it.
TEST(LoopPartitionTest, SymbolicTileTailSplitsOff) {
  ExpectPartition(R"(
@T.prim_func
def f(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), n: T.int32):
    for io in range((n + 3) // 4):
        for ii in T.vectorized(4):
            if T.likely(io * 4 + ii < n):
                B[io * 4 + ii] = A[io * 4 + ii] * T.float32(2)
)", R"(
@T.prim_func
def f(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), n: T.int32):
    for io in range(T.Cast("int32", T.max(T.min(T.Cast("int64", n) // T.int64(4), T.Cast("int64", (n + 3) // 4)), T.int64(0)))):
        for ii in T.vectorized(4):
            B[io * 4 + ii] = A[io * 4 + ii] * T.float32(2.0)
    for io in range(T.Cast("int32", T.max(T.min(T.Cast("int64", n) // T.int64(4), T.Cast("int64", (n + 3) // 4)), T.int64(0))), T.Cast("int32", T.max(T.min(T.Cast("int64", n) // T.int64(4), T.Cast("int64", (n + 3) // 4)), T.int64(0))) + T.Cast("int32", T.Cast("int64", (n + 3) // 4) - T.max(T.min(T.Cast("int64", n) // T.int64(4), T.Cast("int64", (n + 3) // 4)), T.int64(0)))):
        for ii in T.vectorized(4):
            if io * 4 + ii < n:
                B[io * 4 + ii] = A[io * 4 + ii] * T.float32(2.0)
)", kNs);
}

// A lower bound gives a prologue (where Simplify then picks the else branch).
TEST(LoopPartitionTest, LowerBoundGivesPrologue) {
  ExpectPartition(R"(
@T.prim_func
def f(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), n: T.int32):
    for i in range(n):
        if T.likely(i >= 2):
            B[i] = A[i - 2]
        else:
            B[i] = T.float32(0)
)", R"(
@T.prim_func
def f(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), n: T.int32):
    for i in range(T.Cast("int32", T.min(T.int64(2), T.Cast("int64", n)))):
        B[i] = T.float32(0.0)
    for i in range(T.Cast("int32", T.min(T.int64(2), T.Cast("int64", n))), T.Cast("int32", T.min(T.int64(2), T.Cast("int64", n))) + T.Cast("int32", T.Cast("int64", n) - T.min(T.int64(2), T.Cast("int64", n)))):
        B[i] = A[i - 2]
)", kNs);
}

// As in TVM's default configuration, loops with a constant range are left alone (only the likely
// hint goes), and so are conditions the pass cannot solve for the loop variable.
TEST(LoopPartitionTest, ConstantLoopsAndOpaqueConditionsStay) {
  ExpectPartition(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "int32"), n: T.int32):
    for i in range(10):
        if T.likely(i < 7):
            A[i] = T.float32(1)
    for j in range(n):
        if T.likely(C[j] < 7):
            A[j] = T.float32(2)
        if T.likely(j * j < 7):
            A[j] = T.float32(3)
)", R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "int32"), n: T.int32):
    for i in range(10):
        if i < 7:
            A[i] = T.float32(1)
    for j in range(n):
        if C[j] < 7:
            A[j] = T.float32(2)
        if j * j < 7:
            A[j] = T.float32(3)
)", kNs);
}

// Both sides wrap for some i and n (n + 2147483600 for n = 100), so the program's comparison is
// not the exact one: the condition stays. Where the middle range keeps them from wrapping (i <
// n - 2147483600 leaves at most 47 iterations), the split is made.
TEST(LoopPartitionTest, ConditionsThatMayWrapStay) {
  ExpectPartition(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(n):
        if T.likely(i + 2147483600 < n + 2147483600):
            A[i] = T.float32(1)
    for i in range(n):
        if T.likely(i + 2147483600 < n):
            A[i] = T.float32(2)
)", R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(n):
        if i + 2147483600 < n + 2147483600:
            A[i] = T.float32(1)
    for i in range(T.Cast("int32", T.max(T.Cast("int64", n) - T.int64(2147483600), T.int64(0)))):
        A[i] = T.float32(2.0)
    for i in range(T.Cast("int32", T.max(T.Cast("int64", n) - T.int64(2147483600), T.int64(0))), T.Cast("int32", T.max(T.Cast("int64", n) - T.int64(2147483600), T.int64(0))) + T.Cast("int32", T.Cast("int64", n) - T.max(T.Cast("int64", n) - T.int64(2147483600), T.int64(0)))):
        if i + 2147483600 < n:
            A[i] = T.float32(2.0)
)",
                  // i + 2147483600 and n + 2147483600 stay in int32 only up to n = 47.
                  {0, 1, 5, 46, 47});
}

}  // namespace
}  // namespace kiln::tir::transform
