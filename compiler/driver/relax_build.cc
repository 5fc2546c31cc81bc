#include "compiler/driver/relax_build.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "compiler/driver/device_build.h"
#include "compiler/driver/kernel_build.h"
#include "compiler/driver/kernel_symbols.h"
#include "compiler/ir/serialize.h"
#include "compiler/relax/backend/vm/codegen_vm.h"
#include "compiler/relax/backend/vm/exec_builder.h"
#include "compiler/script/script.h"
#include "compiler/target/llvm/target.h"
#include "compiler/tir/functor.h"
#include "runtime/read_file.h"

namespace kiln::driver {
namespace {

using namespace ::kiln::ir;  // NOLINT

// The PrimFuncs of `module` built into a shared object in a temporary file, returned as bytes
// (a "host-so" library), followed for a GPU target by the "device" library of its kernels.
// `kernels` receives the exported kernel names.
absl::StatusOr<std::vector<vm::LibraryBlob>> BuildHostLibrary(const IRModule& module, const std::string& target,
                                                 const BuildOptions& options, std::vector<std::string>* kernels) {
  absl::StatusOr<std::string> normalized = NormalizeTarget(target);
  if (!normalized.ok()) return normalized.status();
  std::string dir = options.work_dir;
  if (dir.empty()) {
    const char* tmp = getenv("TMPDIR");
    dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string path = dir + "/kiln-lib-XXXXXX.so";
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  int fd = mkstemps(buf.data(), 3);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temporary file in ", dir, ": ", strerror(errno)));
  close(fd);
  path = buf.data();
  absl::Status st;
  std::vector<vm::LibraryBlob> libs;
  std::string host_target = *normalized;
  if (IsDeviceTarget(target)) {
    if (options.checked) {
      st = absl::InvalidArgumentError("checked mode is for the llvm and c targets");
    } else {
      absl::StatusOr<runtime::DeviceBlob> blob =
          BuildDeviceKernelLibrary(module, target, path, kernels, options.kernel_hooks);
      st = blob.status();
      if (st.ok()) {
        libs.push_back(vm::LibraryBlob{vm::kDeviceLibraryKind, *normalized, blob->format, blob->Serialize()});
        absl::StatusOr<std::string> llvm = NormalizeTarget("llvm");
        if (!llvm.ok()) st = llvm.status();
        if (llvm.ok()) host_target = *llvm;
      }
    }
  } else {
    st = BuildKernelLibrary(module, target, path, kernels, options.kernel_hooks, options.checked);
  }
  absl::StatusOr<std::string> bytes = st.ok() ? runtime::ReadRegularFile(path) : absl::StatusOr<std::string>(st);
  unlink(path.c_str());
  if (!bytes.ok()) return bytes.status();
  // The host code first: the VM resolves kernels in library order.
  libs.insert(libs.begin(), vm::LibraryBlob{"host-so", host_target, "host", *std::move(bytes)});
  return libs;
}

// `module` with every function but the Relax functions in `entries` made private (no
// global_symbol). NOT_FOUND for an entry that names no Relax function.
absl::StatusOr<IRModule> KeepEntries(const IRModule& module, const std::vector<std::string>& entries) {
  std::vector<bool> found(entries.size(), false);
  IRModule out = module;
  for (const auto& [gv, func] : module.Functions()) {
    bool entry = false;
    if (func.as<ir::relax::FunctionNode>() != nullptr) {
      for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i] == gv->name || entries[i] == func->GetGlobalSymbol()) entry = found[i] = true;
      }
    }
    if (entry || func->GetGlobalSymbol().empty() || func.as<ir::relax::ExternFuncNode>() != nullptr) continue;
    if (const auto* pf = func.as<PrimFuncNode>()) {
      PrimFunc hidden = GetRef<PrimFunc>(pf);
      hidden.CopyOnWrite()->attrs.erase(String("global_symbol"));
      out.Add(gv, hidden);
    } else if (const auto* rf = func.as<ir::relax::FunctionNode>()) {
      ir::relax::Function hidden = GetRef<ir::relax::Function>(rf);
      hidden.CopyOnWrite()->attrs.erase(String("global_symbol"));
      out.Add(gv, hidden);
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!found[i]) return absl::NotFoundError(absl::StrCat("entry \"", entries[i], "\" is not a Relax function of the module"));
  }
  return out;
}

// kiln compiles no Python: a module with @I.pyfunc methods (TVM's BasePyModule, which runs them
// in the host's Python interpreter) is refused, naming the first method and its line.
absl::Status RejectPyFuncs(const IRModule& module) {
  for (const auto& [gv, func] : module.Functions()) {
    const auto* f = func.as<ir::relax::ExternFuncNode>();
    const auto* is_pyfunc = f == nullptr ? nullptr : f->attrs.Get(String("is_pyfunc")).as<IntImmNode>();
    if (is_pyfunc == nullptr || is_pyfunc->value == 0) continue;
    ir::Diagnostic d;
    d.span = f->span;
    d.message = absl::StrCat("@I.pyfunc method '", gv->name, "' is Python, which kiln does not compile or run yet");
    return absl::UnimplementedError(ir::Render(d, ""));
  }
  return absl::OkStatus();
}

bool HasPrimFunc(const IRModule& module) {
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<PrimFuncNode>() != nullptr) return true;
  }
  return false;
}

}  // namespace

bool HasRelaxFunction(const IRModule& module) {
  for (const auto& [gv, f] : module.Functions()) {
    if (f.as<ir::relax::FunctionNode>() != nullptr) return true;
  }
  return false;
}

absl::StatusOr<std::string> NormalizeTarget(const std::string& target) {
  if (IsDeviceTarget(target)) return std::string(absl::StripAsciiWhitespace(target));
  absl::StatusOr<std::string> kind = KernelTargetKind(target);
  if (!kind.ok()) return kind.status();
  if (*kind == "c") {
    if (target != "c") return absl::InvalidArgumentError(absl::StrCat("target \"", target, "\": \"c\" takes no options"));
    return std::string("c");
  }
  absl::StatusOr<codegen::LLVMTarget> llvm = codegen::ParseLLVMTarget(target);
  if (!llvm.ok()) return llvm.status();
  return llvm->ToString();
}

absl::StatusOr<vm::Executable> BuildExecutable(const IRModule& module, const std::string& target,
                                               const BuildOptions& options) {
  if (!HasRelaxFunction(module)) {
    return absl::InvalidArgumentError("the module has no Relax function to build an executable from");
  }
  if (absl::Status st = RejectPyFuncs(module); !st.ok()) return st;
  // Reject a bad target before the pipeline runs.
  if (absl::StatusOr<std::string> t = NormalizeTarget(target); !t.ok()) return t.status();
  IRModule input = module;
  if (!options.entries.empty()) {
    absl::StatusOr<IRModule> kept = KeepEntries(module, options.entries);
    if (!kept.ok()) return kept.status();
    input = *kept;
  }
  RelaxPipelineOptions pipeline = options.pipeline;
  pipeline.gpu = IsDeviceTarget(target);
  // CUDA's warps (NVRTC's __shfl_down_sync, LLVM's shfl.sync.down); OpenCL sub-groups and Vulkan
  // subgroup operations are optional features, so those targets use shared memory only.
  const std::string kind = target.substr(0, target.find(' '));
  pipeline.gpu_warp_shuffle = pipeline.gpu && (kind == "cuda" || kind == "nvptx");
  // mma.sync.m16n8k16 with float16 operands needs sm_80.
  pipeline.gpu_tensor_core = pipeline.gpu && NvidiaComputeCapability(target) >= 80;
  // wgmma is in sm_90a's arch-specific feature set only (NVRTC compiles that for compute_90a). The
  // nvptx target stays on mma.sync: LLVM 16's NVPTX backend has no sm_90a.
  pipeline.gpu_wgmma = NvidiaArchSpecific(target) && NvidiaComputeCapability(target) == 90;
  absl::StatusOr<IRModule> lowered = RunRelaxPipeline(input, pipeline);
  if (!lowered.ok()) return lowered.status();
  // Before the function table is made: it names every kernel by its symbol.
  if (absl::Status st = CheckKernelSymbols(*lowered); !st.ok()) return st;
  absl::StatusOr<vm::Executable> exec = ::kiln::relax::backend::VMCodeGen(*lowered);
  if (!exec.ok()) return exec.status();
  if (HasPrimFunc(*lowered)) {
    absl::StatusOr<std::vector<vm::LibraryBlob>> libs = BuildHostLibrary(*lowered, target, options, nullptr);
    if (!libs.ok()) return libs.status();
    for (vm::LibraryBlob& lib : *libs) exec->libraries.push_back(std::move(lib));
  }
  if (absl::Status st = exec->Validate(); !st.ok()) return st;
  return exec;
}

absl::StatusOr<vm::Executable> BuildKernelExecutable(const IRModule& module, const std::string& target,
                                                     const BuildOptions& options) {
  if (!HasPrimFunc(module)) return absl::InvalidArgumentError("the module has no PrimFunc to build");
  if (absl::Status st = RejectPyFuncs(module); !st.ok()) return st;
  std::vector<std::string> kernels;
  absl::StatusOr<std::vector<vm::LibraryBlob>> libs = BuildHostLibrary(module, target, options, &kernels);
  if (!libs.ok()) return libs.status();
  ::kiln::relax::backend::ExecBuilder builder;
  for (const std::string& k : kernels) builder.DeclareFunction(k, vm::FuncInfo::Kind::kPackedFunc);
  absl::StatusOr<vm::Executable> exec = builder.Get();
  if (!exec.ok()) return exec.status();
  for (vm::LibraryBlob& lib : *libs) exec->libraries.push_back(std::move(lib));
  if (absl::Status st = exec->Validate(); !st.ok()) return st;
  return exec;
}

absl::StatusOr<vm::Executable> BuildModuleExecutable(const IRModule& module, const std::string& target,
                                                     const BuildOptions& options) {
  return HasRelaxFunction(module) ? BuildExecutable(module, target, options)
                                  : BuildKernelExecutable(module, target, options);
}

absl::StatusOr<vm::Executable> LoadOrBuildExecutable(const std::string& path, const std::string& target,
                                                     const BuildOptions& options) {
  absl::StatusOr<std::string> data = runtime::ReadRegularFile(path);
  if (!data.ok()) return data.status();
  uint64_t magic = 0;
  if (data->size() >= sizeof(magic)) std::memcpy(&magic, data->data(), sizeof(magic));  // little-endian hosts
  if (magic == vm::kExecutableMagic || magic == vm::kExecutableMagicV1) {
    absl::StatusOr<vm::Executable> exec = vm::Executable::Deserialize(*data);
    if (!exec.ok()) return absl::Status(exec.status().code(), absl::StrCat(path, ": ", exec.status().message()));
    return exec;
  }
  IRModule module;
  if (LooksLikeSerializedIR(*data) || absl::EndsWith(path, ".json")) {
    absl::StatusOr<ObjectRef> node = LooksLikeSerializedIR(*data) ? Deserialize(*data) : DeserializeFromJson(*data);
    if (!node.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", node.status().message()));
    module = script::AsModule(*node);
  } else {
    script::ParseOptions parse;
    parse.defines = options.defines;
    absl::StatusOr<ObjectRef> parsed = script::ParseScript(*data, path, nullptr, parse);
    if (!parsed.ok()) return parsed.status();  // diagnostics already name the file
    module = script::AsModule(*parsed);
  }
  absl::StatusOr<vm::Executable> exec = BuildModuleExecutable(module, target, options);
  if (!exec.ok()) return absl::Status(exec.status().code(), absl::StrCat(path, ": ", exec.status().message()));
  return exec;
}

}  // namespace kiln::driver
