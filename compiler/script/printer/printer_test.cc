// Whole-module printing: TVM's own printed output for a cross-function module (tvm-reference §1.5(a))
// byte for byte, module-level attributes, and TIR-to-TIR calls.
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/printer/printer.h"
#include "gtest/gtest.h"

namespace kiln::script::printer {
namespace {

using namespace ir;  // NOLINT
namespace rx = ir::relax;

const DataType f32 = DataType::Float(32);
const DataType i64 = DataType::Int(64);

SBlockRealize Root(Stmt body) {
  auto n = make_object<SBlockNode>();
  n->name = "root";
  n->body = body;
  return SBlockRealize({}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(n)));
}

// tests/python/relax/test_tvmscript_printer_relax.py::test_module_cross_func_call in TVM.
TEST(PrinterTest, TvmCrossFunctionModuleByteForByte) {
  Buffer bx = Buffer::Make("x", {IntImm(i64, 128)}, f32);
  Buffer by = Buffer::Make("y", {IntImm(i64, 128)}, f32);
  Var hx("x", PointerType(PrimType(f32))), hy("y", PointerType(PrimType(f32)));
  PrimFunc tir_func({hx, hy}, Root(Evaluate(PrimExpr(0))), Type(), {{hx, bx}, {hy, by}},
                    {{"global_symbol", String("tir_func")}, {"s_tir", IntImm(DataType::Bool(), 1)}});
  Type t = TensorType(Array<PrimExpr>{IntImm(i64, 128)}, f32);
  Var x("x", t), gv0("gv0", t);
  rx::Call call(Op("relax.call_tir"), {GlobalVar("tir_func"), rx::Tuple({x})}, {}, {t});
  rx::Function foo({x}, rx::SeqExpr({rx::BindingBlock({rx::VarBinding(gv0, call)})}, gv0), t, true,
                   {{"global_symbol", String("foo")}});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("tir_func"), tir_func);
  mod.Add(GlobalVar("foo"), foo);
  EXPECT_TRUE(doc::Read(Print(mod), "printed.py").ok());
  EXPECT_EQ(Print(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n"
            "# from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @T.prim_func(s_tir=True)\n"
            "    def tir_func(x: T.Buffer((T.int64(128),), \"float32\"), y: T.Buffer((T.int64(128),), \"float32\")):\n"
            "        T.evaluate(0)\n"
            "\n"
            "    @R.function\n"
            "    def foo(x: R.Tensor((128,), dtype=\"float32\")) -> R.Tensor((128,), dtype=\"float32\"):\n"
            "        cls = Module\n"
            "        gv0 = R.call_tir(cls.tir_func, (x,), out_ty=R.Tensor((128,), dtype=\"float32\"))\n"
            "        return gv0\n");
}

TEST(PrinterTest, TirModuleWithPrivateHelperAndAttrs) {
  Var v("x", f32), t("t", f32);
  PrimExpr one = FloatImm(f32, 1.0);
  Stmt helper_body = LetStmt(t, Min(Max(v, FloatImm(f32, 0.0)), one),
                             Evaluate(Call(f32, Op("tirx.ret"), {Mul(t, t)})));
  PrimFunc helper({v}, helper_body, PrimType(f32));
  Buffer A = Buffer::Make("A", {64}, f32), B = Buffer::Make("B", {64}, f32);
  Var ha("A", PointerType(PrimType(f32))), hb("B", PointerType(PrimType(f32))), i("i", DataType::Int(32));
  Stmt body = For(i, 0, 64, ForKind::kSerial,
                  BufferStore(B, Call(f32, GlobalVar("smoothstep"), {BufferLoad(A, {i})}), {i}));
  PrimFunc main({ha, hb}, body, Type(), {{ha, A}, {hb, B}}, {{"global_symbol", String("main")}});
  IRModule mod = IRModule::Make();
  mod.Add(GlobalVar("smoothstep"), helper);
  mod.Add(GlobalVar("main"), main);
  mod.CopyOnWrite()->attrs.Set("device_num", IntImm(DataType::Int(32), 10));
  EXPECT_TRUE(doc::Read(Print(mod), "printed.py").ok());
  EXPECT_EQ(Print(mod),
            "# from tvm.script import ir as I\n"
            "# from tvm.script import tirx as T\n"
            "# from tvm.tirx.layout import Axis\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    I.module_attrs({\"device_num\": 10})\n"
            "    @T.prim_func(private=True)\n"
            "    def smoothstep(x: T.float32) -> T.float32:\n"
            "        t: T.let[T.float32] = T.min(T.max(x, T.float32(0.0)), T.float32(1.0))\n"
            "        return t * t\n"
            "\n"
            "    @T.prim_func\n"
            "    def main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
            "        for i in range(64):\n"
            "            B[i] = Module.smoothstep(A[i])\n");
}

TEST(PrinterTest, GlobalSymbolOtherThanNameIsKept) {
  Var a("a", DataType::Int(32));
  PrimFunc f({a}, Evaluate(PrimExpr(0)), Type(), {},
             {{"global_symbol", String("scaled_copy")}, {"tirx.noalias", IntImm(DataType::Bool(), 1)}});
  std::string text = Print(f, {"main"});
  EXPECT_NE(text.find("def main(a: T.int32):\n    T.func_attr({\"global_symbol\": \"scaled_copy\", "
                      "\"tirx.noalias\": True})\n"),
            std::string::npos)
      << text;
  // Without a name the function is named by its symbol, which then is not repeated.
  EXPECT_NE(Print(f).find("def scaled_copy(a: T.int32):\n    T.func_attr({\"tirx.noalias\": True})\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::script::printer
