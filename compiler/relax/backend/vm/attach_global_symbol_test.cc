// AttachGlobalSymbol: private PrimFuncs referred to from Relax (called, or passed as a value) get
// their module name as global_symbol; others, and ones that have a symbol, are left alone.
#include "compiler/relax/backend/vm/attach_global_symbol.h"

#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::backend {
namespace {

TEST(AttachGlobalSymbol, NamesKernelsThatRelaxRefersTo) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def called(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    @T.prim_func(private=True)
    def passed(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(1)

    @T.prim_func(private=True)
    def unused(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(2)

    @T.prim_func
    def public(A: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "exported_name"})
        for i in range(4):
            A[i] = T.float32(3)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.called, (x,), out_ty=R.Tensor((4,), "float32"))
        z = R.call_tir(cls.public, (y,), out_ty=R.Tensor((4,), "float32"))
        w = R.call_pure_packed("takes_func", cls.passed, z, ty_args=(R.Tensor((4,), "float32")))
        return w
)", "attach.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ir::IRModule mod = script::AsModule(*parsed);
  absl::StatusOr<ir::IRModule> out = AttachGlobalSymbol(mod);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->Lookup("called")->GetGlobalSymbol(), "called");
  EXPECT_EQ(out->Lookup("passed")->GetGlobalSymbol(), "passed");
  EXPECT_EQ(out->Lookup("unused")->GetGlobalSymbol(), "");
  EXPECT_EQ(out->Lookup("public")->GetGlobalSymbol(), "exported_name");
  // The input module is unchanged.
  EXPECT_EQ(mod.Lookup("called")->GetGlobalSymbol(), "");
}

}  // namespace
}  // namespace kiln::relax::backend
