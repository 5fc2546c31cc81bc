#include "gtest/gtest.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(SimplifyTest, LoopRangesDecideConditions) {
  Buffer b = Buffer::Make("B", {I32(16)}, DataType::Int(32));
  Var i("i", DataType::Int(32));
  // for i in range(16): if i < 16: B[i * 1 + 0] = floordiv(i * 4 + 3, 4) else B[0] = 1
  Stmt s = For(i, I32(0), I32(16), ForKind::kSerial,
               IfThenElse(LT(i, I32(16)), BufferStore(b, FloorDiv(Add(Mul(i, I32(4)), I32(3)), I32(4)), {Add(Mul(i, I32(1)), I32(0))}),
                          BufferStore(b, I32(1), {I32(0)})));
  PrimFunc f = Simplify(PrimFunc({}, s));
  Stmt expect = For(i, I32(0), I32(16), ForKind::kSerial, BufferStore(b, i, {i}));
  std::string diff;
  EXPECT_TRUE(StructuralEqual(f->body, expect, false, &diff)) << diff;
}

TEST(SimplifyTest, RemovesProvenAssertsEmptyLoopsAndNoOps) {
  Var i("i", DataType::Int(32)), n("n", DataType::Int(32));
  Buffer b = Buffer::Make("B", {I32(4)}, DataType::Int(32));
  Stmt keep = AssertStmt(GT(n, I32(0)), "ValueError", {String("n must be positive")});
  Stmt s = SeqStmt({AssertStmt(LT(I32(1), I32(2)), "ValueError", {String("never")}), Evaluate(I32(0)),
                    For(i, I32(0), I32(0), ForKind::kSerial, BufferStore(b, i, {i})), keep});
  PrimFunc f = Simplify(PrimFunc({n}, s));
  std::string diff;
  EXPECT_TRUE(StructuralEqual(f->body, keep, false, &diff)) << diff;
}

}  // namespace
}  // namespace kiln::tir::transform
