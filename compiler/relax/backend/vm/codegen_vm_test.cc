// VMCodeGen on hand-written VM-lowered modules (the form compiler/relax/transform/passes.h
// describes, as TVM's test_vm_codegen_only.py writes them), checked against the text TVM's
// as_text() prints for the same module: packed calls, If, recursion through a GlobalVar, closures,
// tuples, call_builtin_with_ctx, explicit memory with kills, constants, and the errors for IR that
// is not lowered yet.
#include "compiler/relax/backend/vm/codegen_vm.h"

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/vm/executable.h"

namespace kiln::relax::backend {
namespace {

constexpr char kHeader[] = "from tvm.script import ir as I, tirx as T, relax as R\n\n";

ir::IRModule Parse(const std::string& body) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kHeader + body, "codegen_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

std::string Text(const std::string& body) {
  absl::StatusOr<vm::Executable> exec = VMCodeGen(Parse(body));
  if (!exec.ok()) return "ERROR: " + std::string(exec.status().message());
  return exec->AsText();
}

TEST(VMCodeGen, PackedCall) {
  absl::StatusOr<vm::Executable> exec = VMCodeGen(Parse(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def foo(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        z = R.call_packed("vm.builtin.copy", x, ty_args=(R.Tensor((3, 4), dtype="float32")))
        return z
)"));
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AsText(),
            "@foo:\n"
            "  call  vm.builtin.copy  in: %0           dst: %2\n"
            "  ret   %2\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n");
  const vm::FuncInfo& foo = exec->func_table[exec->func_map.at("foo")];
  EXPECT_EQ(foo.param_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(foo.num_args, 2);
  EXPECT_EQ(foo.register_file_size, 3);
}

TEST(VMCodeGen, IfBranchesMergeIntoOneRegister) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def ife(cond: R.Tensor((), "bool"), x: R.Tensor((3, 4), "float32")) -> R.Tensor:
        if cond:
            w = R.call_packed("test.vm.add", x, x, ty_args=(R.Tensor))
        else:
            w = R.call_packed("test.vm.mul", x, x, ty_args=(R.Tensor))
        return w
)"),
            "@ife:\n"
            "  call  vm.builtin.read_if_cond in: %0           dst: %2\n"
            "  If    %2, 4\n"
            "  call  test.vm.add      in: %1, %1       dst: %3\n"
            "  call  vm.builtin.copy  in: %3           dst: %4\n"
            "  goto  3\n"
            "  call  test.vm.mul      in: %1, %1       dst: %5\n"
            "  call  vm.builtin.copy  in: %5           dst: %4\n"
            "  ret   %4\n"
            "\n"
            "@vm.builtin.read_if_cond packed_func;\n"
            "\n"
            "@test.vm.add packed_func;\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n"
            "@test.vm.mul packed_func;\n"
            "\n");
}

TEST(VMCodeGen, RecursionThroughGlobalVar) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def countdown(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        c = R.call_packed("test.is_positive", n, ty_args=(R.Tensor((), "bool")))
        if c:
            m = R.call_packed("test.dec", n, ty_args=(R.Tensor((), "int64")))
            r = cls.countdown(m)
        else:
            r = n
        return r
)"),
            "@countdown:\n"
            "  call  test.is_positive in: %0           dst: %1\n"
            "  call  vm.builtin.read_if_cond in: %1           dst: %2\n"
            "  If    %2, 5\n"
            "  call  test.dec         in: %0           dst: %3\n"
            "  call  countdown        in: %3           dst: %4\n"
            "  call  vm.builtin.copy  in: %4           dst: %5\n"
            "  goto  2\n"
            "  call  vm.builtin.copy  in: %0           dst: %5\n"
            "  ret   %5\n"
            "\n"
            "@test.is_positive packed_func;\n"
            "\n"
            "@vm.builtin.read_if_cond packed_func;\n"
            "\n"
            "@test.dec packed_func;\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n");
}

TEST(VMCodeGen, ClosuresAndTuples) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function
    def add_to(y: R.Tensor((2,), "float32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.call_pure_packed("test.vm.add", x, y, ty_args=(R.Tensor((2,), "float32")))
        return z

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        cls = Module
        clo = R.call_packed("vm.builtin.make_closure", cls.add_to, x, ty_args=(R.Object))
        r = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (clo, y), ty_args=(R.Tensor((2,), "float32")))
        t = (r, x)
        u = t[1]
        return (u, r)
)"),
            "@add_to:\n"
            "  call  test.vm.add      in: %1, %0       dst: %2\n"
            "  ret   %2\n"
            "\n"
            "@test.vm.add packed_func;\n"
            "\n"
            "@main:\n"
            "  call  vm.builtin.make_closure in: f[add_to], %0 dst: %2\n"
            "  call  vm.builtin.invoke_closure in: %vm, %2, %1  dst: %3\n"
            "  call  vm.builtin.make_tuple in: %3, %0       dst: %4\n"
            "  call  vm.builtin.tuple_getitem in: %4, i1       dst: %5\n"
            "  call  vm.builtin.make_tuple in: %5, %3       dst: %6\n"
            "  ret   %6\n"
            "\n"
            "@vm.builtin.make_closure packed_func;\n"
            "\n"
            "@vm.builtin.invoke_closure packed_func;\n"
            "\n"
            "@vm.builtin.make_tuple packed_func;\n"
            "\n"
            "@vm.builtin.tuple_getitem packed_func;\n"
            "\n");
}

// A call whose callee is a variable (a closure value) goes through vm.builtin.invoke_closure.
TEST(VMCodeGen, CallingAClosureVariable) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function
    def id(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        cls = Module
        clo: R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32")) = R.call_packed("vm.builtin.make_closure", cls.id, ty_args=(R.Callable((R.Tensor((2,), "float32"),), R.Tensor((2,), "float32"))))
        r = clo(x)
        return r
)"),
            "@id:\n"
            "  ret   %0\n"
            "\n"
            "@main:\n"
            "  call  vm.builtin.make_closure in: f[id]        dst: %1\n"
            "  call  vm.builtin.invoke_closure in: %vm, %1, %0  dst: %2\n"
            "  ret   %2\n"
            "\n"
            "@vm.builtin.make_closure packed_func;\n"
            "\n"
            "@vm.builtin.invoke_closure packed_func;\n"
            "\n");
}

TEST(VMCodeGen, ExplicitMemoryKillsAndKernelCalls) {
  absl::StatusOr<vm::Executable> exec = VMCodeGen(Parse(R"(@I.ir_module
class Module:
    @T.prim_func
    def full(T_full: T.Buffer((T.int64(4),), "float32")):
        for ax0 in range(T.int64(4)):
            T_full[ax0] = T.float32(0)

    @R.function(pure=False)
    def main() -> R.Tensor((4,), dtype="float32"):
        cls = Module
        storage: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        alloc: R.Tensor((4,), dtype="float32") = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = cls.full(alloc)
        __1: R.Tuple = R.vm.kill_object(storage)
        heap: R.Tensor(ndim=1, dtype="int64") = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(2),), ty_args=(R.Tensor(ndim=1, dtype="int64")))
        x: R.Tensor((4,), dtype="float32") = alloc
        return x
)"));
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AsText(),
            "@main:\n"
            "  call  vm.builtin.alloc_storage in: %vm, c[0], i0, c[1], c[2] dst: %0\n"
            "  call  vm.builtin.alloc_tensor in: %0, i0, c[3], c[4] dst: %1\n"
            "  call  full             in: %1           dst: %void\n"
            "  call  vm.builtin.null_value in:              dst: %0\n"
            "  call  vm.builtin.alloc_shape_heap in: %vm, i2      dst: %2\n"
            "  call  vm.builtin.copy  in: %1           dst: %3\n"
            "  ret   %3\n"
            "\n"
            "@vm.builtin.alloc_storage packed_func;\n"
            "\n"
            "@vm.builtin.alloc_tensor packed_func;\n"
            "\n"
            "@full packed_func;\n"
            "\n"
            "@vm.builtin.null_value packed_func;\n"
            "\n"
            "@vm.builtin.alloc_shape_heap packed_func;\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n");
  ASSERT_EQ(exec->constants.size(), 5u);
  EXPECT_EQ(exec->constants[0].shape, (std::vector<int64_t>{16}));
  EXPECT_EQ(exec->constants[1].tag, vm::ConstantTag::kDataType);
  EXPECT_EQ(exec->constants[2].str, "global");
  EXPECT_EQ(exec->constants[3].shape, (std::vector<int64_t>{4}));
}

TEST(VMCodeGen, ConstantsAreSharedAndLargeIntsGoToThePool) {
  absl::StatusOr<vm::Executable> exec = VMCodeGen(Parse(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "int64")):
        a = R.call_packed("f", x, R.const([1, 2], "int64"), R.shape([2, 3]), R.prim_value(T.int64(36028797018963968)), ty_args=(R.Tensor((2,), "int64")))
        b = R.call_packed("f", a, R.const([1, 2], "int64"), R.shape([2, 3]), R.prim_value(T.float32(0.5)), ty_args=(R.Tensor((2,), "int64")))
        c = R.call_packed("g", b, R.str("hi"), R.dtype("float16"), R.prim_value(T.int64(-36028797018963967)), ty_args=(R.Tensor((2,), "int64")))
        return c
)"));
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AsText(),
            "@main:\n"
            "  call  f                in: %0, c[0], c[1], c[2] dst: %1\n"
            "  call  f                in: %1, c[0], c[1], c[3] dst: %2\n"
            "  call  g                in: %2, c[4], c[5], i-36028797018963967 dst: %3\n"
            "  ret   %3\n"
            "\n"
            "@f packed_func;\n"
            "\n"
            "@g packed_func;\n"
            "\n");
  ASSERT_EQ(exec->constants.size(), 6u);
  EXPECT_EQ(exec->constants[0].tag, vm::ConstantTag::kTensor);
  EXPECT_EQ(exec->constants[2].tag, vm::ConstantTag::kInt);
  EXPECT_EQ(exec->constants[2].int_value, int64_t{1} << 55);
  EXPECT_EQ(exec->constants[3].tag, vm::ConstantTag::kFloat);
  EXPECT_EQ(exec->constants[3].float_value, 0.5);
  EXPECT_EQ(exec->constants[5].dtype.bits, 16);
}

// Bool is DLPack's kDLBool (code 6, 8 bits) in the executable, as TVM writes it, for dtypes and
// for tensor constants.
TEST(VMCodeGen, BoolIsDLPackBool) {
  absl::StatusOr<vm::Executable> exec = VMCodeGen(Parse(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "bool")):
        a = R.call_packed("f", x, R.dtype("bool"), R.const([True, False], "bool"), ty_args=(R.Tensor((2,), "bool")))
        return a
)"));
  ASSERT_TRUE(exec.ok()) << exec.status();
  ASSERT_EQ(exec->constants.size(), 2u);
  EXPECT_EQ(exec->constants[0].dtype.code, 6);
  EXPECT_EQ(exec->constants[0].dtype.bits, 8);
  const runtime::Tensor& t = exec->constants[1].tensor;
  EXPECT_EQ(t.dtype().code, 6);
  EXPECT_EQ(t.nbytes(), 2);
  EXPECT_EQ(static_cast<const uint8_t*>(t.data())[0], 1);
}

TEST(VMCodeGen, ConstantResultIsCopiedIntoARegister) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function
    def main():
        ret = R.prim_value(T.int64(1))
        return ret
)"),
            "@main:\n"
            "  call  vm.builtin.copy  in: i1           dst: %0\n"
            "  ret   %0\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n");
}

TEST(VMCodeGen, RejectsIRThatIsNotLowered) {
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.add(x, x)
        return y
)"),
            "ERROR: VM codegen (function main): operator relax.add reached VM codegen; the Relax pipeline "
            "(LegalizeOps ... LowerRuntimeBuiltin) should have lowered it");
  EXPECT_EQ(Text(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        y = R.call_packed("f", R.shape([n]), ty_args=(R.Shape))
        return y
)"),
            "ERROR: VM codegen (function main): a symbolic shape reached VM codegen (VMShapeLower should have "
            "replaced it)");
}

}  // namespace
}  // namespace kiln::relax::backend
