// AnnotateTIROpPattern: one PrimFunc per kind (TVM's test_transform_annotate_tir_op_pattern.py
// cases, written in the s_tir style the legalizer emits), plus the rules for an existing attribute
// and for a function without SBlocks.
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/relax/transform/op_pattern.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

ir::IRModule Parse(const std::string& text) {
  absl::StatusOr<ir::ObjectRef> parsed =
      script::ParseScript("from tvm.script import ir as I, tirx as T, relax as R\n\n" + text, "t.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

// The op_pattern the pass gives the module's `main`, or -1 if it has none.
int64_t PatternOf(const std::string& prim_func) {
  absl::StatusOr<ir::IRModule> out = AnnotateTIROpPattern(Parse(prim_func));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return -1;
  ir::BaseFunc f = out->Lookup("main");
  const auto* imm = f->attrs.Get(ir::String("op_pattern")).as<ir::IntImmNode>();
  return imm ? imm->value : -1;
}

TEST(AnnotateTIROpPattern, Elementwise) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] + B[vi, vj]
)"), kElemWise);
}

TEST(AnnotateTIROpPattern, ElementwiseWithBroadcastOperandIsElementwise) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], B[vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] + B[vj]
)"), kElemWise);
}

TEST(AnnotateTIROpPattern, Broadcast) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((1, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("bcast"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[0, vj]
)"), kBroadcast);
}

TEST(AnnotateTIROpPattern, Injective) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 4), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vj, vi])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vj, vi]
)"), kInjective);
}

TEST(AnnotateTIROpPattern, Reduction) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
)"), kCommReduce);
}

TEST(AnnotateTIROpPattern, MatmulIsOutElementwiseFusable) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((4, 16), "float32")):
    for i, j, k in T.grid(4, 16, 8):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)"), kOutEWiseFusable);
}

TEST(AnnotateTIROpPattern, ReductionThenInjectiveOutputIsOutElementwiseFusable) {
  // Softmax's shape: reductions into scratch buffers, then an output block reading them.
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    row_sum = T.sblock_alloc_buffer((4,))
    for i, k in T.grid(4, 8):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_sum[vi])
            with T.init():
                row_sum[vi] = T.float32(0)
            row_sum[vi] = row_sum[vi] + A[vi, vk]
    for i, j in T.grid(4, 8):
        with T.sblock("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], row_sum[vi])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] / row_sum[vi]
)"), kOutEWiseFusable);
}

TEST(AnnotateTIROpPattern, PoolingWindowIsOutElementwiseFusable) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 3):
        with T.sblock("pool"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi + vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(-3.4e38)
            C[vi] = T.max(C[vi], A[vi + vk])
)"), kOutEWiseFusable);
}

TEST(AnnotateTIROpPattern, TwoStoresAreOpaque) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(4):
        with T.sblock("two"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 2])
            T.writes(C[vi * 2], C[vi * 2 + 1])
            C[vi * 2] = A[vi * 2]
            C[vi * 2 + 1] = A[vi * 2]
)"), kOpaque);
}

TEST(AnnotateTIROpPattern, FunctionWithoutBlocksIsOpaque) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        C[i] = A[i]
)"), kOpaque);
}

TEST(AnnotateTIROpPattern, ExistingAttributeIsKept) {
  EXPECT_EQ(PatternOf(R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    T.func_attr({"op_pattern": 4})
    for i in range(8):
        with T.sblock("copy"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes(C[vi])
            C[vi] = A[vi]
)"), kOutEWiseFusable);
}

TEST(AnnotateTIROpPattern, RelaxFunctionsAreLeftAlone) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)");
  absl::StatusOr<ir::IRModule> out = AnnotateTIROpPattern(mod);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->Lookup("main")->attrs.count(ir::String("op_pattern")));
}

}  // namespace
}  // namespace kiln::relax::transform
