#include "compiler/driver/device_build.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/tir/analysis/allocation_size.h"
#include "compiler/tir/analysis/scalable_vectors.h"
#include "compiler/tir/functor.h"
#include "compiler/target/llvm/codegen_gpu.h"
#include "compiler/target/source/cuda/codegen_cuda.h"
#include "compiler/target/source/cuda/nvrtc_compile.h"
#include "compiler/target/source/opencl/codegen_opencl.h"
#include "compiler/target/spirv/codegen_spirv.h"
#include "compiler/tir/transform/passes.h"
#include "runtime/device/vulkan/vulkan_abi.h"

namespace kiln::driver {

using namespace ir;  // NOLINT
namespace t = tir::transform;

namespace {

// One device backend: the kernels of a module -> device code in `format`.
struct DeviceBackend {
  const char* kind;
  const char* format;
  absl::StatusOr<std::string> (*build)(const std::vector<PrimFunc>& kernels, const std::string& target);
};

absl::StatusOr<std::string> BuildOpenCL(const std::vector<PrimFunc>& kernels, const std::string&) {
  absl::StatusOr<codegen::OpenCLProgramSource> src = codegen::GenerateOpenCL(kernels);
  if (!src.ok()) return src.status();
  return std::move(src->source);
}

// "cuda -arch=sm_90 [-fast-math]": CUDA C++ through NVRTC.
absl::StatusOr<std::string> BuildCUDA(const std::vector<PrimFunc>& kernels, const std::string& target) {
  absl::StatusOr<codegen::CUDATarget> t = codegen::ParseCUDATarget(target);
  if (!t.ok()) return t.status();
  absl::StatusOr<codegen::CUDAProgramSource> src = codegen::GenerateCUDA(kernels);
  if (!src.ok()) return src.status();
  return codegen::CompileWithNVRTC(src->source, *t);
}

// "nvptx -mcpu=sm_90" and "rocm -mcpu=gfx90a": LLVM's NVPTX and AMDGPU backends.
absl::StatusOr<std::string> BuildLLVMGPU(const std::vector<PrimFunc>& kernels, const std::string& target) {
  absl::StatusOr<codegen::GPUTarget> t = codegen::ParseGPUTarget(target);
  if (!t.ok()) return t.status();
  return codegen::CompileGPUKernels(kernels, *t);
}

// One SPIR-V module per kernel, in kernel order (runtime/device/vulkan/vulkan_abi.h).
absl::StatusOr<std::string> BuildSPIRV(const std::vector<PrimFunc>& kernels, const std::string&) {
  absl::StatusOr<std::vector<codegen::SPIRVKernel>> spirv = codegen::GenerateSPIRV(kernels);
  if (!spirv.ok()) return spirv.status();
  std::vector<std::vector<uint32_t>> modules;
  for (codegen::SPIRVKernel& k : *spirv) modules.push_back(std::move(k.words));
  return runtime::vulkan::PackModules(modules);
}

constexpr DeviceBackend kBackends[] = {
    {"opencl", "opencl", &BuildOpenCL},
    {"cuda", "ptx", &BuildCUDA},
    {"nvptx", "ptx", &BuildLLVMGPU},
    {"rocm", "hsaco", &BuildLLVMGPU},
    {"vulkan", "spirv", &BuildSPIRV},
};

const DeviceBackend* FindBackend(const std::string& target) {
  std::string kind = target.substr(0, target.find(' '));
  for (const DeviceBackend& b : kBackends) {
    if (kind == b.kind) return &b;
  }
  return nullptr;
}

// Finds the first buffer element access of a host function, if any.
class BufferAccessFinder : public StmtExprVisitor {
 public:
  std::string found;

 private:
  void VisitExpr_(const BufferLoadNode* op) override {
    if (found.empty()) found = op->buffer->name;
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (found.empty()) found = op->buffer->name;
  }
};

// Host-level allocations (a fused kernel's intermediates, shared by its kernels) are device
// memory: annotated for the host codegen, which allocates them through the env's device_alloc.
class MarkDeviceAllocations : public StmtExprMutator {
 private:
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    Stmt body = VisitStmt(op->body);
    Map<String, ObjectRef> annotations = op->annotations;
    annotations.Set(String(kDeviceAllocAttr), IntImm(DataType::Bool(), 1));
    return AllocBuffer(op->buffer, body, annotations, op->span);
  }
};

}  // namespace

bool IsHostFunc(const PrimFuncNode* f) {
  const auto* v = f->attrs.count(String("tir.is_host_func")) ? f->attrs.Get(String("tir.is_host_func")).as<IntImmNode>()
                                                            : nullptr;
  return v != nullptr && v->value != 0;
}

int NvidiaComputeCapability(const std::string& target) {
  std::string arch;
  const std::string kind = target.substr(0, target.find(' '));
  if (kind == "cuda") {
    absl::StatusOr<codegen::CUDATarget> t = codegen::ParseCUDATarget(target);
    if (t.ok()) arch = t->arch;
  } else if (kind == "nvptx") {
    absl::StatusOr<codegen::GPUTarget> t = codegen::ParseGPUTarget(target);
    if (t.ok()) arch = t->cpu;
  }
  absl::string_view digits = arch;
  int cc = 0;
  if (!absl::ConsumePrefix(&digits, "sm_")) return 0;
  absl::ConsumeSuffix(&digits, "a");
  return absl::SimpleAtoi(digits, &cc) ? cc : 0;
}

bool NvidiaArchSpecific(const std::string& target) {
  if (target.substr(0, target.find(' ')) != "cuda") return false;
  absl::StatusOr<codegen::CUDATarget> t = codegen::ParseCUDATarget(target);
  return t.ok() && absl::EndsWith(t->arch, "a");
}

bool IsDeviceTarget(const std::string& target) { return FindBackend(target) != nullptr; }

absl::StatusOr<DLDeviceType> DeviceTypeOfTarget(const std::string& target) {
  const DeviceBackend* b = FindBackend(target);
  if (b == nullptr) return absl::InvalidArgumentError(absl::StrCat("\"", target, "\" is not a device target"));
  return runtime::DeviceTypeOfFormat(b->format);
}

runtime::DeviceKernelInfo KernelInfoOf(const PrimFunc& kernel) {
  runtime::DeviceKernelInfo info;
  info.name = kernel->GetGlobalSymbol();
  for (const Var& v : kernel->params) {
    DataType t = v.dtype();
    info.params.push_back(t.is_handle() ? runtime::kDeviceHandleType
                                        : DLDataType{static_cast<uint8_t>(t.code()), static_cast<uint8_t>(t.bits()),
                                                     static_cast<uint16_t>(t.lanes())});
  }
  if (const auto* arr = kernel->attrs.Get(String("tir.kernel_launch_params")).as<ArrayNode>()) {
    for (const ObjectRef& tag : arr->data) {
      if (const auto* s = tag.as<StringNode>()) info.launch_params.push_back(s->value);
    }
  }
  return info;
}

absl::StatusOr<DeviceLowered> LowerForDevice(const IRModule& module, const std::string& target) {
  const DeviceBackend* backend = FindBackend(target);
  if (backend == nullptr) return absl::InvalidArgumentError(absl::StrCat("\"", target, "\" is not a device target"));
  absl::Status scalable = tir::RejectScalableVectors(module, absl::StrCat("the ", target, " backend"));
  if (!scalable.ok()) return scalable;
  absl::Status sizes = tir::CheckAllocationSizes(module);  // an allocation whose index would wrap
  if (!sizes.ok()) return sizes;
  DeviceLowered out;
  out.host = IRModule::Make();
  out.host.CopyOnWrite()->attrs = module->attrs;
  std::vector<PrimFunc> kernels;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<PrimFuncNode>();
    if (pf == nullptr) continue;
    if (IsHostFunc(pf)) {  // shape functions work on the VM's shape heap, in host memory
      out.host.Add(gv, func);
      continue;
    }
    std::string name = LoweredSymbol(gv->name, pf);
    absl::StatusOr<PrimFunc> f = t::LowerSBlocks(GetRef<PrimFunc>(pf), name);
    if (!f.ok()) return f.status();
    absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), name, target);
    if (!split.ok()) return split.status();
    BufferAccessFinder finder;  // (allocations are fine: they become device memory)
    finder.VisitStmt(split->host->body);
    if (!finder.found.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": host code would access buffer ", finder.found, " (a loop nest outside every GPU thread binding); on ",
          backend->kind, " every buffer access must be inside a T.thread_binding or T.launch_thread region"));
    }
    PrimFunc host = split->host;
    host.CopyOnWrite()->body = MarkDeviceAllocations().VisitStmt(host->body);
    out.host.Add(gv, host);
    for (const PrimFunc& k : split->kernels) kernels.push_back(t::Simplify(k));
  }
  out.blob.format = backend->format;
  for (const PrimFunc& k : kernels) out.blob.kernels.push_back(KernelInfoOf(k));
  if (!kernels.empty()) {
    absl::StatusOr<std::string> code = backend->build(kernels, target);
    if (!code.ok()) return code.status();
    out.blob.code = *std::move(code);
  }
  return out;
}

}  // namespace kiln::driver
