#include "compiler/target/llvm/jit.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "compiler/target/llvm/target.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::codegen {
namespace {

absl::Status FromLLVM(llvm::Error err, const std::string& what) {
  std::string msg = llvm::toString(std::move(err));
  return absl::InternalError(absl::StrCat(what, ": ", msg));
}

}  // namespace

JitModule::~JitModule() = default;

absl::StatusOr<std::unique_ptr<JitModule>> JitModule::Create(const ir::IRModule& lowered, const std::string& target) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget(target);
  if (!t.ok()) return t.status();
  if (llvm::Triple(t->triple).getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot JIT for ", t->triple, ": it is not this machine"));
  }
  absl::StatusOr<LLVMModule> m = CompileToLLVM(lowered, *t);
  if (!m.ok()) return m.status();

  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(t->triple)};
  jtmb.setCPU(t->cpu);
  std::vector<std::string> features = absl::StrSplit(t->features, ',', absl::SkipEmpty());
  jtmb.addFeatures(features);
  jtmb.setCodeGenOptLevel(CodeGenOptLevel(*t));
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) return FromLLVM(jit.takeError(), "cannot create the JIT");
  // Kernels call libc (aligned_alloc, free) and libm: resolve them in this process.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return FromLLVM(process.takeError(), "cannot expose process symbols to the JIT");
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  m->module->setDataLayout((*jit)->getDataLayout());
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(m->module), std::move(m->context)))) {
    return FromLLVM(std::move(err), "cannot add the module to the JIT");
  }
  std::unique_ptr<JitModule> out(new JitModule());
  for (const std::string& name : m->kernel_names) {
    auto sym = (*jit)->lookup(name);
    if (!sym) return FromLLVM(sym.takeError(), absl::StrCat("cannot JIT kernel ", name));
    out->kernels_[name] = sym->toPtr<KilnKernelFn>();
  }
  out->names_ = std::move(m->kernel_names);
  out->jit_ = std::move(*jit);
  return out;
}

absl::StatusOr<KilnKernelFn> JitModule::GetKernel(const std::string& name) const {
  auto it = kernels_.find(name);
  if (it == kernels_.end()) return absl::NotFoundError(absl::StrCat("JIT module has no kernel \"", name, "\""));
  return it->second;
}

}  // namespace kiln::codegen
