// Each rule of the VM-lowered form: the lowered shape of a program passes, each violation is
// reported with the function and binding it concerns.
#include "compiler/relax/analysis/vm_lowered_form.h"

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax {
namespace {

ir::IRModule Parse(const std::string& body) {
  script::ParseOptions options;
  options.verify = false;
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(body, "form.py", nullptr, options);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

std::string Violations(const std::string& source) {
  absl::Status st = CheckVMLoweredForm(Parse(source));
  return st.ok() ? "" : std::string(st.message());
}

TEST(VMLoweredForm, AcceptsTheLoweredForm) {
  EXPECT_EQ(Violations(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + T.float32(1.0)

    @R.function(pure=False)
    def main(x: R.Tensor((16,), dtype="float32"), c: R.Prim("bool")) -> R.Tensor((16,), dtype="float32"):
        cls = Module
        heap = R.null_value()
        _ = R.ExternFunc("vm.builtin.check_tensor_info")(x, R.prim_value(1), R.dtype("float32"), R.str(""))
        storage = R.vm.alloc_storage(R.shape([64]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        alloc = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([16]), R.dtype("float32"))
        _1 = cls.add_one(x, alloc)
        t = (alloc, x)
        y = t[0]
        if c:
            r = y
        else:
            r = x
        k = R.vm.kill_object(storage)
        return r
)"),
            "");
}

TEST(VMLoweredForm, ReportsWhatIsNotLowered) {
  std::string v = Violations(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        z = R.match_cast(y, R.Tensor((n,), dtype="float32"))
        w = R.ExternFunc("f")(z, R.shape([n]))
        return w
)");
  EXPECT_NE(v.find("function 'main': a dataflow block remains"), std::string::npos) << v;
  EXPECT_NE(v.find("calls the operator relax.add, which was not lowered"), std::string::npos) << v;
  EXPECT_NE(v.find("match_cast of 'z' remains"), std::string::npos) << v;
  EXPECT_NE(v.find("the value of 'w': argument 1 is a relax.ShapeExpr, not a leaf"), std::string::npos) << v;
}

TEST(VMLoweredForm, ReportsNestedFunctionsAndNonLeafResults) {
  std::string v = Violations(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")):
        @R.function
        def inner(y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
            return y
        return (x, x)
)");
  EXPECT_NE(v.find("the value of 'inner' is a relax.Function"), std::string::npos) << v;
  EXPECT_NE(v.find("the body: the result is a relax.Tuple, not a leaf"), std::string::npos) << v;
}

}  // namespace
}  // namespace kiln::relax
