// Per-pass hooks for the driver's pipelines (TIR lowering in tir_pipeline.cc; the Relax pipeline
// uses the same ones): what LLVM's -print-after / -verify-each and Halide's lowering log give
// their users. A pipeline runs each of its steps through RunPass under a name; the caller's hooks
// see the module after every step, and with verify_each the pipeline's own verifier runs between
// steps so that a pass producing ill-formed IR is caught at that pass, not at codegen.
//
// `kiln build --print-after PASS|all --verify-each` is built on these (client/cli).
#ifndef KILN_COMPILER_DRIVER_PASS_INSTRUMENT_H_
#define KILN_COMPILER_DRIVER_PASS_INSTRUMENT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/ir.h"

namespace kiln::driver {

// One pipeline step over the whole module.
using ModulePass = std::function<absl::StatusOr<ir::IRModule>(const ir::IRModule&)>;
// A pipeline's well-formedness check (the TIR verifier, Relax well_formed).
using ModuleVerifier = std::function<absl::Status(const ir::IRModule&)>;

struct PassHooks {
  // Called after each step with the step's name and the module it produced. Empty: nothing.
  std::function<void(absl::string_view pass, const ir::IRModule& module)> after_pass;
  // Run the pipeline's verifier after every step; a failure is INTERNAL naming the step (the pass
  // broke the IR: the input was verified before the first step).
  bool verify_each = false;
};

// Runs `pass` on `module` as the step `name`, then `verify` (if hooks.verify_each) and
// hooks.after_pass. A pass error is returned unchanged.
absl::StatusOr<ir::IRModule> RunPass(absl::string_view name, const ModulePass& pass, const ir::IRModule& module,
                                     const PassHooks& hooks, const ModuleVerifier& verify);

// `selection` is "all" or pass names (each of them one of `known`, the pipeline's step names);
// INVALID_ARGUMENT naming the unknown one and listing `known` otherwise.
absl::Status CheckPassSelection(const std::vector<std::string>& selection, const std::vector<std::string>& known);

// Whether `pass` is selected: `selection` holds "all" or the name.
bool PassSelected(const std::vector<std::string>& selection, absl::string_view pass);

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_PASS_INSTRUMENT_H_
