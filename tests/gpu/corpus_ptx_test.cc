// Every GPU-target program of the shared corpus (../shared/corpus/tir, TARGETS listing "cuda" in
// its .ref.py) compiles for
//   * cuda -arch=sm_90 (CUDA C++ -> NVRTC -> PTX) and nvptx -mcpu=sm_90 (LLVM NVPTX -> PTX), and
//     `ptxas -arch=sm_90` accepts both PTX files;
//   * rocm -mcpu=gfx90a (LLVM AMDGPU -> HSA code object), and llvm-readobj-16 reads it as a gfx90a
//     shared object that defines each kernel's descriptor.
// A missing tool (ptxas, NVRTC, ld.lld, llvm-readobj-16) skips that check with a message naming it.
// Nothing here runs a kernel: tests/gpu/run_cuda.sh does that on a machine with an NVIDIA GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "compiler/script/script.h"
#include "compiler/target/llvm/codegen_gpu.h"
#include "compiler/target/source/cuda/codegen_cuda.h"
#include "compiler/target/source/cuda/nvrtc_compile.h"
#include "compiler/target/testing/tools.h"
#include "compiler/tir/transform/passes.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using namespace ir;  // NOLINT
namespace t = tir::transform;

using codegen::testing::kPtxas;
using codegen::testing::RunCommand;
using codegen::testing::WriteTemp;
constexpr char kReadobj[] = "/usr/bin/llvm-readobj-16";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// shared/corpus next to the checkout: $KILN_SHARED_DIR, else up from the WORKSPACE runfile.
fs::path FindCorpus() {
  if (const char* env = std::getenv("KILN_SHARED_DIR"); env != nullptr && fs::is_directory(fs::path(env) / "corpus")) {
    return fs::path(env) / "corpus" / "tir";
  }
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || ws == nullptr) return {};
  std::error_code ec;
  fs::path anchor = fs::canonical(fs::path(srcdir) / ws / "WORKSPACE", ec);
  if (ec) return {};
  for (fs::path d = anchor.parent_path(); d != d.root_path(); d = d.parent_path()) {
    if (fs::is_directory(d / "shared" / "corpus" / "tir")) return d / "shared" / "corpus" / "tir";
  }
  return {};
}

// The programs whose .ref.py has a TARGETS line naming "cuda".
std::vector<fs::path> GpuPrograms(const fs::path& corpus) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    std::string name = entry.path().filename().string();
    if (name.size() < 7 || name.substr(name.size() - 7) == ".ref.py" || entry.path().extension() != ".py") continue;
    fs::path ref = entry.path();
    ref.replace_extension(".ref.py");
    std::istringstream lines(ReadFile(ref));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("TARGETS", 0) == 0 && line.find("\"cuda\"") != std::string::npos) out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The module's PrimFuncs lowered and split; the device kernels of all of them.
absl::StatusOr<std::vector<PrimFunc>> DeviceKernels(const fs::path& file) {
  absl::StatusOr<ObjectRef> parsed = script::ParseScript(ReadFile(file), file.string());
  if (!parsed.ok()) return parsed.status();
  std::vector<std::pair<std::string, PrimFunc>> funcs;
  if (parsed->as<PrimFuncNode>() != nullptr) {
    funcs.emplace_back("main", Downcast<PrimFunc>(*parsed));
  } else if (parsed->as<IRModuleNode>() != nullptr) {
    for (const auto& [gv, f] : Downcast<IRModule>(*parsed).Functions()) {
      if (f.as<PrimFuncNode>() != nullptr) funcs.emplace_back(gv->name, Downcast<PrimFunc>(f));
    }
  }
  std::vector<PrimFunc> kernels;
  for (const auto& [name, func] : funcs) {
    absl::StatusOr<PrimFunc> f = t::LowerSBlocks(func, name);
    if (!f.ok()) return f.status();
    absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), name, "cuda");
    if (!split.ok()) return split.status();
    for (const PrimFunc& k : split->kernels) kernels.push_back(t::Simplify(k));
  }
  return kernels;
}

// ptxas -arch=sm_90 on `ptx`; false (with the reason printed) when ptxas is missing.
bool PtxasAccepts(const std::string& label, const std::string& ptx) {
  if (access(kPtxas, X_OK) != 0) {
    std::printf("SKIP ptxas check of %s: %s not found (no CUDA toolkit)\n", label.c_str(), kPtxas);
    return true;
  }
  std::string log;
  int rc = RunCommand(absl::StrCat(kPtxas, " -arch=sm_90 -v -o /dev/null ", WriteTemp("k.ptx", ptx)), &log);
  EXPECT_EQ(rc, 0) << label << ": ptxas rejected the PTX:\n" << log << "\n" << ptx;
  std::printf("ptxas -arch=sm_90 %s: %s\n", label.c_str(), rc == 0 ? "ok" : "REJECTED");
  return rc == 0;
}

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus_ = FindCorpus();
    ASSERT_FALSE(corpus_.empty()) << "shared/corpus/tir not found (set KILN_SHARED_DIR)";
    programs_ = GpuPrograms(corpus_);
    ASSERT_FALSE(programs_.empty()) << "no program in " << corpus_ << " lists the cuda target";
  }
  fs::path corpus_;
  std::vector<fs::path> programs_;
};

TEST_F(CorpusTest, CudaPTXPassesPtxas) {
  codegen::CUDATarget target = *codegen::ParseCUDATarget("cuda -arch=sm_90");
  for (const fs::path& p : programs_) {
    std::string label = "cuda " + p.filename().string();
    absl::StatusOr<std::vector<PrimFunc>> kernels = DeviceKernels(p);
    ASSERT_TRUE(kernels.ok()) << label << ": " << kernels.status();
    absl::StatusOr<codegen::CUDAProgramSource> src = codegen::GenerateCUDA(*kernels);
    ASSERT_TRUE(src.ok()) << label << ": " << src.status();
    absl::StatusOr<std::string> ptx = codegen::CompileWithNVRTC(src->source, target);
    if (absl::IsFailedPrecondition(ptx.status())) GTEST_SKIP() << "no NVRTC: " << ptx.status();
    ASSERT_TRUE(ptx.ok()) << label << ": " << ptx.status();
    for (const codegen::CUDAKernelInfo& k : src->kernels) {
      EXPECT_NE(ptx->find(".entry " + k.name), std::string::npos) << label << " lacks kernel " << k.name;
    }
    PtxasAccepts(label, *ptx);
  }
}

TEST_F(CorpusTest, NvptxPTXPassesPtxas) {
  codegen::GPUTarget target = *codegen::ParseGPUTarget("nvptx -mcpu=sm_90");
  for (const fs::path& p : programs_) {
    std::string label = "nvptx " + p.filename().string();
    absl::StatusOr<std::vector<PrimFunc>> kernels = DeviceKernels(p);
    ASSERT_TRUE(kernels.ok()) << label << ": " << kernels.status();
    absl::StatusOr<std::string> ptx = codegen::CompileGPUKernels(*kernels, target);
    ASSERT_TRUE(ptx.ok()) << label << ": " << ptx.status();
    for (const PrimFunc& k : *kernels) {
      EXPECT_NE(ptx->find(".entry " + k->GetGlobalSymbol()), std::string::npos) << label;
    }
    PtxasAccepts(label, *ptx);
  }
}

TEST_F(CorpusTest, RocmCodeObjectReads) {
  codegen::GPUTarget target = *codegen::ParseGPUTarget("rocm -mcpu=gfx90a");
  for (const fs::path& p : programs_) {
    std::string label = "rocm " + p.filename().string();
    absl::StatusOr<std::vector<PrimFunc>> kernels = DeviceKernels(p);
    ASSERT_TRUE(kernels.ok()) << label << ": " << kernels.status();
    absl::StatusOr<std::string> hsaco = codegen::CompileGPUKernels(*kernels, target);
    if (absl::IsFailedPrecondition(hsaco.status())) GTEST_SKIP() << hsaco.status();
    ASSERT_TRUE(hsaco.ok()) << label << ": " << hsaco.status();
    if (access(kReadobj, X_OK) != 0) GTEST_SKIP() << kReadobj << " not found";
    std::string log;
    ASSERT_EQ(RunCommand(absl::StrCat(kReadobj, " --file-headers --symbols ", WriteTemp("k.hsaco", *hsaco)), &log), 0)
        << log;
    EXPECT_NE(log.find("EF_AMDGPU_MACH_AMDGCN_GFX90A"), std::string::npos) << label << "\n" << log;
    for (const PrimFunc& k : *kernels) {
      EXPECT_NE(log.find(k->GetGlobalSymbol() + ".kd"), std::string::npos) << label << "\n" << log;
    }
    std::printf("llvm-readobj-16 %s: gfx90a code object, %zu kernel(s)\n", label.c_str(), kernels->size());
  }
}

}  // namespace
}  // namespace kiln
