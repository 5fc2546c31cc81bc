// FuseTIR: each case runs AnnotateTIROpPattern + FuseOps + FuseTIR on a module of call_tir chains
// and checks that (1) the fused PrimFunc computes what the chain of kernels computed, on the
// reference interpreter and on LLVM, (2) the caller now makes one call_tir and the merged kernels
// are gone, (3) the module is well formed and the fused PrimFunc passes the TIR verifier. One case
// pins the exact fused PrimFunc against a hand-written one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/driver/run.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/relax/transform/fusion_test_util.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/script/printer/printer.h"
#include "compiler/tir/analysis/verifier.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"

namespace kiln::relax::transform {
namespace {

using ir::relax::CallNode;
using ir::relax::FunctionNode;
using ir::relax::SeqExprNode;
using ir::relax::VarBindingNode;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

std::vector<int64_t> StaticShape(const ir::Type& ty, const std::vector<int64_t>& fallback) {
  const auto* tensor = ty.as<ir::TensorTypeNode>();
  const auto* shape = tensor ? tensor->shape.as<ir::relax::ShapeExprNode>() : nullptr;
  std::vector<int64_t> dims;
  for (size_t i = 0; shape && i < shape->values.size(); ++i) {
    const auto* imm = shape->values[i].as<ir::IntImmNode>();
    if (imm == nullptr) return fallback;  // symbolic: the tests' symbolic kernels keep their input's shape
    dims.push_back(imm->value);
  }
  return dims;
}

runtime::Tensor Random(const std::vector<int64_t>& shape, std::mt19937* rng) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, kF32);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(t.data())[i] = dist(*rng);
  return t;
}

int64_t Elements(const runtime::Tensor& t) {
  int64_t n = 1;
  for (int64_t d : t.shape()) n *= d;
  return n;
}

// Runs Primitive function `name` of `unfused` kernel by kernel and PrimFunc `name` of `fused` on the
// same inputs (`input_shapes` per parameter); expects equal results.
void ExpectSameNumerics(const ir::IRModule& unfused, const ir::IRModule& fused, const std::string& name,
                        const std::vector<std::vector<int64_t>>& input_shapes, driver::RunTarget target) {
  SCOPED_TRACE(std::string(driver::RunTargetName(target)) + " " + name);
  driver::RunOptions options;
  options.target = target;
  absl::StatusOr<std::unique_ptr<driver::Runner>> chain_runner = driver::Runner::Create(testing::PublicKernels(unfused), options);
  ASSERT_TRUE(chain_runner.ok()) << chain_runner.status();
  absl::StatusOr<std::unique_ptr<driver::Runner>> fused_runner = driver::Runner::Create(testing::PublicKernels(fused), options);
  ASSERT_TRUE(fused_runner.ok()) << fused_runner.status();

  const auto* prim = unfused.Lookup(name).as<FunctionNode>();
  ASSERT_NE(prim, nullptr);
  ASSERT_EQ(prim->params.size(), input_shapes.size());
  std::mt19937 rng(7);
  std::unordered_map<const ir::Object*, runtime::Tensor> env;
  std::vector<runtime::Tensor> inputs;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    inputs.push_back(Random(input_shapes[i], &rng));
    env.emplace(prim->params[i].get(), inputs.back());
  }
  const auto* seq = prim->body.as<SeqExprNode>();
  for (const auto& block : seq->blocks) {
    for (const auto& binding : block->bindings) {
      const auto* call = binding.as<VarBindingNode>()->value.as<CallNode>();
      ASSERT_NE(call, nullptr);
      std::vector<runtime::Tensor> args;
      for (const ir::Expr& a : call->args[1].as<ir::relax::TupleNode>()->fields) args.push_back(env.at(a.get()));
      runtime::Tensor out = *runtime::Tensor::Empty(StaticShape(call->ty_args[0], args[0].shape()), kF32);
      args.push_back(out);
      absl::StatusOr<KilnAny> r = (*chain_runner)->Call(call->args[0].as<ir::GlobalVarNode>()->name, args);
      ASSERT_TRUE(r.ok()) << r.status();
      env.emplace(binding->var.get(), out);
    }
  }
  runtime::Tensor expected = env.at(seq->body.get());
  runtime::Tensor got = *runtime::Tensor::Empty(expected.shape(), kF32);
  std::vector<runtime::Tensor> args = inputs;
  args.push_back(got);
  absl::StatusOr<KilnAny> r = (*fused_runner)->Call(name, args);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t i = 0; i < Elements(expected); ++i) {
    float e = static_cast<const float*>(expected.data())[i], g = static_cast<const float*>(got.data())[i];
    ASSERT_NEAR(g, e, 1e-5f * (1 + std::fabs(e))) << "element " << i;
  }
}

struct Fused {
  ir::IRModule after_fuse_ops;
  ir::IRModule after_fuse_tir;
};

Fused RunFusion(const ir::IRModule& before) {
  absl::StatusOr<ir::IRModule> annotated = AnnotateTIROpPattern(before);
  EXPECT_TRUE(annotated.ok()) << annotated.status();
  absl::StatusOr<ir::IRModule> grouped = FuseOps(*annotated);
  EXPECT_TRUE(grouped.ok()) << grouped.status();
  absl::StatusOr<ir::IRModule> fused = FuseTIR(*grouped);
  EXPECT_TRUE(fused.ok()) << fused.status();
  if (!fused.ok()) return {*grouped, *grouped};
  EXPECT_TRUE(CheckWellFormed(*fused, nullptr).ok()) << CheckWellFormed(*fused, nullptr);
  EXPECT_TRUE(tir::VerifyModuleTIR(*fused, nullptr).ok())
      << tir::VerifyModuleTIR(*fused, nullptr) << "\n" << script::printer::Print(*fused);
  return {*grouped, *fused};
}

// Names of the module's functions, in order.
std::vector<std::string> FunctionNames(const ir::IRModule& m) {
  std::vector<std::string> names;
  for (const auto& [gv, f] : m.Functions()) names.push_back(gv->name);
  return names;
}

// The callee names of main's call_tir bindings, in order.
std::vector<std::string> MainCallees(const ir::IRModule& m) {
  std::vector<std::string> out;
  const auto* main = m.Lookup("main").as<FunctionNode>();
  for (const auto& block : main->body.as<SeqExprNode>()->blocks) {
    for (const auto& b : block->bindings) {
      const auto* call = b.as<VarBindingNode>() ? b.as<VarBindingNode>()->value.as<CallNode>() : nullptr;
      if (call && call->args.size() == 2 && call->args[0].as<ir::GlobalVarNode>()) {
        out.push_back(call->args[0].as<ir::GlobalVarNode>()->name);
      }
    }
  }
  return out;
}

void ExpectNumerics(const Fused& f, const std::string& name, const std::vector<std::vector<int64_t>>& shapes) {
  for (driver::RunTarget t : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    ExpectSameNumerics(f.after_fuse_ops, f.after_fuse_tir, name, shapes, t);
  }
}

TEST(FuseTIR, ElementwiseChain) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (b,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  EXPECT_EQ(FunctionNames(f.after_fuse_tir), (std::vector<std::string>{"main", "fused_add_exp_relu"}));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_add_exp_relu"}));
  const auto* prim = f.after_fuse_tir.Lookup("fused_add_exp_relu").as<ir::PrimFuncNode>();
  ASSERT_NE(prim, nullptr);
  // add and exp are computed inside relu's block: no intermediate buffer is left.
  EXPECT_EQ(prim->body.as<ir::SBlockRealizeNode>()->block->alloc_buffers.size(), 0u);
  std::string text = script::printer::Print(f.after_fuse_tir);
  EXPECT_EQ(text.find("T.sblock(\"add\")"), std::string::npos) << text;
  ExpectNumerics(f, "fused_add_exp_relu", {{8, 16}, {8, 16}});
}

TEST(FuseTIR, MatmulBiasRelu) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32"), b: R.Tensor((16,), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            biased = R.call_tir(cls.add_bias, (mm, b), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (biased,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_matmul_add_bias_relu"}));
  ExpectNumerics(f, "fused_matmul_add_bias_relu", {{8, 4}, {4, 16}, {16}});
}

TEST(FuseTIR, ElementwiseProducerIntoReduction) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8,), "float32"):
        cls = Module
        with R.dataflow():
            e = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.row_sum, (e,), out_ty=R.Tensor((8,), "float32"))
            R.output(gv)
        return gv
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_exp_row_sum"}));
  ExpectNumerics(f, "fused_exp_row_sum", {{8, 16}});
}

TEST(FuseTIR, DiamondCallingOneKernelTwice) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), y: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((8, 16), "float32"))
            b = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((8, 16), "float32"))
            c = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.add, (b, c), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  // a is read twice (by exp and relu): it stays a buffer, the others are inlined into the last add.
  const auto* prim = f.after_fuse_tir.Lookup("fused_add_exp_relu_add").as<ir::PrimFuncNode>();
  ASSERT_NE(prim, nullptr);
  EXPECT_EQ(prim->body.as<ir::SBlockRealizeNode>()->block->alloc_buffers.size(), 1u);
  std::string text = script::printer::Print(f.after_fuse_tir);
  EXPECT_NE(text.find("T.sblock(\"add1\")"), std::string::npos) << text;
  ExpectNumerics(f, "fused_add_exp_relu_add", {{8, 16}, {8, 16}});
}

TEST(FuseTIR, ElementwiseIntoInjectiveWithOutsideInputs) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32"), a: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tuple(R.Tensor((8,), "float32"), R.Tensor((16, 8), "float32")):
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.opaque_copy, (x,), out_ty=R.Tensor((8, 16), "float32"))
            mm = R.call_tir(cls.matmul, (a, w), out_ty=R.Tensor((8, 16), "float32"))
            g = R.call_tir(cls.row_sum, (mm,), out_ty=R.Tensor((8,), "float32"))
            r = R.call_tir(cls.relu, (c,), out_ty=R.Tensor((8, 16), "float32"))
            s = R.call_tir(cls.add, (mm, r), out_ty=R.Tensor((8, 16), "float32"))
            t = R.call_tir(cls.transpose, (s,), out_ty=R.Tensor((16, 8), "float32"))
            R.output(g, t)
        return (g, t)
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir),
            (std::vector<std::string>{"opaque_copy", "matmul", "row_sum", "fused_relu_add_transpose"}));
  ExpectNumerics(f, "fused_relu_add_transpose", {{8, 16}, {8, 16}});
}

TEST(FuseTIR, SymbolicShapes) {
  Fused f = RunFusion(testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def exp(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.sblock("exp"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.exp(A[vi])

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((n,), "float32"))
            gv = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((n,), "float32"))
            R.output(gv)
        return gv
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_exp_exp"}));
  ExpectNumerics(f, "fused_exp_exp", {{5}});
}

TEST(FuseTIR, SymbolicScalarArgumentsBecomeScalarParameters) {
  // m reaches the group only as a PrimValue argument: FuseOps passes it in a tir_vars shape, and
  // the fused PrimFunc takes it as a scalar parameter after the tensors.
  Fused f = RunFusion(testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_scalar(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.sblock("add_scalar"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.Cast("float32", m)

    @T.prim_func(private=True, s_tir=True)
    def exp(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,))
        B = T.match_buffer(b, (n,))
        for i in range(n):
            with T.sblock("exp"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = T.exp(A[vi])

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add_scalar, (x, R.prim_value(m)), out_ty=R.Tensor((n,), "float32"))
            gv = R.call_tir(cls.exp, (a,), out_ty=R.Tensor((n,), "float32"))
            R.output(gv)
        return gv
)"));
  const auto* grouped = f.after_fuse_ops.Lookup("fused_add_scalar_exp").as<FunctionNode>();
  ASSERT_NE(grouped, nullptr);
  ASSERT_EQ(grouped->params.size(), 2u);
  EXPECT_EQ(grouped->params[1]->name, "tir_vars");
  const auto* prim = f.after_fuse_tir.Lookup("fused_add_scalar_exp").as<ir::PrimFuncNode>();
  ASSERT_NE(prim, nullptr);
  ASSERT_EQ(prim->params.size(), 3u);  // x, m, output
  EXPECT_EQ(prim->params[1]->dtype, ir::DataType::Int(64));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_add_scalar_exp"}));

  // Numerics with m = 3 against numpy's exp(x + 3).
  for (driver::RunTarget t : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    driver::RunOptions options;
    options.target = t;
    absl::StatusOr<std::unique_ptr<driver::Runner>> runner = driver::Runner::Create(testing::PublicKernels(f.after_fuse_tir), options);
    ASSERT_TRUE(runner.ok()) << runner.status();
    std::mt19937 rng(3);
    runtime::Tensor x = Random({5}, &rng);
    runtime::Tensor m = *runtime::Tensor::Empty({}, DLDataType{kDLInt, 64, 1});
    *static_cast<int64_t*>(m.data()) = 3;
    runtime::Tensor out = *runtime::Tensor::Empty({5}, kF32);
    absl::StatusOr<KilnAny> r = (*runner)->Call("fused_add_scalar_exp", {x, m, out});
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < 5; ++i) {
      float e = std::exp(static_cast<const float*>(x.data())[i] + 3.0f);
      EXPECT_NEAR(static_cast<const float*>(out.data())[i], e, 1e-4f * e);
    }
  }
}

TEST(FuseTIR, PreScheduledKernelTakesElementwiseConsumer) {
  // What the legalizer emits for matmul: a scheduled loop nest without blocks, marked
  // out-elementwise-fusable. Its body runs as is inside the fused root block; relu follows it.
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @T.prim_func(private=True)
    def matmul_scheduled(A: T.Buffer((8, 4), "float32"), W: T.Buffer((4, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        T.func_attr({"op_pattern": 4})
        for i in T.parallel(8):
            for j in range(16):
                C[i, j] = T.float32(0)
                for k in range(4):
                    C[i, j] = C[i, j] + A[i, k] * W[k, j]

    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul_scheduled, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (mm,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_matmul_scheduled_relu"}));
  ExpectNumerics(f, "fused_matmul_scheduled_relu", {{8, 4}, {4, 16}});
}

TEST(FuseTIR, GroupWithTwoResults) {
  // a is read by a match_cast outside the group, so the group returns (gv, a): two output buffers.
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tuple(R.Tensor((8, 16), "float32"), R.Tensor((8, 16), "float32")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            m = R.match_cast(a, R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv, m)
        return (gv, m)
)"));
  EXPECT_EQ(MainCallees(f.after_fuse_tir), (std::vector<std::string>{"fused_exp_relu"}));
  const auto* prim = f.after_fuse_tir.Lookup("fused_exp_relu").as<ir::PrimFuncNode>();
  ASSERT_NE(prim, nullptr);
  ASSERT_EQ(prim->params.size(), 3u);  // x, then the two results
  for (driver::RunTarget t : {driver::RunTarget::kInterp, driver::RunTarget::kLLVM}) {
    driver::RunOptions options;
    options.target = t;
    absl::StatusOr<std::unique_ptr<driver::Runner>> runner =
        driver::Runner::Create(testing::PublicKernels(f.after_fuse_tir), options);
    ASSERT_TRUE(runner.ok()) << runner.status();
    std::mt19937 rng(5);
    runtime::Tensor x = Random({8, 16}, &rng);
    runtime::Tensor relu_out = *runtime::Tensor::Empty({8, 16}, kF32);
    runtime::Tensor exp_out = *runtime::Tensor::Empty({8, 16}, kF32);
    absl::StatusOr<KilnAny> r = (*runner)->Call("fused_exp_relu", {x, relu_out, exp_out});
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < 8 * 16; ++i) {
      float e = std::exp(static_cast<const float*>(x.data())[i]);
      EXPECT_NEAR(static_cast<const float*>(exp_out.data())[i], e, 1e-5f * e);
      EXPECT_NEAR(static_cast<const float*>(relu_out.data())[i], std::max(e, 0.0f), 1e-5f * e);
    }
  }
}

void ExpectModule(const ir::IRModule& got, const std::string& expected_text) {
  ir::IRModule expected = testing::ParseModule(expected_text);
  std::string why;
  EXPECT_TRUE(ir::StructuralEqual(got, expected, false, &why)) << why << "\n" << script::printer::Print(got);
}

TEST(FuseTIR, FusedPrimFuncLayoutWithInlinedProducer) {
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (a,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  ExpectModule(f.after_fuse_tir, R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_exp_relu, (x,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv

    @T.prim_func(private=True, s_tir=True)
    def fused_exp_relu(p_x: T.handle, p_output0: T.handle):
        T.func_attr({"tirx.noalias": True})
        x = T.match_buffer(p_x, (T.int64(8), T.int64(16)))
        B_intermediate = T.match_buffer(p_output0, (T.int64(8), T.int64(16)))
        for i, j in T.grid(8, 16):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(B_intermediate[vi, vj])
                B_intermediate[vi, vj] = T.max(T.exp(x[vi, vj]), T.float32(0))
)");
}

TEST(FuseTIR, FusedPrimFuncLayoutWithReductionProducer) {
  // TVM's FuseTIR layout: parameters p_<name> then p_output<k>, the matmul result kept as an
  // sblock_alloc_buffer named after the callee's output buffer.
  Fused f = RunFusion(testing::ParseWithKernels(R"(
    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            mm = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            gv = R.call_tir(cls.relu, (mm,), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv
)"));
  ExpectModule(f.after_fuse_tir, R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 16), "float32")) -> R.Tensor((8, 16), "float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_matmul_relu, (x, w), out_ty=R.Tensor((8, 16), "float32"))
            R.output(gv)
        return gv

    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_relu(p_x: T.handle, p_w: T.handle, p_output0: T.handle):
        T.func_attr({"tirx.noalias": True})
        x = T.match_buffer(p_x, (T.int64(8), T.int64(4)))
        w = T.match_buffer(p_w, (T.int64(4), T.int64(16)))
        B_intermediate = T.match_buffer(p_output0, (T.int64(8), T.int64(16)))
        C_intermediate = T.sblock_alloc_buffer((T.int64(8), T.int64(16)))
        for i, j, k in T.grid(8, 16, 4):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(x[vi, vk], w[vk, vj])
                T.writes(C_intermediate[vi, vj])
                with T.init():
                    C_intermediate[vi, vj] = T.float32(0)
                C_intermediate[vi, vj] = C_intermediate[vi, vj] + x[vi, vk] * w[vk, vj]
        for i, j in T.grid(8, 16):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C_intermediate[vi, vj])
                T.writes(B_intermediate[vi, vj])
                B_intermediate[vi, vj] = T.max(C_intermediate[vi, vj], T.float32(0))
)");
}

TEST(FuseTIR, UnsupportedPrimitiveFunctionStaysRelax) {
  const char* kModule = R"(@I.ir_module
class Module:
    @R.function(private=True)
    def fused_add(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": True})
        with R.dataflow():
            gv = R.add(x, x)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_add(x)
            R.output(gv)
        return gv
)";
  absl::StatusOr<ir::IRModule> out = FuseTIR(testing::ParseModule(kModule));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(ir::StructuralEqual(*out, testing::ParseModule(kModule)));
}

}  // namespace
}  // namespace kiln::relax::transform
