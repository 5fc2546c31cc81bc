#include "compiler/target/llvm/target.h"

#include <algorithm>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::codegen {
namespace {

// The host's features in -mattr form, sorted so the spelling is stable.
std::string HostFeatures() {
  llvm::StringMap<bool> map;
  std::vector<std::string> features;
  if (llvm::sys::getHostCPUFeatures(map)) {
    for (const auto& kv : map) features.push_back(absl::StrCat(kv.second ? "+" : "-", kv.first().str()));
  }
  std::sort(features.begin(), features.end());
  return absl::StrJoin(features, ",");
}

absl::StatusOr<const llvm::Target*> LookupTarget(const std::string& triple) {
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (t == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("LLVM has no backend for -mtriple=", triple, ": ", error));
  }
  return t;
}

}  // namespace

void InitializeLLVM() {
  // Function-local: the once-flag is immutable after the first call, so no mutable global state
  // leaks into the daemon. All targets, so -mtriple may cross-compile.
  static absl::once_flag once;
  absl::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string LLVMTarget::ToString() const {
  std::string s = absl::StrCat("llvm -mtriple=", triple, " -mcpu=", cpu);
  if (!features.empty()) absl::StrAppend(&s, " -mattr=", features);
  absl::StrAppend(&s, " -opt-level=", opt_level);
  return s;
}

absl::StatusOr<LLVMTarget> ParseLLVMTarget(absl::string_view spec) {
  InitializeLLVM();
  std::vector<std::string> tokens = absl::StrSplit(spec, ' ', absl::SkipWhitespace());
  if (tokens.empty() || tokens[0] != "llvm") {
    return absl::InvalidArgumentError(
        absl::StrCat("target \"", spec, "\" is not an LLVM CPU target (it must start with \"llvm\")"));
  }
  LLVMTarget t;
  std::string cpu = "native";
  bool cpu_given = false, triple_given = false, attr_given = false;
  std::string attrs;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    size_t eq = tok.find('=');
    std::string key = tok.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : tok.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("target option \"", tok, "\" needs a value (", key, "=...)"));
    }
    if (key == "-mtriple") {
      t.triple = value;
      triple_given = true;
    } else if (key == "-mcpu") {
      cpu = value;
      cpu_given = true;
    } else if (key == "-mattr") {
      attrs = value;
      attr_given = true;
    } else if (key == "-opt-level") {
      if (!absl::SimpleAtoi(value, &t.opt_level) || t.opt_level < 0 || t.opt_level > 3) {
        return absl::InvalidArgumentError(absl::StrCat("-opt-level must be 0, 1, 2 or 3, got \"", value, "\""));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown LLVM target option \"", key,
                                                     "\" (known: -mtriple, -mcpu, -mattr, -opt-level)"));
    }
  }
  std::string host = llvm::sys::getDefaultTargetTriple();
  if (!triple_given) t.triple = host;
  t.triple = llvm::Triple::normalize(t.triple);
  absl::StatusOr<const llvm::Target*> target = LookupTarget(t.triple);
  if (!target.ok()) return target.status();
  bool is_host = llvm::Triple(t.triple).getArch() == llvm::Triple(host).getArch();
  if (cpu == "native") {
    if (!is_host && cpu_given) {
      return absl::InvalidArgumentError(
          absl::StrCat("-mcpu=native names the host CPU, but -mtriple=", t.triple, " is not the host"));
    }
    if (is_host) {
      t.cpu = llvm::sys::getHostCPUName().str();
      t.features = HostFeatures();
    } else {
      t.cpu = "generic";
    }
  } else {
    t.cpu = cpu;
  }
  if (attr_given) t.features = t.features.empty() ? attrs : absl::StrCat(t.features, ",", attrs);
  // Ask the target's own tables whether it knows the CPU (LLVM would only print a warning). The
  // subtarget is made for the default CPU, so a bad name is not reported twice.
  std::unique_ptr<llvm::MCSubtargetInfo> sti((*target)->createMCSubtargetInfo(t.triple, "", ""));
  if (sti == nullptr || !sti->isCPUStringValid(t.cpu)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown -mcpu=", t.cpu, " for ", t.triple));
  }
  if (attr_given) {
    for (absl::string_view f : absl::StrSplit(attrs, ',', absl::SkipEmpty())) {
      if (f.size() < 2 || (f[0] != '+' && f[0] != '-')) {
        return absl::InvalidArgumentError(absl::StrCat("-mattr entries look like +feature or -feature, got \"", f, "\""));
      }
      absl::string_view name = f.substr(1);
      // A feature LLVM knows changes the feature bits one way or the other; an unknown one is
      // ignored by both (LLVM only warns).
      std::unique_ptr<llvm::MCSubtargetInfo> on(
          (*target)->createMCSubtargetInfo(t.triple, t.cpu, absl::StrCat("+", name)));
      std::unique_ptr<llvm::MCSubtargetInfo> off(
          (*target)->createMCSubtargetInfo(t.triple, t.cpu, absl::StrCat("-", name)));
      if (on->getFeatureBits() == off->getFeatureBits()) {
        return absl::InvalidArgumentError(absl::StrCat("unknown -mattr feature \"", f.substr(1), "\" for ", t.triple));
      }
    }
  }
  return t;
}

llvm::CodeGenOpt::Level CodeGenOptLevel(const LLVMTarget& target) {
  switch (target.opt_level) {
    case 0: return llvm::CodeGenOpt::None;
    case 1: return llvm::CodeGenOpt::Less;
    case 2: return llvm::CodeGenOpt::Default;
    default: return llvm::CodeGenOpt::Aggressive;
  }
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const LLVMTarget& target) {
  InitializeLLVM();
  absl::StatusOr<const llvm::Target*> t = LookupTarget(target.triple);
  if (!t.ok()) return t.status();
  llvm::TargetOptions options;
  // GPU targets contract a * b + c into one fma, as NVRTC (-fmad=true) and hipcc do by default:
  // kernels from the cuda and nvptx targets then compute the same way. CPU code keeps separate
  // roundings, matching the reference interpreter bit for bit.
  if (llvm::Triple(target.triple).isNVPTX() || llvm::Triple(target.triple).isAMDGPU()) {
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  }
  std::unique_ptr<llvm::TargetMachine> tm((*t)->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, std::nullopt, CodeGenOptLevel(target)));
  if (tm == nullptr) return absl::InternalError(absl::StrCat("cannot create a target machine for ", target.ToString()));
  return tm;
}

absl::Status CheckRunsOnHost(const LLVMTarget& target) {
  InitializeLLVM();
  std::string host = llvm::sys::getProcessTriple();
  if (llvm::Triple(target.triple).getArch() != llvm::Triple(host).getArch()) {
    return absl::FailedPreconditionError(absl::StrCat("code for -mtriple=", target.triple, " cannot run on this ",
                                                      host, " host (kiln build still compiles for it)"));
  }
  absl::StatusOr<const llvm::Target*> t = LookupTarget(target.triple);
  if (!t.ok()) return t.status();
  std::unique_ptr<llvm::MCSubtargetInfo> sti((*t)->createMCSubtargetInfo(target.triple, target.cpu, target.features));
  if (sti == nullptr) return absl::InternalError(absl::StrCat("no subtarget for ", target.ToString()));
  // The host's ISA features that it lacks, against what the target (its CPU's features, implied
  // ones included, plus -mattr) enables: any such instruction would raise SIGILL.
  llvm::StringMap<bool> host_features;
  std::vector<std::string> missing;
  if (llvm::sys::getHostCPUFeatures(host_features)) {
    for (const auto& kv : host_features) {
      if (!kv.second && sti->checkFeatures(absl::StrCat("+", kv.first().str()))) missing.push_back(kv.first().str());
    }
  }
  if (missing.empty()) return absl::OkStatus();
  std::sort(missing.begin(), missing.end());
  return absl::FailedPreconditionError(
      absl::StrCat("this host's CPU (", llvm::sys::getHostCPUName().str(), ") lacks ", absl::StrJoin(missing, ", "),
                   ", which the target uses (-mcpu=", target.cpu, " and -mattr): its code cannot run here (kiln "
                   "build still compiles for that CPU)"));
}

}  // namespace kiln::codegen
