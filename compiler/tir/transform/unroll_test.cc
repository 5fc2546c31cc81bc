#include "gtest/gtest.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(UnrollTest, ConstantLoopBecomesCopies) {
  Buffer c = Buffer::Make("C", {I32(4)}, DataType::Int(32));
  Var k("k", DataType::Int(32));
  Stmt s = For(k, I32(1), I32(3), ForKind::kUnrolled, BufferStore(c, k, {k}));
  PrimFunc f = UnrollLoops(PrimFunc({}, s));
  Stmt expect = SeqStmt({BufferStore(c, I32(1), {I32(1)}), BufferStore(c, Add(I32(1), I32(1)), {Add(I32(1), I32(1))}),
                         BufferStore(c, Add(I32(1), I32(2)), {Add(I32(1), I32(2))})});
  std::string diff;
  EXPECT_TRUE(StructuralEqual(f->body, expect, false, &diff)) << diff;
}

TEST(UnrollTest, CopiesGetFreshDefinitions) {
  Buffer c = Buffer::Make("C", {I32(2)}, DataType::Int(32));
  Buffer tmp = Buffer::Make("tmp", {I32(1)}, DataType::Int(32));
  Var k("k", DataType::Int(32)), x("x", DataType::Int(32));
  Stmt body = LetStmt(x, Mul(k, I32(2)), AllocBuffer(tmp, SeqStmt({BufferStore(tmp, x, {I32(0)}),
                                                                    BufferStore(c, BufferLoad(tmp, {I32(0)}), {k})})));
  PrimFunc f = UnrollLoops(PrimFunc({}, For(k, I32(0), I32(2), ForKind::kUnrolled, body)));
  const auto* seq = f->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  const auto* l0 = seq->seq[0].as<LetStmtNode>();
  const auto* l1 = seq->seq[1].as<LetStmtNode>();
  ASSERT_TRUE(l0 && l1);
  EXPECT_FALSE(l0->var.same_as(l1->var));
  const auto* a0 = l0->body.as<AllocBufferNode>();
  const auto* a1 = l1->body.as<AllocBufferNode>();
  ASSERT_TRUE(a0 && a1);
  EXPECT_FALSE(a0->buffer->data.same_as(a1->buffer->data));
  // Still the same program, up to the renaming.
  EXPECT_TRUE(StructuralEqual(seq->seq[0], seq->seq[1], false) == false);  // k differs: 0 vs 1
}

TEST(UnrollTest, LongSymbolicOrBreakingLoopsStaySerial) {
  Buffer c = Buffer::Make("C", {I32(100)}, DataType::Int(32));
  Var k("k", DataType::Int(32)), n("n", DataType::Int(32));
  Stmt longer = For(k, I32(0), I32(100), ForKind::kUnrolled, BufferStore(c, k, {k}));
  Stmt symbolic = For(k, I32(0), n, ForKind::kUnrolled, BufferStore(c, k, {k}));
  Stmt breaks = For(k, I32(0), I32(4), ForKind::kUnrolled, SeqStmt({BufferStore(c, k, {k}), Break::Make()}));
  for (const Stmt& s : {longer, symbolic, breaks}) {
    PrimFunc f = UnrollLoops(PrimFunc({n}, s), 64);
    ASSERT_NE(f->body.as<ForNode>(), nullptr);
    EXPECT_EQ(f->body.as<ForNode>()->kind, ForKind::kSerial);
  }
}

}  // namespace
}  // namespace kiln::tir::transform
