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

// The flat form StorageRewrite sees (after LowerSBlocks + FlattenBuffer).
PrimFunc Flat(const std::string& text) {
  PrimFunc f = Parse(text);
  if (!f.defined()) return f;
  absl::StatusOr<PrimFunc> r = LowerSBlocks(f, "f");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Simplify(FlattenBuffer(*r)) : PrimFunc();
}

// StorageRewrite on the flat form of `before` must give the flat form of `after`. The `after` texts
// are kiln's own printer output for the pass's result, checked by reading: a change detector, not
// the oracle. The oracle is the reference interpreter: the program as written and after the rewrite
// must compute the same outputs.
void ExpectRewrite(const std::string& before, const std::string& after) {
  PrimFunc f = Flat(before), want = Flat(after);
  ASSERT_TRUE(f.defined() && want.defined());
  PrimFunc got = StorageRewrite(f);
  EXPECT_TRUE(StructuralEqual(got->body, want->body, true))
      << "got:\n" << script::printer::Print(got) << "\nwant:\n" << script::printer::Print(want);
  testing::ExpectSameBehaviour(Parse(before), got, {0});
}

// A three-stage pipeline: T3 is written after T1's last read, so it takes T1's memory.
TEST(StorageRewriteTest, DeadTemporaryIsReused) {
  ExpectRewrite(R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T1 = T.alloc_buffer((64,), "float32")
    T2 = T.alloc_buffer((64,), "float32")
    T3 = T.alloc_buffer((48,), "float32")
    for i in range(64):
        T1[i] = A[i] + T.float32(1)
    for i in range(64):
        T2[i] = T1[i] * T.float32(2)
    for i in range(48):
        T3[i] = T2[i] - T.float32(3)
    for i in range(48):
        B[i] = T3[i]
)", R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T1 = T.alloc_buffer((64,), "float32")
    T2 = T.alloc_buffer((64,), "float32")
    for i in range(64):
        T1[i] = A[i] + T.float32(1)
    for i in range(64):
        T2[i] = T1[i] * T.float32(2)
    for i in range(48):
        T1[i] = T2[i] - T.float32(3)
    for i in range(48):
        B[i] = T1[i]
)");
}

// Temporaries allocated per iteration of a serial loop share one allocation hoisted out of it;
// the larger size wins.
TEST(StorageRewriteTest, PerIterationTemporariesAreHoistedAndMerged) {
  ExpectRewrite(R"(
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    for i in range(8):
        X = T.alloc_buffer((16,), "float32")
        for j in range(16):
            X[j] = A[i, j] * T.float32(2)
        Y = T.alloc_buffer((32,), "float32")
        for j in range(16):
            Y[j * 2] = X[j]
        Z = T.alloc_buffer((16,), "float32")
        for j in range(16):
            Z[j] = Y[j * 2] + T.float32(1)
        for j in range(16):
            B[i, j] = Z[j]
)", R"(
@T.prim_func
def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    X = T.alloc_buffer((16,), "float32")
    for i in range(8):
        for j in range(16):
            X[j] = A[i, j] * T.float32(2)
        Y = T.alloc_buffer((32,), "float32")
        for j in range(16):
            Y[j * 2] = X[j]
        for j in range(16):
            X[j] = Y[j * 2] + T.float32(1)
        for j in range(16):
            B[i, j] = X[j]
)");
}

// Nothing to share: live ranges overlap (a temporary used across a loop is live for all of it),
// dtypes differ, sizes are 16x apart, or the allocation is under a parallel loop.
TEST(StorageRewriteTest, IncompatibleOrOverlappingStay) {
  std::string text = R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "int32")):
    S = T.alloc_buffer((64,), "float32")
    for i in range(64):
        S[i] = A[i]
    for k in range(4):
        U = T.alloc_buffer((64,), "float32")
        for i in range(64):
            U[i] = S[i] + T.Cast("float32", k)
        for i in range(64):
            B[i] = U[i]
    I = T.alloc_buffer((64,), "int32")
    for i in range(64):
        I[i] = C[i] + 1
    for i in range(64):
        C[i] = I[i]
    Small = T.alloc_buffer((2,), "float32")
    Small[0] = B[0]
    B[1] = Small[0]
    for p in T.parallel(4):
        P = T.alloc_buffer((64,), "float32")
        for i in range(64):
            P[i] = A[i]
        Q = T.alloc_buffer((64,), "float32")
        for i in range(64):
            Q[i] = P[i]
        B[p] = Q[p]
)";
  ExpectRewrite(text, text);
}

}  // namespace
}  // namespace kiln::tir::transform
