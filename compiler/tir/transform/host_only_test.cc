#include "gtest/gtest.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(HostOnlyTest, LaunchThreadIsRejected) {
  Var tx("threadIdx.x", DataType::Int(32));
  IterVar iv(Range(I32(0), I32(32)), tx, IterVarType::kThreadIndex, "threadIdx.x");
  Stmt s = AttrStmt(iv, "thread_extent", I32(32), Evaluate(I32(0)));
  absl::StatusOr<PrimFunc> r = CheckHostOnly(PrimFunc({}, s), "main", "llvm");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "main: launches GPU thread threadIdx.x; target 'llvm' runs on the CPU and cannot execute GPU kernels "
            "(compile it for a GPU target such as cuda)");
}

// The tile dialect's T.cta_id: the LLVM backend failed on it with "variable bx is used outside its
// scope", the C backend with "unsupported statement".
TEST(HostOnlyTest, ScopeIdIsRejected) {
  Var bx("bx", DataType::Int(32));
  Stmt s = ScopeIdDefStmt({bx}, {I32(4)}, ScopeBinding::kKernelCta, Evaluate(bx));
  absl::StatusOr<PrimFunc> r = CheckHostOnly(PrimFunc({}, s), "main", "llvm");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "main: defines GPU scope ids with T.cta_id; target 'llvm' runs on the CPU and cannot execute GPU "
            "kernels (compile it for a GPU target such as cuda)");
}

TEST(HostOnlyTest, PragmasAreDropped) {
  Buffer b = Buffer::Make("B", {I32(1)}, DataType::Int(32));
  Stmt store = BufferStore(b, I32(1), {I32(0)});
  Stmt s = AttrStmt(String("pragma"), "pragma_auto_unroll_max_step", I32(16), store);
  absl::StatusOr<PrimFunc> r = CheckHostOnly(PrimFunc({}, s), "main", "c");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE((*r)->body.same_as(store));
}

}  // namespace
}  // namespace kiln::tir::transform
