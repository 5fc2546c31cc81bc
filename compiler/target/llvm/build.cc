// From an emitted llvm::Module to machine code: the O-level pipeline (new pass manager), object
// emission in memory, and linking that object into a kernel library with an external ELF linker.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Inliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/IndVarSimplify.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"

extern char** environ;

namespace kiln::codegen {
namespace {

// The file this process loaded `soname` from, so the library records a DT_NEEDED on the same file
// (and links without knowing the distribution's library directories). "" if it is not loaded.
// Kernels call libm, and libgcc_s provides the float16 conversions on CPUs without F16C.
std::string LoadedLibraryPath(const char* soname) {
  void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return "";
  struct link_map* map = nullptr;
  std::string path;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) path = map->l_name;
  dlclose(h);
  return path;
}

// Runs argv[0] (searched on PATH) with stdout+stderr captured in `log`. Returns the exit status,
// or -1 if it could not start. posix_spawn, not fork, so it is safe in a threaded daemon.
int Run(const std::vector<std::string>& argv, const std::string& log_path, std::string* log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (rc == 0 && waitpid(pid, &status, 0) < 0) rc = -1;
  std::ifstream f(log_path);
  std::stringstream text;
  text << f.rdbuf();
  *log = text.str();
  std::remove(log_path.c_str());
  if (rc != 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// -opt-level=2: the IR cleanup that scheduled TIR still needs (promote the register tiles of
// alloc_local to SSA values, fold address arithmetic, canonicalize and hoist out of loops) and the
// loop vectorizer for loops TIR left scalar, without interleaving; internal helper PrimFuncs are
// inlined where profitable. No unrolling, SLP or other interprocedural passes: TIR already unrolled
// and vectorized what the schedule asked for. Compiles a 20-kernel module in about a third of the time
// of LLVM's O3 (tests/bench/llvm_compile_bench), with equal speed on the scheduled kernels of
// tests/bench/cpu_kernel_bench.
llvm::ModulePassManager ScheduledKernelPipeline() {
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  llvm::LoopPassManager lpm;
  lpm.addPass(llvm::LICMPass(llvm::LICMOptions()));
  lpm.addPass(llvm::LoopRotatePass());
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(lpm), /*UseMemorySSA=*/true));
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::IndVarSimplifyPass()));
  fpm.addPass(llvm::GVNPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::DSEPass());
  fpm.addPass(llvm::LoopVectorizePass(llvm::LoopVectorizeOptions().setInterleaveOnlyWhenForced(true)));
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::SimplifyCFGPass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::ModuleInlinerWrapperPass(llvm::getInlineParams(2, 0)));
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  return mpm;
}

}  // namespace

void OptimizeLLVM(llvm::Module* module, llvm::TargetMachine* tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 3;
  tuning.SLPVectorization = opt_level >= 3;
  // TIR schedules unroll explicitly (T.unroll, lowered by UnrollLoops) and loops arrive already
  // vectorized where the author asked; LLVM's own (partial and full) unrolling on top of that made
  // compiles of a 20-kernel module ~4x slower for no measured gain in tests/bench/cpu_kernel_bench.
  tuning.LoopUnrolling = false;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  switch (opt_level) {
    case 0: mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0); break;
    case 1: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1); break;
    case 2: mpm = ScheduledKernelPipeline(); break;
    default: mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3); break;
  }
  mpm.run(*module, mam);
}

absl::StatusOr<LLVMModule> CompileToLLVM(const ir::IRModule& lowered, const LLVMTarget& target) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(target);
  if (!tm.ok()) return tm.status();
  absl::StatusOr<LLVMModule> m = GenerateLLVM(lowered, tm->get());
  if (!m.ok()) return m.status();
  OptimizeLLVM(m->module.get(), tm->get(), target.opt_level);
  return m;
}

absl::StatusOr<std::string> EmitLLVMAssembly(const ir::IRModule& lowered, const std::string& target) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget(target);
  if (!t.ok()) return t.status();
  absl::StatusOr<LLVMModule> m = CompileToLLVM(lowered, *t);
  if (!m.ok()) return m.status();
  std::string text;
  llvm::raw_string_ostream os(text);
  m->module->print(os, nullptr);
  return os.str();
}

namespace {

absl::StatusOr<std::string> EmitObject(const ir::IRModule& lowered, const LLVMTarget& t) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm = CreateTargetMachine(t);
  if (!tm.ok()) return tm.status();
  absl::StatusOr<LLVMModule> m = GenerateLLVM(lowered, tm->get());
  if (!m.ok()) return m.status();
  OptimizeLLVM(m->module.get(), tm->get(), t.opt_level);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, os, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError(absl::StrCat(t.ToString(), " cannot emit object files"));
  }
  codegen.run(*m->module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

absl::StatusOr<std::string> EmitObjectFile(const ir::IRModule& lowered, const std::string& target) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget(target);
  if (!t.ok()) return t.status();
  return EmitObject(lowered, *t);
}

absl::Status BuildSharedLibrary(const ir::IRModule& lowered, const std::string& target, const std::string& out_path,
                                const LinkOptions& options) {
  absl::StatusOr<LLVMTarget> t = ParseLLVMTarget(target);
  if (!t.ok()) return t.status();
  absl::StatusOr<std::string> object = EmitObject(lowered, *t);
  if (!object.ok()) return object.status();
  return LinkSharedLibrary(*object, t->triple, out_path, options);
}

absl::Status LinkSharedLibrary(const std::string& object, const std::string& triple, const std::string& out_path,
                               const LinkOptions& options) {
  // A unique object file next to the output; concurrent builds never share one.
  std::string obj_path = out_path + ".XXXXXX.o";
  int fd = mkstemps(obj_path.data(), 2);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temporary object next to ", out_path));
  bool written = write(fd, object.data(), object.size()) == static_cast<ssize_t>(object.size());
  close(fd);
  if (!written) {
    std::remove(obj_path.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", obj_path));
  }
  std::vector<std::string> linkers;
  bool host_arch = llvm::Triple(triple).getArch() == llvm::Triple(llvm::sys::getProcessTriple()).getArch();
  if (!options.linker.empty()) {
    linkers = {options.linker};
  } else if (const char* env = std::getenv("KILN_LLD"); env != nullptr && *env != '\0') {
    linkers = {env};
  } else if (host_arch) {
    // The system linker first: linking one small object is ~1 ms of work, and GNU ld starts in
    // ~10 ms where ld.lld, which loads all of libLLVM, takes ~45 ms.
    linkers = {"ld", "ld.lld-16", "ld.lld"};
  } else {
    linkers = {"ld.lld-16", "ld.lld"};
  }
  std::vector<std::string> args = {"", "-shared", "--no-undefined-version", "-o", out_path, obj_path};
  args.push_back("--as-needed");
  // This host's libm and libgcc_s, which only an object for its own architecture can link against;
  // a library for another one leaves those symbols to be bound on its target at load time.
  for (const char* soname : {"libm.so.6", "libgcc_s.so.1"}) {
    std::string lib = host_arch ? LoadedLibraryPath(soname) : "";
    if (!lib.empty()) args.push_back(lib);
  }
  std::string log;
  int rc = -1;
  for (const std::string& linker : linkers) {
    args[0] = linker;
    rc = Run(args, obj_path + ".log", &log);
    if (rc != -1) break;
  }
  std::remove(obj_path.c_str());
  if (rc == -1) {
    return absl::FailedPreconditionError(
        absl::StrCat("no ELF linker found (tried ", absl::StrJoin(linkers, ", "), "); set KILN_LLD"));
  }
  if (rc != 0) return absl::InternalError(absl::StrCat("linking ", out_path, " failed (", args[0], "):\n", log));
  return absl::OkStatus();
}

}  // namespace kiln::codegen
