#include "compiler/tir/functor.h"
#include "gtest/gtest.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

// The (buffer shape, index) of the single store in a flattened body, as strings.
std::pair<std::string, std::string> StoreOf(const Stmt& s) {
  struct Finder : StmtExprVisitor {
    const BufferStoreNode* store = nullptr;
    void VisitStmt_(const BufferStoreNode* op) override { store = op; }
  } f;
  f.VisitStmt(s);
  if (f.store == nullptr) return {"", ""};
  EXPECT_EQ(f.store->indices.size(), 1u);
  EXPECT_EQ(f.store->buffer->shape.size(), 1u);
  return {arith::ExprToString(f.store->buffer->shape[0]), arith::ExprToString(f.store->indices[0])};
}

PrimFunc Wrap(Stmt body) { return PrimFunc({}, body); }

TEST(FlattenBufferTest, CompactRowMajor) {
  Buffer b = Buffer::Make("B", {I32(4), I32(6), I32(5)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32)), k("k", DataType::Int(32));
  PrimFunc f = FlattenBuffer(Wrap(BufferStore(b, FloatImm(DataType::Float(32), 0), {i, j, k})));
  EXPECT_EQ(StoreOf(f->body), std::make_pair(std::string("120"), std::string("i * 30 + j * 5 + k")));
}

TEST(FlattenBufferTest, SymbolicShapeStridesAndOffset) {
  Var n("n", DataType::Int(32)), s0("s0", DataType::Int(32)), off("off", DataType::Int(32));
  Buffer b = Buffer::Make("B", {n, I32(4)}, DataType::Float(32));
  b.CopyOnWrite()->strides = {s0, I32(1)};
  b.CopyOnWrite()->elem_offset = off;
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  PrimFunc f = FlattenBuffer(Wrap(BufferStore(b, FloatImm(DataType::Float(32), 0), {i, j})));
  EXPECT_EQ(StoreOf(f->body), std::make_pair(std::string("(n - 1) * s0 + 4"), std::string("off + i * s0 + j")));
}

TEST(FlattenBufferTest, RampInLastDimStaysRamp) {
  Buffer b = Buffer::Make("B", {I32(8), I32(16)}, DataType::Float(32));
  Var i("i", DataType::Int(32));
  PrimExpr ramp = Ramp(I32(4), I32(1), 4);
  PrimFunc f = FlattenBuffer(Wrap(BufferStore(b, Broadcast(FloatImm(DataType::Float(32), 0), 4), {i, ramp})));
  EXPECT_EQ(StoreOf(f->body).second, "ramp(i * 16 + 4, 1, 4)");
}

TEST(FlattenBufferTest, Int64IndicesWidenTheIndex) {
  Buffer b = Buffer::Make("B", {IntImm(DataType::Int(64), 3), I32(4)}, DataType::Float(32));
  Var i("i", DataType::Int(32)), j("j", DataType::Int(32));
  PrimFunc f = FlattenBuffer(Wrap(BufferStore(b, FloatImm(DataType::Float(32), 0), {i, j})));
  EXPECT_EQ(StoreOf(f->body).second, "int64(i) * int64(4) + int64(j)");
}

TEST(FlattenBufferTest, RankZeroAllocAndDeclBuffer) {
  Buffer s = Buffer::Make("s", {}, DataType::Int(32), "local");
  PrimFunc f = FlattenBuffer(Wrap(AllocBuffer(s, BufferStore(s, I32(1), {}))));
  const auto* alloc = f->body.as<AllocBufferNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(arith::ExprToString(alloc->buffer->shape[0]), "1");
  EXPECT_TRUE(alloc->buffer->data.same_as(s->data));
  EXPECT_EQ(StoreOf(f->body).second, "0");

  Buffer a = Buffer::Make("A", {I32(8), I32(8)}, DataType::Int(32));
  auto v = make_object<BufferNode>();
  v->data = a->data;
  v->dtype = DataType::Int(32);
  v->shape = {I32(64)};
  v->name = "A_flat";
  Buffer view(ObjectPtr<Object>(std::move(v)));
  PrimFunc g = FlattenBuffer(Wrap(DeclBuffer(view, BufferStore(view, I32(1), {I32(63)}))));
  ASSERT_NE(g->body.as<BufferStoreNode>(), nullptr);
  EXPECT_TRUE(g->body.as<BufferStoreNode>()->buffer->data.same_as(a->data));
}

}  // namespace
}  // namespace kiln::tir::transform
