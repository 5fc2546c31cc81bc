#include "gtest/gtest.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr F32(double v) { return FloatImm(DataType::Float(32), v); }

// Flat buffers, as vectorize sees them after FlattenBuffer + Simplify.
TEST(VectorizeTest, ElementwiseLoopBecomesVectorStore) {
  Buffer a = Buffer::Make("A", {I32(256)}, DataType::Float(32)), b = Buffer::Make("B", {I32(256)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  PrimExpr idx = Add(Mul(i, I32(8)), j);
  Stmt s = For(j, I32(0), I32(8), ForKind::kVectorized,
               BufferStore(b, Add(Mul(BufferLoad(a, {idx}), F32(2)), F32(0.25)), {idx}));
  PrimFunc f = VectorizeLoops(PrimFunc({}, s));
  const auto* store = f->body.as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(arith::ExprToString(store->indices[0]), "ramp(i * 8, 1, 8)");
  EXPECT_EQ(arith::ExprToString(store->value),
            "A[ramp(i * 8, 1, 8)] * broadcast(2, 8) + broadcast(0.25, 8)");
  EXPECT_EQ(store->value.dtype(), DataType::Float(32, 8));
}

TEST(VectorizeTest, ScalarLoadsStayScalarAndMathCallsWiden) {
  Buffer a = Buffer::Make("A", {I32(8)}, DataType::Float(32)), c = Buffer::Make("C", {I32(1)}, DataType::Float(32));
  Var j("j", DataType::Int(32));
  PrimExpr v = Call(DataType::Float(32), Op("tirx.exp"), {BufferLoad(c, {I32(0)})});
  Stmt s = For(j, I32(0), I32(4), ForKind::kVectorized, BufferStore(a, Add(v, Cast(DataType::Float(32), j)), {j}));
  PrimFunc f = VectorizeLoops(PrimFunc({}, s));
  const auto* store = f->body.as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(arith::ExprToString(store->value), "broadcast(exp(C[0]), 4) + float32x4(ramp(0, 1, 4))");
}

TEST(VectorizeTest, NonVectorizableBodiesFallBackToSerial) {
  Buffer a = Buffer::Make("A", {I32(8)}, DataType::Float(32)), s1 = Buffer::Make("S", {I32(1)}, DataType::Float(32));
  Var j("j", DataType::Int(32));
  // A reduction into one element (the store index does not depend on j).
  Stmt red = For(j, I32(0), I32(8), ForKind::kVectorized,
                 BufferStore(s1, Add(BufferLoad(s1, {I32(0)}), BufferLoad(a, {j})), {I32(0)}));
  // A gather (index not linear in j).
  Stmt gather = For(j, I32(0), I32(8), ForKind::kVectorized, BufferStore(a, BufferLoad(a, {Mul(j, j)}), {j}));
  // An if in the body.
  Stmt cond = For(j, I32(0), I32(8), ForKind::kVectorized,
                  IfThenElse(LT(j, I32(4)), BufferStore(a, F32(0), {j})));
  // A call with side effects.
  Stmt ext = For(j, I32(0), I32(8), ForKind::kVectorized,
                 BufferStore(a, Call(DataType::Float(32), Op("tirx.call_extern"), {StringImm("f"), BufferLoad(a, {j})}), {j}));
  for (const Stmt& s : {red, gather, cond, ext}) {
    PrimFunc f = VectorizeLoops(PrimFunc({}, s));
    const auto* loop = f->body.as<ForNode>();
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->kind, ForKind::kSerial);
    EXPECT_TRUE(loop->body.same_as(s.as<ForNode>()->body));
  }
}

TEST(VectorizeTest, SymbolicExtentStaysSerial) {
  Buffer a = Buffer::Make("A", {I32(8)}, DataType::Float(32));
  Var j("j", DataType::Int(32)), n("n", DataType::Int(32));
  Stmt s = For(j, I32(0), n, ForKind::kVectorized, BufferStore(a, F32(0), {j}));
  PrimFunc f = VectorizeLoops(PrimFunc({n}, s));
  EXPECT_EQ(f->body.as<ForNode>()->kind, ForKind::kSerial);
}

}  // namespace
}  // namespace kiln::tir::transform
