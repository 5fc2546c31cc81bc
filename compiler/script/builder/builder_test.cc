// The builders used directly from C++: implicit frames end with their enclosing scope, blocks
// collect their parts, functions get their symbol and root block.
#include "compiler/script/builder/relax_builder.h"
#include "compiler/script/builder/tir_builder.h"

#include "compiler/script/printer/printer.h"
#include "gtest/gtest.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsError;

namespace kiln::script::builder {
namespace {

using namespace ir;  // NOLINT

TEST(TIRBuilderTest, ImplicitFramesWrapTheRestOfTheirScope) {
  TIRBuilder b;
  b.BeginPrimFunc("f");
  Buffer a = Buffer::Make("A", {IntImm(DataType::Int(32), 8)}, DataType::Float(32));
  Var pa("A", DataType::Handle());
  b.func()->params.push_back(pa);
  b.func()->buffer_map.Set(pa, a);
  Var i("i", DataType::Int(32)), x("x", DataType::Int(32));
  b.For(i, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 8), ForKind::kSerial, [&] {
    b.Let(x, Mul(i, IntImm(DataType::Int(32), 2)));
    b.Emit(BufferStore(a, Cast(DataType::Float(32), x), {i}));
  });
  b.Emit(Evaluate(IntImm(DataType::Int(32), 0)));
  absl::StatusOr<PrimFunc> f = b.EndPrimFunc();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(b.depth(), 0u);
  // The let wraps only the store inside the loop; the evaluate after the loop stays outside.
  const auto* seq = (*f)->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  const auto* loop = seq->seq[0].as<ForNode>();
  ASSERT_NE(loop, nullptr);
  const auto* let = loop->body.as<LetStmtNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_NE(let->body.as<BufferStoreNode>(), nullptr);
  EXPECT_EQ((*f)->attrs.Get(String("global_symbol")).as<StringNode>()->value, "f");
}

TEST(TIRBuilderTest, BlocksCollectTheirPartsAndSTirAddsARootBlock) {
  TIRBuilder b;
  b.BeginPrimFunc("g");
  b.func()->s_tir = true;
  Buffer c = Buffer::Make("C", {IntImm(DataType::Int(32), 4)}, DataType::Float(32));
  b.func()->root_alloc_buffers.push_back(c);
  b.BeginBlock("blk");
  ASSERT_NE(b.block(), nullptr);
  b.block()->writes.push_back(BufferRegion(c, {Range(IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 4))}));
  b.Emit(BufferStore(c, FloatImm(DataType::Float(32), 1.0), {IntImm(DataType::Int(32), 0)}));
  b.EndBlock();
  EXPECT_EQ(b.block(), nullptr);
  absl::StatusOr<PrimFunc> f = b.EndPrimFunc();
  ASSERT_TRUE(f.ok());
  const auto* root = (*f)->body.as<SBlockRealizeNode>();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block->name, "root");
  EXPECT_EQ(root->block->alloc_buffers.size(), 1u);
  const auto* inner = root->block->body.as<SBlockRealizeNode>();
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->block->name, "blk");
  EXPECT_EQ(inner->block->writes.size(), 1u);
}

TEST(TIRBuilderTest, TopBlockIsTheBlockOnlyUntilAScopeOpensInsideIt) {
  TIRBuilder b;
  b.BeginPrimFunc("h");
  b.BeginBlock("blk");
  EXPECT_EQ(b.top_block(), b.block());
  // A let binding (an implicit frame) leaves the block at the top, as TVM's flat bindings do.
  b.Let(Var("x", DataType::Int(32)), IntImm(DataType::Int(32), 1));
  EXPECT_EQ(b.top_block(), b.block());
  // A loop or if body opens a scope: the block is still the innermost one, but not on top.
  b.BeginScope();
  EXPECT_NE(b.block(), nullptr);
  EXPECT_EQ(b.top_block(), nullptr);
  b.EndScope();
  EXPECT_NE(b.top_block(), nullptr);
  b.EndBlock();
  EXPECT_EQ(b.top_block(), nullptr);
}

TEST(TIRBuilderTest, EndPrimFuncWithoutBeginIsAnError) {
  TIRBuilder b;
  EXPECT_TRUE(IsError(b.EndPrimFunc(), absl::StatusCode::kInternal, "EndPrimFunc without a matching BeginPrimFunc"));
}

TEST(RelaxBuilderTest, DataflowBlocksSplitBindingRuns) {
  RelaxBuilder b;
  b.BeginFunction("main");
  Var x("x", TensorType({IntImm(DataType::Int(64), 4)}, DataType::Float(32)));
  x.CopyOnWrite()->dtype = DataType::Void();
  b.func()->params.push_back(x);
  Var a("a", x->ty);
  a.CopyOnWrite()->dtype = DataType::Void();
  b.Emit(relax::VarBinding(a, x));
  b.BeginDataflow();
  EXPECT_TRUE(b.in_dataflow());
  Var c("c", x->ty);
  c.CopyOnWrite()->dtype = DataType::Void();
  b.Emit(relax::VarBinding(c, a));
  b.EndDataflow();
  absl::StatusOr<relax::Function> f = b.EndFunction(c, true);
  ASSERT_TRUE(f.ok());
  const auto* seq = (*f)->body.as<relax::SeqExprNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->blocks.size(), 2u);
  EXPECT_EQ(seq->blocks[0].as<relax::DataflowBlockNode>(), nullptr);
  EXPECT_NE(seq->blocks[1].as<relax::DataflowBlockNode>(), nullptr);
  EXPECT_NE(script::printer::Print(*f).find("with R.dataflow():"), std::string::npos);
}

}  // namespace
}  // namespace kiln::script::builder
