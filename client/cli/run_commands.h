// Compile-and-execute commands: `kiln build` (a VM executable for a module with a Relax function
// or with --exe; else a kernel library, C source or LLVM assembly) and `kiln run` (one PrimFunc on
// .npy inputs, on the interpreter, the LLVM JIT or the C backend). The logic lives in
// compiler/driver (relax_build.h, kernel_build.h, run.h); this file only reads arguments and files
// and reports.
#ifndef KILN_CLIENT_CLI_RUN_COMMANDS_H_
#define KILN_CLIENT_CLI_RUN_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/cli/args.h"
#include "compiler/driver/pass_instrument.h"
#include "runtime/tensor.h"

namespace kiln::cli {

int RunBuild(const Args& args);
int RunRun(const Args& args);

// The pass hooks that `--print-after PASS[,PASS...]|all` (repeatable) and `--verify-each` ask for:
// after each selected pass the module is printed as TVMScript to stderr under a
// "# *** IR Dump After PASS ***" line. `passes` are the pipeline's step names; another name is
// INVALID_ARGUMENT listing them.
absl::StatusOr<driver::PassHooks> PassHooksFromArgs(const Args& args, const std::vector<std::string>& passes);

// A `--view K:SHAPE:STRIDES[:OFFSET]` option: input K is a view (shape, element strides, element
// offset) of the data its .npy file holds. Exposed for tests.
struct ViewSpec {
  int index = 0;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
};
absl::StatusOr<ViewSpec> ParseViewSpec(const std::string& text);

}  // namespace kiln::cli

#endif  // KILN_CLIENT_CLI_RUN_COMMANDS_H_
