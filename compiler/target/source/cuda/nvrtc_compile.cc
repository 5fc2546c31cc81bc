#include "compiler/target/source/cuda/nvrtc_compile.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln::codegen {
namespace {

// The parts of nvrtc.h used here, declared by hand so that building kiln needs no CUDA headers.
using nvrtcProgram = void*;
using nvrtcResult = int;  // 0 = NVRTC_SUCCESS

struct NVRTC {
  nvrtcResult (*Version)(int*, int*);
  const char* (*GetErrorString)(nvrtcResult);
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
  nvrtcResult (*DestroyProgram)(nvrtcProgram*);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetPTX)(nvrtcProgram, char*);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*);
  std::string include_dir;  // the toolkit's include/, for cuda_fp16.h and cuda_bf16.h
};

// Loads NVRTC once per process (thread-safe); the result never changes afterwards.
const absl::StatusOr<NVRTC>& LoadNVRTC() {
  static const absl::StatusOr<NVRTC>* const kNVRTC = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("KILN_NVRTC"); env != nullptr && *env != '\0') candidates.push_back(env);
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) candidates.push_back(name);
    for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"}) {
      candidates.push_back(absl::StrCat(dir, "/libnvrtc.so"));
    }
    void* h = nullptr;
    for (const std::string& c : candidates) {
      h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h != nullptr) break;
    }
    if (h == nullptr) {
      return new absl::StatusOr<NVRTC>(absl::FailedPreconditionError(
          "NVRTC (libnvrtc.so) not found: the cuda target needs the CUDA toolkit (/usr/local/cuda), or "
          "KILN_NVRTC set to the library's path"));
    }
    NVRTC n;
    bool ok = true;
    auto sym = [&](auto* fn, const char* name) {
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(dlsym(h, name));
      ok = ok && *fn != nullptr;
    };
    sym(&n.Version, "nvrtcVersion");
    sym(&n.GetErrorString, "nvrtcGetErrorString");
    sym(&n.CreateProgram, "nvrtcCreateProgram");
    sym(&n.DestroyProgram, "nvrtcDestroyProgram");
    sym(&n.CompileProgram, "nvrtcCompileProgram");
    sym(&n.GetProgramLogSize, "nvrtcGetProgramLogSize");
    sym(&n.GetProgramLog, "nvrtcGetProgramLog");
    sym(&n.GetPTXSize, "nvrtcGetPTXSize");
    sym(&n.GetPTX, "nvrtcGetPTX");
    sym(&n.GetCUBINSize, "nvrtcGetCUBINSize");
    sym(&n.GetCUBIN, "nvrtcGetCUBIN");
    if (!ok) {
      return new absl::StatusOr<NVRTC>(
          absl::FailedPreconditionError("the NVRTC library found lacks functions kiln needs (NVRTC >= 11.1 required)"));
    }
    // The include directory next to the library's lib/ (…/cuda/lib64/libnvrtc.so -> …/cuda/include).
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(n.CreateProgram), &info) != 0 && info.dli_fname != nullptr) {
      std::string dir = info.dli_fname;
      dir = dir.substr(0, dir.rfind('/'));
      size_t lib = dir.rfind('/');
      if (lib != std::string::npos && dir.compare(lib, 4, "/lib") == 0) n.include_dir = dir.substr(0, lib) + "/include";
    }
    return new absl::StatusOr<NVRTC>(n);
  }();
  return *kNVRTC;
}

}  // namespace

std::string CUDATarget::ToString() const { return absl::StrCat("cuda -arch=", arch, fast_math ? " -fast-math" : ""); }

absl::StatusOr<CUDATarget> ParseCUDATarget(absl::string_view spec) {
  std::vector<absl::string_view> words = absl::StrSplit(spec, ' ', absl::SkipEmpty());
  if (words.empty() || words[0] != "cuda") {
    return absl::InvalidArgumentError(absl::StrCat("not a cuda target: \"", spec, "\""));
  }
  CUDATarget t;
  for (size_t i = 1; i < words.size(); ++i) {
    absl::string_view w = words[i];
    if (absl::ConsumePrefix(&w, "-arch=")) {
      absl::string_view digits = w;
      int sm = 0;
      bool well_formed = absl::ConsumePrefix(&digits, "sm_");
      absl::ConsumeSuffix(&digits, "a");  // sm_90a: the arch-specific feature set
      if (!well_formed || !absl::SimpleAtoi(digits, &sm)) {
        return absl::InvalidArgumentError(absl::StrCat("bad -arch \"", w, "\": expected sm_NN or sm_NNa (e.g. sm_90)"));
      }
      if (sm < 75) {
        return absl::InvalidArgumentError(
            absl::StrCat("-arch=", w, " is not supported: the CUDA 13 toolkit targets sm_75 and newer"));
      }
      t.arch = std::string(w);
    } else if (w == "-fast-math" || w == "-use_fast_math") {
      t.fast_math = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown cuda target option \"", words[i], "\""));
    }
  }
  return t;
}

absl::StatusOr<std::string> NVRTCVersion() {
  const absl::StatusOr<NVRTC>& n = LoadNVRTC();
  if (!n.ok()) return n.status();
  int major = 0, minor = 0;
  n->Version(&major, &minor);
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<std::string> CompileWithNVRTC(const std::string& source, const CUDATarget& target,
                                             CUDABinary binary) {
  const absl::StatusOr<NVRTC>& loaded = LoadNVRTC();
  if (!loaded.ok()) return loaded.status();
  const NVRTC& n = *loaded;
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = n.CreateProgram(&prog, source.c_str(), "kiln_kernels.cu", 0, nullptr, nullptr);
  if (rc != 0) return absl::InternalError(absl::StrCat("nvrtcCreateProgram: ", n.GetErrorString(rc)));
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) {
    const absl::StatusOr<NVRTC>& l = LoadNVRTC();
    if (l.ok()) l->DestroyProgram(p);
  });
  // compute_XX yields PTX for the virtual architecture (loadable on XX and newer); sm_XX a cubin.
  std::string sm = target.arch.substr(3);
  std::vector<std::string> options = {
      binary == CUDABinary::kPTX ? absl::StrCat("--gpu-architecture=compute_", sm)
                                 : absl::StrCat("--gpu-architecture=sm_", sm),
      "--std=c++17", "-default-device",
      // "pointless comparison of unsigned integer with zero": the prelude's helpers are generic.
      "--diag-suppress=186"};
  if (target.fast_math) options.push_back("--use_fast_math");
  if (!n.include_dir.empty()) options.push_back(absl::StrCat("--include-path=", n.include_dir));
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  rc = n.CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  n.GetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) n.GetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC rejected the generated CUDA (", n.GetErrorString(rc), ", ", target.ToString(), "):\n", log));
  }
  size_t size = 0;
  std::string out;
  if (binary == CUDABinary::kPTX) {
    n.GetPTXSize(prog, &size);
    out.resize(size);
    n.GetPTX(prog, out.data());
    while (!out.empty() && out.back() == '\0') out.pop_back();  // the size counts the terminator
  } else {
    n.GetCUBINSize(prog, &size);
    out.resize(size);
    n.GetCUBIN(prog, out.data());
  }
  return out;
}

}  // namespace kiln::codegen
