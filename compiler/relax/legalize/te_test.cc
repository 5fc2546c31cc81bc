// FuncBuilder (te.h) on its own: parameter order and call arguments (inputs, outputs, run-time
// scalars, unbound symbolic dims), fresh PrimFunc vars for Relax dims, the blocks each kind of
// stage makes (S/R iter vars, T.init, LetStmts of ReduceN, opaque blocks), read regions, and the
// error for an output no stage computes.
#include "compiler/relax/legalize/te.h"

#include "compiler/tir/functor.h"
#include "gtest/gtest.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsError;
using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::legalize {
namespace {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

rx::DataflowVar TensorVar(const std::string& name, Array<PrimExpr> shape, DataType dtype = DataType::Float(32)) {
  return rx::DataflowVar(name, TensorType(shape, dtype));
}

// The SBlocks of a function body in order (the root block first).
std::vector<const SBlockNode*> Blocks(const PrimFunc& f) {
  struct Collector : public StmtExprVisitor {
    std::vector<const SBlockNode*> blocks;
    using StmtExprVisitor::VisitStmt_;
    void VisitStmt_(const SBlockNode* op) override {
      blocks.push_back(op);
      StmtExprVisitor::VisitStmt_(op);
    }
  } c;
  c.VisitStmt(f->body);
  return c.blocks;
}

TEST(FuncBuilderTest, ParametersAndArguments) {
  Var n("n", DataType::Int(64));
  Var m("m", DataType::Int(64));
  rx::DataflowVar x = TensorVar("x", {n, IntImm(DataType::Int(64), 4)});
  Var k("k", PrimType(DataType::Float(32)));
  FuncBuilder b("scale");
  absl::StatusOr<Tensor> in = b.Input(x);
  ASSERT_TRUE(in.ok()) << in.status();
  // The PrimFunc has its own var for n.
  ASSERT_TRUE(in->shape()[0].as<VarNode>());
  EXPECT_FALSE(in->shape()[0].same_as(n));
  EXPECT_EQ(in->shape()[0].as<VarNode>()->name, "n");
  EXPECT_TRUE(b.Local(n).same_as(in->shape()[0]));
  absl::StatusOr<PrimExpr> scale = b.Scalar(k);
  ASSERT_TRUE(scale.ok()) << scale.status();
  // m * 2 is no buffer dim: m becomes a parameter of its own.
  PrimExpr m2 = b.Local(Mul(m, IntImm(DataType::Int(64), 2)));
  Tensor out = b.Compute("T_scale", {in->shape()[0], m2}, DataType::Float(32), [&](const Indices& i) {
    return PrimExpr(Mul((*in)({i[0], IntImm(DataType::Int(64), 0)}), *scale));
  });
  absl::StatusOr<BuiltFunc> f = b.Build({out}, OpPatternKind::kInjective);
  ASSERT_TRUE(f.ok()) << f.status();
  const PrimFuncNode* func = f->func.get();
  ASSERT_EQ(func->params.size(), 4u);
  EXPECT_TRUE(func->buffer_map.count(func->params[0]));  // x
  EXPECT_TRUE(func->buffer_map.count(func->params[1]));  // T_scale
  EXPECT_EQ(func->params[2]->dtype, DataType::Float(32));  // k
  EXPECT_EQ(func->params[3]->name, "m");
  ASSERT_EQ(f->args.size(), 3u);
  EXPECT_TRUE(f->args[0].same_as(x));
  EXPECT_TRUE(f->args[1].same_as(k));
  const auto* pv = f->args[2].as<rx::PrimValueNode>();
  ASSERT_NE(pv, nullptr);
  EXPECT_TRUE(pv->value.same_as(m));
  EXPECT_EQ(Downcast<IntImm>(func->attrs.Get(String("op_pattern")))->value, 2);
}

TEST(FuncBuilderTest, StageBlocks) {
  rx::DataflowVar x = TensorVar("x", {IntImm(DataType::Int(64), 3), IntImm(DataType::Int(64), 5)});
  rx::DataflowVar idx = TensorVar("idx", {IntImm(DataType::Int(64), 2)}, DataType::Int(64));
  FuncBuilder b("stages");
  Tensor in = *b.Input(x);
  Tensor ind = *b.Input(idx);
  Tensor gathered = b.Compute("T_take", {IntImm(DataType::Int(64), 2), IntImm(DataType::Int(64), 5)},
                              DataType::Float(32), [&](const Indices& i) { return in({ind({i[0]}), i[1]}); });
  Tensor sum = b.Reduce("T_sum", {IntImm(DataType::Int(64), 2)}, DataType::Float(32), {IntImm(DataType::Int(64), 5)},
                        FloatImm(DataType::Float(32), 0),
                        [](const PrimExpr& a, const PrimExpr& v) { return PrimExpr(Add(a, v)); },
                        [&](const Indices& i, const Indices& k) { return gathered({i[0], k[0]}); });
  std::vector<Tensor> arg = b.ReduceN(
      "T_argmax", {IntImm(DataType::Int(64), 2)}, {DataType::Int(64), DataType::Float(32)},
      {IntImm(DataType::Int(64), 5)}, {IntImm(DataType::Int(64), -1), FloatImm(DataType::Float(32), -1e30)},
      [&](const Indices& i, const Indices& k, const std::vector<PrimExpr>& cur) {
        PrimExpr v = gathered({i[0], k[0]});
        PrimExpr take = GT(v, cur[1]);
        return std::vector<PrimExpr>{Select(take, k[0], cur[0]), Select(take, v, cur[1])};
      });
  std::vector<Tensor> copy = b.Opaque("T_copy", {sum}, {{"T_copy", DataType::Float(32)}}, {IntImm(DataType::Int(64), 2)},
                                      [&](const std::vector<Tensor>& o) {
                                        return Loops({IntImm(DataType::Int(64), 2)}, "i", [&](const Indices& i) {
                                          return Stmt(BufferStore(o[0].buffer, sum(i), Array<PrimExpr>(i)));
                                        });
                                      });
  absl::StatusOr<BuiltFunc> f = b.Build({copy[0], arg[0]}, OpPatternKind::kOpaque);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<const SBlockNode*> blocks = Blocks(f->func);
  ASSERT_EQ(blocks.size(), 5u);
  const SBlockNode* root = blocks[0];
  EXPECT_EQ(root->name, "root");
  // Intermediates live in the root block; outputs are parameters.
  EXPECT_EQ(root->alloc_buffers.size(), 3u);  // T_take, T_sum, T_argmax_v1
  // The gather reads x's first dim whole (a data-dependent index) and idx at a point.
  const SBlockNode* take = blocks[1];
  ASSERT_EQ(take->reads.size(), 2u);
  BufferRegion x_read = take->reads[0]->buffer.same_as(in.buffer) ? take->reads[0] : take->reads[1];
  BufferRegion idx_read = take->reads[0]->buffer.same_as(in.buffer) ? take->reads[1] : take->reads[0];
  ASSERT_TRUE(x_read->buffer.same_as(in.buffer));
  ASSERT_TRUE(idx_read->buffer.same_as(ind.buffer));
  EXPECT_EQ(Downcast<IntImm>(x_read->region[0]->min)->value, 0);
  EXPECT_EQ(Downcast<IntImm>(x_read->region[0]->extent)->value, 3);
  EXPECT_EQ(Downcast<IntImm>(x_read->region[1]->extent)->value, 1);
  EXPECT_EQ(Downcast<IntImm>(idx_read->region[0]->extent)->value, 1);
  const SBlockNode* reduce = blocks[2];
  ASSERT_EQ(reduce->iter_vars.size(), 2u);
  EXPECT_EQ(reduce->iter_vars[0]->iter_type, IterVarType::kDataPar);
  EXPECT_EQ(reduce->iter_vars[1]->iter_type, IterVarType::kCommReduce);
  EXPECT_TRUE(reduce->init.defined());
  ASSERT_EQ(reduce->reads.size(), 1u);  // not its own output
  const SBlockNode* argmax = blocks[3];
  EXPECT_EQ(argmax->writes.size(), 2u);
  EXPECT_TRUE(argmax->body.as<LetStmtNode>());
  const SBlockNode* opaque = blocks[4];
  EXPECT_TRUE(opaque->iter_vars.empty());
  EXPECT_EQ(Downcast<IntImm>(opaque->writes[0]->region[0]->extent)->value, 2);
}

TEST(FuncBuilderTest, OutputsMustBeComputed) {
  rx::DataflowVar x = TensorVar("x", {IntImm(DataType::Int(64), 3)});
  FuncBuilder b("identity");
  Tensor in = *b.Input(x);
  absl::StatusOr<BuiltFunc> f = b.Build({in}, OpPatternKind::kElemWise);
  EXPECT_TRUE(IsError(f, absl::StatusCode::kInternal, "legalize: an output of identity is not computed by it"));
}

TEST(FuncBuilderTest, InputsNeedKnownShapes) {
  FuncBuilder b("f");
  EXPECT_TRUE(IsInvalidArgument(b.Input(rx::DataflowVar("x", TensorType(DataType::Float(32), 2))),
                                "needs tensors of known shape"));
  EXPECT_TRUE(IsInvalidArgument(b.Input(rx::DataflowVar("y", TensorType({IntImm(DataType::Int(64), 2)}, DataType::Void()))),
                                "needs tensors of known dtype"));
}

}  // namespace
}  // namespace kiln::relax::legalize
