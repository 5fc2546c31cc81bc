// The exported-symbol rules hold at build time: `kiln check` accepts these modules (TVM's parser
// does), every build of them is refused at the offending function.
#include "compiler/driver/kernel_symbols.h"

#include "compiler/driver/kernel_build.h"
#include "compiler/driver/relax_build.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

ir::IRModule Parse(const char* source) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "k.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

// The build's error for `source` on `target`, or "" when it builds.
std::string KernelBuildError(const char* source, const std::string& target) {
  absl::StatusOr<std::string> src = EmitKernelSource(Parse(source), target);
  return src.ok() ? "" : std::string(src.status().message());
}

constexpr char kLibmName[] = R"PY(@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "expf"})
    A[0] = T.exp(A[1])
)PY";

constexpr char kCollision[] = R"PY(@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "k"})
        A[0] = T.float32(1)

    @T.prim_func
    def g(A: T.Buffer((8,), "float32")):
        A[0] = T.float32(2)

    @T.prim_func
    def k(A: T.Buffer((8,), "float32")):
        A[0] = T.float32(3)
)PY";

TEST(CheckKernelSymbolsTest, CLibraryNames) {
  EXPECT_TRUE(IsCLibraryName("malloc"));
  EXPECT_TRUE(IsCLibraryName("exp"));
  EXPECT_TRUE(IsCLibraryName("expf"));
  EXPECT_TRUE(IsCLibraryName("tanhl"));
  EXPECT_FALSE(IsCLibraryName("div"));
  EXPECT_FALSE(IsCLibraryName("exp_kernel"));
}

TEST(CheckKernelSymbolsTest, LibmNameIsRefusedByEveryCpuBuild) {
  for (const char* target : {"c", "llvm"}) {
    EXPECT_EQ(KernelBuildError(kLibmName, target),
              "k.py:2:1: error: global_symbol \"expf\" is a C library function that compiled kernels call; export "
              "the function under another name\n")
        << target;
  }
}

TEST(CheckKernelSymbolsTest, CollisionWithAnotherFunctionsName) {
  // g exports nothing of its own (no global_symbol: its name), k collides with f's symbol.
  EXPECT_EQ(KernelBuildError(kCollision, "c"),
            "k.py:13:5: error: function k exports the symbol \"k\", which function f already has\n");
  EXPECT_EQ(CheckKernelSymbols(Parse(kCollision)).message(),
            "k.py:13:5: error: function k exports the symbol \"k\", which function f already has\n");
}

TEST(CheckKernelSymbolsTest, RelaxExecutableBuildRefusesTheKernel) {
  constexpr char kSource[] = R"PY(@I.ir_module
class Module:
    @T.prim_func
    def exp(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = T.exp(A[i])

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4,), "float32"))
        return y
)PY";
  absl::StatusOr<vm::Executable> exec = BuildExecutable(Parse(kSource), "llvm");
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("global_symbol \"exp\" is a C library function"), std::string::npos)
      << exec.status();
}

TEST(CheckKernelSymbolsTest, DistinctSymbolsBuild) {
  EXPECT_EQ(KernelBuildError(R"PY(@T.prim_func
def div(A: T.Buffer((8,), "int32")):
    A[0] = A[1] // 2
)PY",
                             "c"),
            "");
}

}  // namespace
}  // namespace kiln::driver
