#include "compiler/target/llvm/target.h"

#include "gtest/gtest.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::codegen {
namespace {

TEST(LLVMTargetTest, PlainLLVMIsTheHost) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget("llvm");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->triple.empty());
  EXPECT_NE(t->cpu, "native");
  EXPECT_FALSE(t->cpu.empty());
  EXPECT_EQ(t->opt_level, 2);
  // The canonical spelling parses back to the same target.
  absl::StatusOr<LLVMTarget> again = ParseLLVMTarget(t->ToString());
  ASSERT_TRUE(again.ok()) << again.status() << " " << t->ToString();
  EXPECT_EQ(again->ToString(), t->ToString());
}

TEST(LLVMTargetTest, ExplicitOptions) {
  absl::StatusOr<LLVMTarget> t =
      ParseLLVMTarget("llvm  -mtriple=x86_64-linux-gnu -mcpu=skylake -mattr=+avx2,-avx512f -opt-level=3");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->cpu, "skylake");
  EXPECT_EQ(t->features, "+avx2,-avx512f");
  EXPECT_EQ(t->opt_level, 3);
  EXPECT_NE(t->triple.find("x86_64"), std::string::npos);
  auto tm = CreateTargetMachine(*t);
  ASSERT_TRUE(tm.ok()) << tm.status();
  EXPECT_EQ((*tm)->getTargetCPU(), "skylake");
}

TEST(LLVMTargetTest, CrossTargetDefaultsToGenericCpu) {
  // The skip looks at the machine running the test, never at the result under test: on an aarch64
  // host the triple is not a cross target and the host CPU is the right answer.
  if (llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch() == llvm::Triple::aarch64) {
    GTEST_SKIP() << "the host is aarch64, so -mtriple=aarch64 is not a cross target here";
  }
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget("llvm -mtriple=aarch64-linux-gnu");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->cpu, "generic");
}

void ExpectError(const std::string& spec, const std::string& fragment) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget(spec);
  ASSERT_FALSE(t.ok()) << spec;
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status();
}

TEST(LLVMTargetTest, ErrorsNameTheProblem) {
  ExpectError("cuda -arch=sm_90", "not an LLVM CPU target");
  ExpectError("", "not an LLVM CPU target");
  ExpectError("llvm -mfoo=bar", "unknown LLVM target option \"-mfoo\"");
  ExpectError("llvm -mcpu", "needs a value");
  ExpectError("llvm -mcpu=pentium-9000", "unknown -mcpu=pentium-9000");
  ExpectError("llvm -mtriple=nonsense-cpu-none", "no backend for -mtriple=nonsense-cpu-none");
  ExpectError("llvm -mattr=+notafeature", "unknown -mattr feature \"notafeature\"");
  ExpectError("llvm -mattr=avx2", "+feature or -feature");
  ExpectError("llvm -opt-level=7", "-opt-level must be");
  ExpectError("llvm -mtriple=aarch64-linux-gnu -mcpu=native", "not the host");
}

// kiln run checks this before JIT-executing anything: SIGILL must be an error that names the feature.
TEST(CheckRunsOnHostTest, HostRunsForeignDoesNot) {
  EXPECT_TRUE(CheckRunsOnHost(*ParseLLVMTarget("llvm")).ok());
  absl::Status foreign = CheckRunsOnHost(*ParseLLVMTarget("llvm -mtriple=aarch64-linux-gnu"));
  EXPECT_TRUE(absl::IsFailedPrecondition(foreign));
  EXPECT_NE(foreign.message().find("code for -mtriple=aarch64-unknown-linux-gnu cannot run on this"),
            std::string::npos)
      << foreign;
  llvm::StringMap<bool> host;
  if (!llvm::sys::getHostCPUFeatures(host) || llvm::Triple(llvm::sys::getProcessTriple()).getArch() != llvm::Triple::x86_64) {
    GTEST_SKIP() << "the feature check below needs an x86-64 host";
  }
  // A feature this host has runs; one it lacks is named.
  EXPECT_TRUE(CheckRunsOnHost(*ParseLLVMTarget("llvm -mattr=+sse2")).ok());
  std::string lacking;
  for (const char* f : {"avx512fp16", "amx-tile", "avx512f", "avx2"}) {
    auto it = host.find(f);
    if (it != host.end() && !it->second) {
      lacking = f;
      break;
    }
  }
  if (lacking.empty()) GTEST_SKIP() << "this host has every feature the test would ask for";
  absl::Status st = CheckRunsOnHost(*ParseLLVMTarget("llvm -mattr=+" + lacking));
  EXPECT_TRUE(absl::IsFailedPrecondition(st));
  EXPECT_NE(st.message().find("lacks"), std::string::npos) << st;
  EXPECT_NE(st.message().find(lacking), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::codegen
