// Commands on Relax VM executables: `kiln run` on a module with a Relax function or on a .kx file,
// `kiln bench` (TVM's time_evaluator through the stateful API) and `kiln inspect` (TVM's as_text,
// as_python and stats views).
// The logic lives in compiler/driver/relax_build.h (build or load) and runtime/vm (the VM); this
// file reads arguments and .npy files, and writes results and reports.
#ifndef KILN_CLIENT_CLI_EXEC_COMMANDS_H_
#define KILN_CLIENT_CLI_EXEC_COMMANDS_H_

#include <string>

#include "client/cli/args.h"
#include "compiler/script/script.h"

namespace kiln::cli {

// True when `kiln run PATH` means a VM run: PATH is an executable (by its magic), or a module with
// a Relax function. PrimFunc-only modules keep the kernel runner.
bool IsVMRun(const std::string& path, const script::ParseOptions& options);

// The parse options of `--name` and `--define` (run, build and bench read TVMScript with these).
script::ParseOptions ScriptOptions(const Args& args);

// `kiln run` on an executable: inputs from .npy files (a tuple parameter takes its fields in
// order), results flattened depth-first into D/out0.npy, D/out1.npy, ...
int RunVM(const Args& args);
int RunBench(const Args& args);
// Prints a .kx file (or a module built on the fly) as --text (default), --python or --stats.
int RunInspect(const Args& args);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_EXEC_COMMANDS_H_
