// The differential test driver: generates programs (program_gen.h), builds them with the LLVM
// backend (in-process JIT) and the C backend (a kernel library built with the system compiler),
// optionally runs them on the reference interpreter too, feeds every leg the same seeded inputs
// and compares all buffers afterwards: integers and bools bit for bit, floats within a few ulps
// (a relative tolerance where libm math is involved).
//
// Programs are compiled in batches (one module of many PrimFuncs per backend), because a C compile
// costs the same for one function as for twenty. A batch that fails to build is rebuilt one
// program at a time to name the culprit.
#ifndef KILN_TESTS_DIFF_DIFF_RUNNER_H_
#define KILN_TESTS_DIFF_DIFF_RUNNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/ir.h"
#include "runtime/kernel_abi.h"

namespace kiln::difftest {

// Runs PrimFunc `entry` of a high-level module on kernel-ABI arguments (the shape of
// kiln::tir::Interpret, so the interpreter plugs in directly).
using Oracle = std::function<absl::Status(const ir::IRModule& module, const std::string& entry,
                                          const KilnAny* args, int32_t num_args, KilnAny* result)>;

struct DiffOptions {
  uint64_t first_seed = 1;
  int num_programs = 150;
  int batch_size = 25;
  Oracle interpreter;  // empty: LLVM vs C only
  // Where the C backend's kernel libraries go ("" = $TEST_TMPDIR, else /tmp).
  std::string temp_dir;
  // Build both backends in checked mode (PipelineOptions::checked): the generated programs are
  // valid, so any check that fires is a false alarm and fails the program.
  bool checked = false;
};

struct DiffResult {
  int programs = 0;     // generated
  int compared = 0;     // ran on every leg and compared
  std::vector<std::string> failures;  // one report per failing program: seed, legs, values, script
};

DiffResult RunDifferential(const DiffOptions& options);

// The TVMScript of the program for `seed` (for reproducing a report by hand).
std::string ProgramScript(uint64_t seed);

}  // namespace kiln::difftest

#endif  // KILN_TESTS_DIFF_DIFF_RUNNER_H_
