// KernelTargetKind's target checks and EmitKernelObject for a foreign triple.
#include "compiler/driver/kernel_build.h"

#include <cstring>

#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::driver {
namespace {

constexpr char kSource[] = R"PY(@T.prim_func
def add_one(A: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = A[i] + 1
)PY";

TEST(KernelTargetKindTest, CTakesNoOptions) {
  EXPECT_EQ(*KernelTargetKind("c"), "c");
  EXPECT_EQ(*KernelTargetKind("llvm -mcpu=skylake"), "llvm");
  absl::StatusOr<std::string> bad = KernelTargetKind("c -mcpu=bogus");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "target \"c -mcpu=bogus\": \"c\" takes no options (choose a CPU with \"llvm -mcpu=...\")");
  EXPECT_FALSE(KernelTargetKind("cuda").ok());
}

// No linking: an object file for another architecture needs nothing from this host.
TEST(EmitKernelObjectTest, ForeignTripleGivesAnElfObject) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(kSource, "k.py");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<std::string> obj = EmitKernelObject(script::AsModule(*parsed), "llvm -mtriple=aarch64-linux-gnu");
  ASSERT_TRUE(obj.ok()) << obj.status();
  ASSERT_GT(obj->size(), 20u);
  EXPECT_EQ(obj->substr(0, 4), "\x7f" "ELF");
  uint16_t machine = 0;
  std::memcpy(&machine, obj->data() + 18, 2);
  EXPECT_EQ(machine, 183);  // EM_AARCH64
  EXPECT_FALSE(EmitKernelObject(script::AsModule(*parsed), "c").ok());
}

}  // namespace
}  // namespace kiln::driver
