#include "compiler/driver/kernel_build.h"

#include "absl/strings/str_cat.h"
#include "compiler/driver/device_build.h"
#include "compiler/driver/kernel_symbols.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/driver/tir_pipeline.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "compiler/target/source/c/codegen_c.h"

namespace kiln::driver {

using namespace ir;  // NOLINT

absl::StatusOr<std::string> KernelTargetKind(const std::string& target) {
  std::string kind = target.substr(0, target.find(' '));
  // The C target compiles with the system C compiler for this host: an option such as -mcpu would
  // be silently ignored, so any is refused (an executable's NormalizeTarget says the same).
  if (kind == "c" && target != "c") {
    return absl::InvalidArgumentError(absl::StrCat("target \"", target,
                                                   "\": \"c\" takes no options (choose a CPU with \"llvm -mcpu=...\")"));
  }
  if (kind == "llvm" || kind == "c") return kind;
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported target \"", target, "\": kernel libraries are built for \"llvm\" or \"c\""));
}

absl::StatusOr<IRModule> LowerKernels(const IRModule& module, const std::string& target, const PassHooks& hooks,
                                      bool checked) {
  absl::StatusOr<std::string> kind = KernelTargetKind(target);
  if (!kind.ok()) return kind.status();
  // Only PrimFuncs become kernels; Relax functions are the VM's business.
  IRModule prims = IRModule::Make();
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<PrimFuncNode>() != nullptr) prims.Add(gv, f);
  }
  if (prims.Functions().empty()) return absl::InvalidArgumentError("the module has no PrimFunc to build");
  if (absl::Status st = CheckKernelSymbols(prims); !st.ok()) return st;
  PipelineOptions options;
  options.target_kind = *kind;
  options.hooks = hooks;
  options.checked = checked;
  return LowerTIR(prims, options);
}

std::vector<std::string> KernelNames(const IRModule& lowered) {
  std::vector<std::string> names;
  for (const auto& [gv, f] : lowered.Functions()) {
    const auto* pf = f.as<PrimFuncNode>();
    if (pf != nullptr && IsPackedEntry(pf)) names.push_back(LoweredSymbol(gv->name, pf));
  }
  return names;
}

absl::Status BuildKernelLibrary(const IRModule& module, const std::string& target, const std::string& out_path,
                                std::vector<std::string>* kernels, const PassHooks& hooks, bool checked) {
  absl::StatusOr<IRModule> lowered = LowerKernels(module, target, hooks, checked);
  if (!lowered.ok()) return lowered.status();
  absl::Status st;
  if (*KernelTargetKind(target) == "c") {
    absl::StatusOr<std::string> src = codegen::GenerateC(*lowered);
    if (!src.ok()) return src.status();
    st = codegen::CompileCToSharedLibrary(*src, out_path);
  } else {
    st = codegen::BuildSharedLibrary(*lowered, target, out_path);
  }
  if (st.ok() && kernels != nullptr) *kernels = KernelNames(*lowered);
  return st;
}

namespace {

IRModule PrimFuncsOf(const IRModule& module) {
  IRModule prims = IRModule::Make();
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<PrimFuncNode>() != nullptr) prims.Add(gv, f);
  }
  return prims;
}

// The device target's split module: host part lowered for the LLVM host, and the blob.
absl::StatusOr<std::pair<IRModule, runtime::DeviceBlob>> LowerDeviceKernels(const IRModule& module,
                                                                            const std::string& target,
                                                                            const PassHooks& hooks) {
  IRModule prims = PrimFuncsOf(module);
  if (prims.Functions().empty()) return absl::InvalidArgumentError("the module has no PrimFunc to build");
  if (absl::Status st = CheckKernelSymbols(prims); !st.ok()) return st;
  absl::StatusOr<DeviceLowered> split = LowerForDevice(prims, target);
  if (!split.ok()) return split.status();
  absl::StatusOr<DLDeviceType> device = DeviceTypeOfTarget(target);
  if (!device.ok()) return device.status();
  // Host functions proper (shape functions) take CPU tensors; the others the device's.
  IRModule on_host = IRModule::Make(), launching = IRModule::Make();
  for (const auto& [gv, f] : split->host.Functions()) {
    (IsHostFunc(f.as<PrimFuncNode>()) ? on_host : launching).Add(gv, f);
  }
  PipelineOptions options;
  options.target_kind = "llvm";
  options.hooks = hooks;
  IRModule host = IRModule::Make();
  if (!on_host.Functions().empty()) {
    absl::StatusOr<IRModule> lowered = LowerTIR(on_host, options);
    if (!lowered.ok()) return lowered.status();
    for (const auto& [gv, f] : lowered->Functions()) host.Add(gv, f);
  }
  options.device_type = *device;
  options.device_name = target.substr(0, target.find(' '));
  if (!launching.Functions().empty()) {
    absl::StatusOr<IRModule> lowered = LowerTIR(launching, options);
    if (!lowered.ok()) return lowered.status();
    for (const auto& [gv, f] : lowered->Functions()) host.Add(gv, f);
  }
  return std::make_pair(host, std::move(split->blob));
}

}  // namespace

absl::StatusOr<runtime::DeviceBlob> BuildDeviceKernelLibrary(const IRModule& module, const std::string& target,
                                                             const std::string& out_path,
                                                             std::vector<std::string>* kernels,
                                                             const PassHooks& hooks) {
  absl::StatusOr<std::pair<IRModule, runtime::DeviceBlob>> lowered = LowerDeviceKernels(module, target, hooks);
  if (!lowered.ok()) return lowered.status();
  absl::Status st = codegen::BuildSharedLibrary(lowered->first, "llvm", out_path);
  if (!st.ok()) return st;
  if (kernels != nullptr) *kernels = KernelNames(lowered->first);
  return std::move(lowered->second);
}

absl::StatusOr<std::string> EmitKernelSource(const IRModule& module, const std::string& target,
                                              const PassHooks& hooks, bool checked) {
  if (IsDeviceTarget(target)) {
    if (checked) return absl::InvalidArgumentError("checked mode is for the llvm and c targets");
    absl::StatusOr<std::pair<IRModule, runtime::DeviceBlob>> lowered = LowerDeviceKernels(module, target, hooks);
    if (!lowered.ok()) return lowered.status();
    return lowered->second.code;
  }
  absl::StatusOr<IRModule> lowered = LowerKernels(module, target, hooks, checked);
  if (!lowered.ok()) return lowered.status();
  if (*KernelTargetKind(target) == "c") return codegen::GenerateC(*lowered);
  return codegen::EmitLLVMAssembly(*lowered, target);
}

absl::StatusOr<std::string> EmitKernelObject(const IRModule& module, const std::string& target,
                                             const PassHooks& hooks, bool checked) {
  absl::StatusOr<std::string> kind = KernelTargetKind(target);
  if (!kind.ok()) return kind.status();
  if (*kind != "llvm") return absl::InvalidArgumentError("object files are written for llvm targets");
  absl::StatusOr<IRModule> lowered = LowerKernels(module, target, hooks, checked);
  if (!lowered.ok()) return lowered.status();
  return codegen::EmitObjectFile(*lowered, target);
}

}  // namespace kiln::driver
