#include "gtest/gtest.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }
PrimExpr True() { return IntImm(DataType::Bool(), 1); }

SBlock MakeBlock(const std::string& name, Array<IterVar> iters, Stmt body, Stmt init = Stmt(),
                 Array<Buffer> allocs = {}, Array<MatchBufferRegion> matches = {}) {
  auto b = make_object<SBlockNode>();
  b->name = name;
  b->iter_vars = iters;
  b->body = body;
  b->init = init;
  b->alloc_buffers = allocs;
  b->match_buffers = matches;
  return SBlock(ObjectPtr<Object>(std::move(b)));
}

PrimFunc Func(Stmt body) {
  Map<String, ObjectRef> attrs;
  attrs.Set(String("s_tir"), IntImm(DataType::Bool(), 1));
  return PrimFunc({}, body, Type(), {}, attrs);
}

// Row sum: for i, k: with block(vi = i (S), vk = k (R)): init B[vi] = 0; B[vi] += A[vi, vk].
TEST(LowerSBlocksTest, ReductionInitBecomesGuardedStore) {
  Buffer a = Buffer::Make("A", {I32(4), I32(8)}, DataType::Float(32));
  Buffer b = Buffer::Make("B", {I32(4)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), k("k", DataType::Int(32)), vi("vi", DataType::Int(32)), vk("vk", DataType::Int(32));
  SBlock blk = MakeBlock("sum",
                         {IterVar(Range(I32(0), I32(4)), vi, IterVarType::kDataPar),
                          IterVar(Range(I32(0), I32(8)), vk, IterVarType::kCommReduce)},
                         BufferStore(b, Add(BufferLoad(b, {vi}), BufferLoad(a, {vi, vk})), {vi}),
                         BufferStore(b, FloatImm(DataType::Float(32), 0), {vi}));
  Stmt loops = For(i, I32(0), I32(4), ForKind::kSerial,
                   For(k, I32(0), I32(8), ForKind::kSerial, SBlockRealize({i, k}, True(), blk)));
  Stmt root = SBlockRealize({}, True(), MakeBlock("root", {}, loops));
  absl::StatusOr<PrimFunc> r = LowerSBlocks(Func(root), "f");
  ASSERT_TRUE(r.ok()) << r.status();
  Stmt expect = For(i, I32(0), I32(4), ForKind::kSerial,
                    For(k, I32(0), I32(8), ForKind::kSerial,
                        SeqStmt({IfThenElse(EQ(k, I32(0)), BufferStore(b, FloatImm(DataType::Float(32), 0), {i})),
                                 BufferStore(b, Add(BufferLoad(b, {i}), BufferLoad(a, {i, k})), {i})})));
  std::string diff;
  EXPECT_TRUE(StructuralEqual((*r)->body, expect, false, &diff)) << diff;
  EXPECT_FALSE((*r)->attrs.count(String("s_tir")));
}

// A predicate guards the block; alloc_buffers become AllocBuffer inside the guard.
TEST(LowerSBlocksTest, PredicateAndAllocBuffers) {
  Buffer out = Buffer::Make("O", {I32(10)}, DataType::Int(32));
  Buffer tmp = Buffer::Make("tmp", {I32(1)}, DataType::Int(32));
  Var i("i", DataType::Int(32)), vi("vi", DataType::Int(32));
  Stmt body = SeqStmt({BufferStore(tmp, vi, {I32(0)}), BufferStore(out, BufferLoad(tmp, {I32(0)}), {vi})});
  SBlock blk = MakeBlock("b", {IterVar(Range(I32(0), I32(10)), vi, IterVarType::kDataPar)}, body, Stmt(), {tmp});
  Stmt s = For(i, I32(0), I32(12), ForKind::kSerial, SBlockRealize({i}, LT(i, I32(10)), blk));
  absl::StatusOr<PrimFunc> r = LowerSBlocks(Func(s), "f");
  ASSERT_TRUE(r.ok()) << r.status();
  Stmt expect = For(i, I32(0), I32(12), ForKind::kSerial,
                    IfThenElse(LT(i, I32(10)),
                               AllocBuffer(tmp, SeqStmt({BufferStore(tmp, i, {I32(0)}),
                                                         BufferStore(out, BufferLoad(tmp, {I32(0)}), {i})}))));
  std::string diff;
  EXPECT_TRUE(StructuralEqual((*r)->body, expect, false, &diff)) << diff;
}

// match_buffer: T (shape (m,)) views the region A[vi, 2:4]; its accesses go to A with the region's
// minimum added (trailing dims aligned) and m is bound to the region's extent.
TEST(LowerSBlocksTest, MatchBufferBecomesOffsetAccess) {
  Buffer a = Buffer::Make("A", {I32(4), I32(8)}, DataType::Float(32));
  Var m("m", DataType::Int(32));
  Buffer view = Buffer::Make("T", {m}, DataType::Float(32));
  Var i("i", DataType::Int(32)), vi("vi", DataType::Int(32));
  MatchBufferRegion mb(view, BufferRegion(a, {Range(vi, I32(1)), Range(I32(2), I32(2))}));
  SBlock blk = MakeBlock("b", {IterVar(Range(I32(0), I32(4)), vi, IterVarType::kDataPar)},
                         BufferStore(view, FloatImm(DataType::Float(32), 1), {I32(1)}), Stmt(), {}, {mb});
  Stmt s = For(i, I32(0), I32(4), ForKind::kSerial, SBlockRealize({i}, True(), blk));
  absl::StatusOr<PrimFunc> r = LowerSBlocks(Func(s), "f");
  ASSERT_TRUE(r.ok()) << r.status();
  // m is bound to the region's extent; T[1] is A[i, 1 + 2].
  Stmt expect = For(i, I32(0), I32(4), ForKind::kSerial,
                    LetStmt(m, I32(2), BufferStore(a, FloatImm(DataType::Float(32), 1), {i, Add(I32(1), I32(2))})));
  std::string diff;
  EXPECT_TRUE(StructuralEqual((*r)->body, expect, false, &diff)) << diff;
}

TEST(LowerSBlocksTest, MismatchedIterValuesFail) {
  Var vi("vi", DataType::Int(32));
  SBlock blk = MakeBlock("b", {IterVar(Range(I32(0), I32(4)), vi, IterVarType::kDataPar)}, Evaluate(I32(0)));
  absl::StatusOr<PrimFunc> r = LowerSBlocks(Func(SBlockRealize({}, True(), blk)), "f");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "f: block b has 1 iter_vars but 0 iter_values");
}

}  // namespace
}  // namespace kiln::tir::transform
