// The printer options TVM's script() takes (module_alias, show_all_ty), and how a function printed
// outside its module names the functions it calls; each checked on parsed text, as users meet it.
#include <string>

#include "compiler/script/printer/printer.h"
#include "compiler/script/roundtrip.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::script::printer {
namespace {

constexpr char kCrossCall[] = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def tir_func(x: T.Buffer((T.int64(8),), "float32"), y: T.Buffer((T.int64(8),), "float32")):
        T.evaluate(0)

    @R.function
    def foo(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        gv0 = R.call_tir(Module.tir_func, (x,), out_ty=R.Tensor((8,), dtype="float32"))
        return gv0
)";

std::string PrintWith(const std::string& source, const PrinterOptions& options) {
  absl::StatusOr<ir::ObjectRef> parsed = ParseScript(source, "test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? Print(*parsed, options) : "";
}

TEST(PrinterOptionsTest, ModuleAlias) {
  std::string with_alias = PrintWith(kCrossCall, {});
  EXPECT_NE(with_alias.find("        cls = Module\n        gv0 = R.call_tir(cls.tir_func, (x,)"), std::string::npos)
      << with_alias;
  PrinterOptions no_alias;
  no_alias.module_alias = "";
  std::string direct = PrintWith(kCrossCall, no_alias);
  EXPECT_EQ(direct.find("cls"), std::string::npos) << direct;
  EXPECT_NE(direct.find("        gv0 = R.call_tir(Module.tir_func, (x,)"), std::string::npos) << direct;
}

TEST(PrinterOptionsTest, ShowAllTyOffHidesWhatTheValueImplies) {
  constexpr char kSource[] = R"(# from tvm.script import relax as R

@R.function
def func(A: R.Tensor((10, 20), dtype="float32"), B: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor((10, 20), dtype="float32"):
    B2 = R.match_cast(B, R.Tensor((10, 20), dtype="float32"))
    C = R.add(A, B2)
    D = C
    t = (C, D)
    u = t[0]
    E: R.Tensor((10, 20), dtype="float32") = R.add(D, B)
    return E
)";
  std::string all = PrintWith(kSource, {});
  EXPECT_NE(all.find("    B2: R.Tensor((10, 20), dtype=\"float32\") = R.match_cast("), std::string::npos) << all;
  EXPECT_NE(all.find("    D: R.Tensor((10, 20), dtype=\"float32\") = C\n"), std::string::npos) << all;
  PrinterOptions hide;
  hide.show_all_ty = false;
  std::string hidden = PrintWith(kSource, hide);
  EXPECT_NE(hidden.find("    B2 = R.match_cast(B, R.Tensor((10, 20), dtype=\"float32\"))\n"
                        "    C = R.add(A, B2)\n"
                        "    D = C\n"
                        "    t = (C, D)\n"
                        "    u = t[0]\n"
                        // R.add(D, B) infers R.Tensor(dtype="float32", ndim=2): the annotation stays.
                        "    E: R.Tensor((10, 20), dtype=\"float32\") = R.add(D, B)\n"),
            std::string::npos)
      << hidden;
}

// A Relax function printed on its own names the module functions it calls by their bare names,
// as TVM's printer does (neither TVM's parser nor kiln's reads that back: the name is undefined
// outside the module).
TEST(PrinterOptionsTest, LoneFunctionNamesGlobalsBare) {
  absl::StatusOr<ir::ObjectRef> mod = ParseScript(kCrossCall, "test.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  const auto* m = mod->as<ir::IRModuleNode>();
  ASSERT_NE(m, nullptr);
  ir::ObjectRef foo;
  for (const auto& [gv, f] : m->functions.items()) {
    if (gv->name == "foo") foo = f;
  }
  ASSERT_TRUE(foo.defined());
  PrinterOptions o;
  o.func_name = "foo";
  std::string text = Print(foo, o);
  EXPECT_NE(text.find("    gv0 = R.call_tir(tir_func, (x,), out_ty=R.Tensor((8,), dtype=\"float32\"))\n"),
            std::string::npos)
      << text;
}

// Printed on its own, a distributed Relax function has no module whose global infos could name its
// device mesh ("mesh[0]"), so its DTensor types spell the mesh out; the module's functions it
// calls are named bare.
TEST(PrinterOptionsTest, LoneFunctionSpellsOutItsDeviceMesh) {
  constexpr char kSource[] = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((4,), I.Range(0, 4))]})
    @T.prim_func(s_tir=True)
    def copy(x: T.Buffer((T.int64(16),), "float32"), y: T.Buffer((T.int64(16),), "float32")):
        T.evaluate(0)

    @R.function
    def bar(a: R.DTensor((16,), "float32", "mesh[0]", "R")) -> R.DTensor((16,), "float32", "mesh[0]", "R"):
        cls = Module
        b = R.dist.call_tir(cls.copy, (a,), out_ty=R.DTensor((16,), "float32", "mesh[0]", "R"))
        return b
)";
  absl::StatusOr<ir::ObjectRef> mod = ParseScript(kSource, "test.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  const auto* m = mod->as<ir::IRModuleNode>();
  ASSERT_NE(m, nullptr);
  ir::ObjectRef bar;
  for (const auto& [gv, f] : m->functions.items()) {
    if (gv->name == "bar") bar = f;
  }
  ASSERT_TRUE(bar.defined());
  PrinterOptions o;
  o.func_name = "bar";
  EXPECT_EQ(Print(bar, o), R"(# from tvm.script import relax as R

@R.function
def bar(a: R.DTensor((16,), "float32", R.device_mesh((4,), R.Range(0, 4)), "R")) -> R.DTensor((16,), "float32", R.device_mesh((4,), R.Range(0, 4)), "R"):
    b = R.dist.call_tir(copy, (a,), out_ty=R.DTensor((16,), "float32", R.device_mesh((4,), R.Range(0, 4)), "R"))
    return b
)");
}

}  // namespace
}  // namespace kiln::script::printer
