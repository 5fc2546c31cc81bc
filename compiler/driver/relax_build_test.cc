// BuildExecutable / BuildKernelExecutable / LoadOrBuildExecutable: the library section (kind,
// normalized target, a shared object that really exports the kernels the bytecode calls), private
// kernels made reachable, the kernel-only executable, .kx files loaded back, and the errors a
// caller can provoke (no Relax function, bad target, corrupted file).
#include "compiler/driver/relax_build.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"
#include "runtime/module.h"
#include "runtime/vm/executable.h"

namespace kiln::driver {
namespace {

// A module in the VM-lowered form but for its parameter checks (VMShapeLower adds them): one
// private kernel, explicit memory, a kill.
constexpr char kLowered[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        storage: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        y: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = cls.add_one(x, y)
        __: R.Tuple = R.vm.kill_object(storage)
        return y
)PY";

constexpr char kKernelsOnly[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)

    @T.prim_func
    def shift(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(2)
)PY";

ir::IRModule Parse(const char* text) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(text, "build_test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

std::string TempPath(const std::string& suffix) {
  const char* dir = getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/relax_build_test_" + std::to_string(getpid()) + suffix;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Writes the library section out and loads it: every kernel the bytecode names must be exported.
void ExpectLibraryExports(const vm::Executable& exec, const std::vector<std::string>& kernels) {
  ASSERT_EQ(exec.libraries.size(), 1u);
  std::string path = TempPath(".so");
  WriteFile(path, exec.libraries[0].bytes);
  absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib = runtime::KernelLibrary::Load(path);
  unlink(path.c_str());
  ASSERT_TRUE(lib.ok()) << lib.status();
  for (const std::string& k : kernels) EXPECT_TRUE((*lib)->GetKernel(k).ok()) << k;
}

TEST(BuildExecutable, LoweredModuleWithKernelLibrary) {
  for (const std::string target : {"llvm", "c"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<vm::Executable> exec = BuildExecutable(Parse(kLowered), target);
    ASSERT_TRUE(exec.ok()) << exec.status();
    EXPECT_EQ(exec->AsText(),
              "@main:\n"
              "  call  vm.builtin.check_tensor_info in: %0, i1, c[0], c[1] dst: %void\n"
              "  call  vm.builtin.match_shape in: %0, %void, i1, i0, i4, c[1] dst: %void\n"
              "  call  vm.builtin.alloc_storage in: %vm, c[2], i0, c[3], c[4] dst: %1\n"
              "  call  vm.builtin.alloc_tensor in: %1, i0, c[5], c[0] dst: %2\n"
              "  call  add_one          in: %0, %2       dst: %void\n"
              "  call  vm.builtin.null_value in:              dst: %1\n"
              "  ret   %2\n"
              "\n"
              "@vm.builtin.check_tensor_info packed_func;\n"
              "\n"
              "@vm.builtin.match_shape packed_func;\n"
              "\n"
              "@vm.builtin.alloc_storage packed_func;\n"
              "\n"
              "@vm.builtin.alloc_tensor packed_func;\n"
              "\n"
              "@add_one packed_func;\n"
              "\n"
              "@vm.builtin.null_value packed_func;\n"
              "\n");
    ASSERT_EQ(exec->libraries.size(), 1u);
    EXPECT_EQ(exec->libraries[0].kind, "host-so");
    EXPECT_EQ(exec->libraries[0].name, "host");
    if (target == "c") {
      EXPECT_EQ(exec->libraries[0].target, "c");
    } else {
      EXPECT_TRUE(absl::StartsWith(exec->libraries[0].target, "llvm -mtriple=")) << exec->libraries[0].target;
    }
    ExpectLibraryExports(*exec, {"add_one"});
    // The bytes load back to the same executable.
    absl::StatusOr<vm::Executable> back = vm::Executable::Deserialize(exec->Serialize());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->AsText(), exec->AsText());
    EXPECT_EQ(back->libraries[0].bytes, exec->libraries[0].bytes);
  }
}

// kilnd's cache hands out the bytes of the first build for every later equal request: a build must
// not depend on anything but its input (temporary file names, addresses, time).
TEST(BuildExecutable, EqualModulesBuildEqualBytes) {
  for (const char* target : {"llvm", "c"}) {
    absl::StatusOr<vm::Executable> first = BuildExecutable(Parse(kLowered), target);
    absl::StatusOr<vm::Executable> second = BuildExecutable(Parse(kLowered), target);
    ASSERT_TRUE(first.ok() && second.ok()) << target;
    EXPECT_EQ(first->Serialize(), second->Serialize()) << target;
  }
}

TEST(BuildExecutable, RelaxWithoutKernelsHasNoLibrary) {
  absl::StatusOr<vm::Executable> exec = BuildExecutable(Parse(R"PY(
@R.function(pure=False)
def main(x: R.Tensor((4,), "float32")):
    y = R.call_packed("vm.builtin.copy", x, ty_args=(R.Tensor((4,), "float32")))
    return y
)PY"),
                                                        "llvm");
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_TRUE(exec->libraries.empty());
  EXPECT_EQ(exec->func_table[exec->func_map.at("main")].param_names, (std::vector<std::string>{"x"}));
}

// kiln compiles no Python: a BasePyModule's @I.pyfunc method fails the build (either kind),
// naming the method and its line.
TEST(BuildModuleExecutable, PyFuncIsUnimplemented) {
  for (const char* relax : {"", R"PY(
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
)PY"}) {
    std::string source = absl::StrCat(R"PY(@I.ir_module
class Module(BasePyModule):
    @I.pyfunc
    def double(self, x):
        return x * 2

    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)
)PY",
                                      relax);
    absl::StatusOr<vm::Executable> exec = BuildModuleExecutable(Parse(source.c_str()), "llvm");
    ASSERT_FALSE(exec.ok());
    EXPECT_TRUE(absl::IsUnimplemented(exec.status())) << exec.status();
    EXPECT_NE(exec.status().message().find("4:5: error: @I.pyfunc method 'double' is Python"), std::string::npos)
        << exec.status();
  }
}

TEST(BuildExecutable, Errors) {
  absl::StatusOr<vm::Executable> exec = BuildExecutable(Parse(kKernelsOnly), "llvm");
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("no Relax function"), std::string::npos) << exec.status();
  exec = BuildExecutable(Parse(kLowered), "metal");
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("unsupported target"), std::string::npos) << exec.status();
  exec = BuildExecutable(Parse(kLowered), "llvm -mcpu=no-such-cpu");
  EXPECT_FALSE(exec.ok());
}

TEST(BuildExecutable, EntriesKeepWhatTheyCall) {
  constexpr char kTwoEntries[] = R"PY(
@I.ir_module
class Module:
    @T.prim_func
    def twice(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)

    @T.prim_func
    def halve(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(0.5)

    @R.function
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.twice, (x,), out_ty=R.Tensor((4,), "float32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = cls.helper(x)
        return y

    @R.function
    def other(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.halve, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
)PY";
  BuildOptions options;
  options.entries = {"main"};
  absl::StatusOr<vm::Executable> exec = BuildExecutable(Parse(kTwoEntries), "c", options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->func_map.count("main"), 1u);
  EXPECT_EQ(exec->func_map.count("helper"), 1u);  // called by main
  EXPECT_EQ(exec->func_map.count("twice"), 1u);
  EXPECT_EQ(exec->func_map.count("other"), 0u);
  EXPECT_EQ(exec->func_map.count("halve"), 0u);
  ExpectLibraryExports(*exec, {"twice"});
  // Without entries, every public function stays.
  exec = BuildExecutable(Parse(kTwoEntries), "c");
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->func_map.count("other"), 1u);
  options.entries = {"nope"};
  exec = BuildExecutable(Parse(kTwoEntries), "c", options);
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.status().message(), "entry \"nope\" is not a Relax function of the module");
}

TEST(BuildKernelExecutable, KernelsBecomePackedFunctions) {
  absl::StatusOr<vm::Executable> exec = BuildKernelExecutable(Parse(kKernelsOnly), "c");
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AsText(),
            "@scale packed_func;\n"
            "\n"
            "@shift packed_func;\n"
            "\n");
  EXPECT_TRUE(exec->instr_data.empty());
  ExpectLibraryExports(*exec, {"scale", "shift"});
}

TEST(LoadOrBuildExecutable, LoadsExecutablesAndBuildsSources) {
  std::string src = TempPath(".py");
  WriteFile(src, kLowered);
  absl::StatusOr<vm::Executable> built = LoadOrBuildExecutable(src, "c");
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->func_table[built->func_map.at("main")].kind, vm::FuncInfo::Kind::kVMFunc);

  // A .kx file is recognized by its magic, whatever its name.
  std::string kx = TempPath(".bin");
  WriteFile(kx, built->Serialize());
  absl::StatusOr<vm::Executable> loaded = LoadOrBuildExecutable(kx, "ignored for executables");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->AsText(), built->AsText());

  // A kernel-only module gives the kernel executable.
  WriteFile(src, kKernelsOnly);
  built = LoadOrBuildExecutable(src, "c");
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->func_table.size(), 2u);

  // A corrupted executable is an error naming the file.
  std::string bytes = loaded->Serialize();
  WriteFile(kx, bytes.substr(0, bytes.size() / 2));
  absl::StatusOr<vm::Executable> bad = LoadOrBuildExecutable(kx, "c");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), kx + ": ")) << bad.status();

  EXPECT_FALSE(LoadOrBuildExecutable(TempPath(".missing"), "c").ok());
  unlink(src.c_str());
  unlink(kx.c_str());
}

}  // namespace
}  // namespace kiln::driver
