#include "gtest/gtest.h"
#include "compiler/relax/op/test_util.h"
#include "tests/util/status_matchers.h"

using ::kiln::testing::IsInvalidArgument;

namespace kiln::relax::testing {
namespace {

ir::IRModule ModuleWithPrimFunc(const std::string& name) {
  ir::IRModule mod = ir::IRModule::Make();
  mod.Add(ir::GlobalVar(name), ir::PrimFunc({}, ir::Stmt()));
  return mod;
}

TEST(CallTir, ReturnsOutTy) {
  ir::IRModule mod = ModuleWithPrimFunc("add_one");
  ir::Var x = V("x", Tensor({16}));
  ir::Expr args = ir::relax::Tuple({x});
  EXPECT_EQ(Str(Infer("call_tir", {ir::GlobalVar("add_one"), args}, {}, {Tensor({16})}, mod)),
            "R.Tensor((16,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("call_tir", {ir::GlobalVar("add_one"), args}, {}, {Tensor({4}), Tensor({4})}, mod)),
            "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))");
  // Symbolic prim args go inline in the tuple.
  ir::Var n = SymVar("n");
  ir::Expr sym_args = ir::relax::Tuple({V("x", Tensor({n, 4})), ir::relax::PrimValue(n)});
  EXPECT_EQ(Str(Infer("call_tir", {ir::GlobalVar("add_one"), sym_args}, {}, {Tensor({n, 4})}, mod)),
            "R.Tensor((n, 4), dtype=\"float32\")");
}

TEST(CallTir, Errors) {
  ir::IRModule mod = ModuleWithPrimFunc("add_one");
  ir::Expr args = ir::relax::Tuple({V("x", Tensor({16}))});
  absl::StatusOr<ir::Type> missing = Infer("call_tir", {ir::GlobalVar("does_not_exist"), args}, {}, {Tensor({16})}, mod);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument) << missing.status();
  EXPECT_NE(missing.status().message().find("does_not_exist"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir", {ir::GlobalVar("add_one"), args}, {}, {}, mod),          // no out_ty
                                "R.call_tir: requires the output type (out_ty)"));
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir", {ir::GlobalVar("add_one"), V("x", Tensor({16}))}, {}, {Tensor({16})}, mod),
                                "R.call_tir: expects a tuple of arguments"));
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir", {ir::GlobalVar("add_one"), args}, {}, {ir::ShapeType(1)}, mod),
                                "R.call_tir: out_ty must be tensor types, got R.Shape(ndim=1)"));
}

TEST(CallTirInplace, IndicesChecked) {
  ir::IRModule mod = ModuleWithPrimFunc("f");
  ir::Expr args = ir::relax::Tuple(ir::Array<ir::Expr>{V("y", Tensor({8}))});
  EXPECT_EQ(Str(Infer("call_tir_inplace", {ir::GlobalVar("f"), args}, {{"inplace_indices", Ints({0})}}, {Tensor({8})}, mod)),
            "R.Tensor((8,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir_inplace", {ir::GlobalVar("f"), args}, {{"inplace_indices", Ints({1})}}, {Tensor({8})}, mod),
                                "R.call_tir_inplace: inplace index 1 is out of range"));
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir_inplace", {ir::GlobalVar("f"), args}, {{"inplace_indices", Ints({-1})}}, {Tensor({8})}, mod),
                                "R.call_tir_inplace: at least one inplace index must not be -1"));
  ir::Expr two = ir::relax::Tuple(ir::Array<ir::Expr>{V("y", Tensor({8})), V("z", Tensor({8}))});
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir_inplace", {ir::GlobalVar("f"), two}, {{"inplace_indices", Ints({0, 0})}},
                                      {Tensor({8}), Tensor({8})}, mod),
                                "R.call_tir_inplace: inplace index 0 appears more than once"));
  ir::Expr any = ir::relax::Tuple(ir::Array<ir::Expr>{V("w", ir::AnyType::Make())});
  EXPECT_TRUE(IsInvalidArgument(Infer("call_tir_inplace", {ir::GlobalVar("f"), any}, {{"inplace_indices", Ints({0})}}, {Tensor({8})}, mod),
                                "R.call_tir_inplace: argument 0 is overwritten in place, so it must be a tensor"));
  // An output of another type than the input it overwrites is typed as declared (TVM's inference
  // does the same); the well-formed check refuses it (ValidateCallTirInplace).
  absl::StatusOr<ir::relax::Call> bad =
      MakeOpCall("call_tir_inplace", {ir::GlobalVar("f"), args}, {{"inplace_indices", Ints({0})}}, {Tensor({9})}, mod);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(Str((*bad)->ty), "R.Tensor((9,), dtype=\"float32\")");
  EXPECT_TRUE(IsInvalidArgument(ValidateCallTirInplace(*bad), "R.call_tir_inplace: output 0 does not match the input it overwrites"));
  absl::StatusOr<ir::relax::Call> good =
      MakeOpCall("call_tir_inplace", {ir::GlobalVar("f"), args}, {{"inplace_indices", Ints({0})}}, {Tensor({8})}, mod);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(ValidateCallTirInplace(*good).ok());
}

TEST(CallPacked, ImpureWithTyArgs) {
  const OpSchema* s = OpRegistry::Global().FindByScriptName("call_packed");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->is_pure);
  EXPECT_EQ(s->ty_args_keyword, "ty_args");
  ir::Expr f = ir::relax::ExternFunc("my_func");
  EXPECT_EQ(Str(Infer("call_packed", {f, V("x", Tensor({2})), V("y", Tensor({2}))}, {}, {Tensor({2})})),
            "R.Tensor((2,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("call_pure_packed", {f})), "R.Any");
  EXPECT_EQ(Str(Infer("call_dps_packed", {f, ir::relax::Tuple(ir::Array<ir::Expr>{})}, {}, {Tensor({3})})), "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(OpRegistry::Global().FindByScriptName("call_dps_packed")->ty_args_keyword, "out_ty");
}

TEST(CallPyFunc, NameArgsAndShapedOutputs) {
  const OpSchema* s = OpRegistry::Global().FindByScriptName("call_py_func");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->is_pure);
  EXPECT_EQ(s->ty_args_keyword, "out_ty");
  ir::relax::Tuple args(ir::Array<ir::Expr>{V("x", Tensor({3}))});
  EXPECT_EQ(Str(Infer("call_py_func", {ir::relax::StringImm("relu"), args}, {}, {Tensor({3})})),
            "R.Tensor((3,), dtype=\"float32\")");
  EXPECT_EQ(Str(Infer("call_py_func", {ir::relax::StringImm("pair"), args}, {}, {Tensor({3}), Tensor({2})})),
            "R.Tuple(R.Tensor((3,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))");
  // The name must be a string literal, the output declared.
  EXPECT_FALSE(MakeOpCall("call_py_func", {V("f", ir::AnyType::Make()), args}, {}, {Tensor({3})}, ir::IRModule()).ok());
  EXPECT_FALSE(MakeOpCall("call_py_func", {ir::relax::StringImm("relu"), args}, {}, {}, ir::IRModule()).ok());
}

TEST(Closures, MakeAndInvoke) {
  ir::IRModule mod = ir::IRModule::Make();
  EXPECT_EQ(Str(Infer("make_closure", {ir::GlobalVar("g"), ir::relax::Tuple(ir::Array<ir::Expr>{})})), "R.Any");
  EXPECT_EQ(Str(Infer("invoke_closure", {V("c", ir::AnyType::Make()), ir::relax::Tuple(ir::Array<ir::Expr>{})}, {}, {Tensor({1})})),
            "R.Tensor((1,), dtype=\"float32\")");
}

TEST(Closures, InvokePure) {
  const OpSchema* s = OpRegistry::Global().FindByScriptName("invoke_pure_closure");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->is_pure);
  EXPECT_EQ(Str(Infer("invoke_pure_closure", {V("c", ir::AnyType::Make()), ir::relax::Tuple({V("x", Tensor({2}))})}, {},
                      {Tensor({2}, "int32")})),
            "R.Tensor((2,), dtype=\"int32\")");
}

TEST(CallInplacePacked, IndicesAndTypes) {
  ir::Var x = V("x", Tensor({4})), y = V("y", Tensor({4}));
  absl::StatusOr<ir::relax::Call> c = MakeOpCall("call_inplace_packed", {ir::relax::StringImm("my_add"), x, y},
                                                 {{"inplace_indices", Ints({0})}}, {Tensor({4})}, ir::IRModule());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Str((*c)->ty), "R.Tensor((4,), dtype=\"float32\")");
  EXPECT_NE((*c)->args[0].as<ir::relax::ExternFuncNode>(), nullptr);  // the string names a packed function
  auto call = [&](std::vector<int64_t> idx, ir::Array<ir::Type> ty) {
    return Infer("call_inplace_packed", {ir::relax::StringImm("f"), x, y}, {{"inplace_indices", Ints(idx)}}, ty);
  };
  EXPECT_TRUE(IsInvalidArgument(call({2}, {Tensor({4})}),         // out of range
                                "R.call_inplace_packed: inplace index 2 is out of range"));
  EXPECT_TRUE(IsInvalidArgument(call({-1}, {Tensor({4})}),        // nothing in place
                                "R.call_inplace_packed: at least one inplace index must not be -1"));
  EXPECT_TRUE(IsInvalidArgument(call({0, 0}, {ir::TupleType({Tensor({4}), Tensor({4})})}),  // duplicate
                                "R.call_inplace_packed: inplace index 0 appears more than once"));
  EXPECT_TRUE(IsInvalidArgument(call({0}, {Tensor({5})}),         // does not fit x
                                "R.call_inplace_packed: output 0 does not match argument 0 it overwrites"));
  EXPECT_EQ(Str(call({1, -1}, {ir::TupleType({Tensor({4}), Tensor({2})})})),
            "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))");
}

}  // namespace
}  // namespace kiln::relax::testing
