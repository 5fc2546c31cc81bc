#include "gtest/gtest.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(GuardAllocSizesTest, RunTimeExtentsAreChecked) {
  Var n("n", DataType::Int(32));
  Buffer b = Buffer::Make("B", {n, I32(4)}, DataType::Float(32));
  Stmt alloc = AllocBuffer(b, Evaluate(I32(0)));
  PrimFunc out = GuardAllocSizes(PrimFunc({n}, alloc));
  const auto* seq = out->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  const auto* check = seq->seq[0].as<AssertStmtNode>();
  ASSERT_NE(check, nullptr);
  EXPECT_EQ(check->error_kind, "MemoryError");
  EXPECT_EQ(check->message_parts[0]->value, "cannot allocate B: an extent is negative or the size overflows");
  EXPECT_TRUE(seq->seq[1].same_as(alloc));
}

TEST(GuardAllocSizesTest, ConstantExtentsAreLeftToTheVerifier) {
  Buffer b = Buffer::Make("B", {I32(8), I32(4)}, DataType::Float(32));
  PrimFunc f({}, AllocBuffer(b, Evaluate(I32(0))));
  EXPECT_TRUE(GuardAllocSizes(f).same_as(f));
}

}  // namespace
}  // namespace kiln::tir::transform
