// Building a Relax VM executable (runtime/vm/executable.h) from a module, for a CPU target: what
// `kiln build` writes as a .kx file and what kilnd serves.
//
//   module --RunRelaxPipeline--> VM-lowered Relax + PrimFuncs
//          PrimFuncs --LowerTIR + LLVM/C backend--> a host shared object (the library section)
//          Relax functions --VMCodeGen--> bytecode
//
// A module without Relax functions gives an executable whose function table lists its exported
// kernels (kPackedFunc entries), so a VM can call them by name; see BuildKernelExecutable.
#ifndef KILN_COMPILER_DRIVER_RELAX_BUILD_H_
#define KILN_COMPILER_DRIVER_RELAX_BUILD_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/relax_pipeline.h"
#include "compiler/ir/ir.h"
#include "runtime/vm/executable.h"

namespace kiln::driver {

struct BuildOptions {
  RelaxPipelineOptions pipeline;
  // The TIR lowering's hooks, for the kernels of the library section.
  PassHooks kernel_hooks;
  // The Relax functions the executable exports, by module name or global_symbol; empty: every
  // public one. The others become private, so DeadCodeElimination drops those the entries do not
  // call (with the kernels only they used).
  std::vector<std::string> entries;
  // Where the kernel library is built before it is read into the executable ("" = $TMPDIR, else
  // /tmp). The file is deleted afterwards.
  std::string work_dir;
  // LoadOrBuildExecutable on TVMScript: the template values bound before the file is read
  // (script::ParseOptions::defines; `kiln run --define`).
  std::map<std::string, std::string> defines;
  // Checked mode for the kernels (PipelineOptions::checked). Part of what a cache must key on.
  bool checked = false;
};

// True if the module has at least one Relax function.
bool HasRelaxFunction(const ir::IRModule& module);

// The target string as the library section records it: "c", or the canonical LLVM spelling
// ("llvm -mtriple=... -mcpu=... -mattr=... -opt-level=N"). INVALID_ARGUMENT for other targets.
absl::StatusOr<std::string> NormalizeTarget(const std::string& target);

// Relax pipeline + kernel library + VMCodeGen, as the header comment says. The module must have a
// Relax function (INVALID_ARGUMENT otherwise: use BuildKernelExecutable). A module whose Relax
// functions call no kernel gets no library section.
absl::StatusOr<vm::Executable> BuildExecutable(const ir::IRModule& module, const std::string& target,
                                               const BuildOptions& options = {});

// The module's PrimFuncs compiled into the library section, with one kPackedFunc entry per
// exported kernel. INVALID_ARGUMENT if the module has no PrimFunc.
absl::StatusOr<vm::Executable> BuildKernelExecutable(const ir::IRModule& module, const std::string& target,
                                                     const BuildOptions& options = {});

// The one build path of `kiln build` and kilnd's workers: BuildExecutable for a module with a Relax
// function, BuildKernelExecutable otherwise.
absl::StatusOr<vm::Executable> BuildModuleExecutable(const ir::IRModule& module, const std::string& target,
                                                     const BuildOptions& options = {});

// What `kiln run`/`kiln bench`/`kiln inspect` take: a .kx file (recognized by the executable's
// magic, whatever its name) is loaded and validated; anything else is read as a module (TVMScript,
// or serialized IR in binary or JSON form) and built for `target`, with BuildExecutable or, for a
// module without Relax functions, BuildKernelExecutable. Errors name the file.
absl::StatusOr<vm::Executable> LoadOrBuildExecutable(const std::string& path, const std::string& target,
                                                     const BuildOptions& options = {});

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_RELAX_BUILD_H_
