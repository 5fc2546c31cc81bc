// The LLVM CPU target: parsing "llvm -mtriple=... -mcpu=... -mattr=... -opt-level=N" and making
// the llvm::TargetMachine it names. The default is the machine kiln runs on (host triple, its CPU
// and features, as -mcpu=native), so a plain "llvm" compiles for the host.
#ifndef KILN_COMPILER_TARGET_LLVM_TARGET_H_
#define KILN_COMPILER_TARGET_LLVM_TARGET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/Support/CodeGen.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

struct LLVMTarget {
  std::string triple;    // e.g. "x86_64-pc-linux-gnu"
  std::string cpu;       // e.g. "skylake"; resolved (never "native")
  std::string features;  // e.g. "+avx2,+fma"; for -mcpu=native the host's features
  // 0: no IR optimization, fast instruction selection. 1: LLVM's O1. 2 (default): kiln's pipeline
  // for scheduled TIR (build.cc), about 3x faster to compile than 3 and as fast on scheduled
  // kernels. 3: LLVM's O3 with the loop and SLP vectorizers (Apache TVM's choice), for TIR that
  // leaves vectorization to LLVM. LLVM's loop unrolling is off at every level (TIR unrolls).
  int opt_level = 2;

  // Canonical spelling: every option explicit, so equal targets print equally (cache keys).
  std::string ToString() const;
};

// Parses a target string. Options: -mtriple=<triple>, -mcpu=<name>|native, -mattr=<+f,-g,...>,
// -opt-level=<0..3>. Errors (INVALID_ARGUMENT) name the offending token: an unknown option, a
// target kind other than "llvm", a triple LLVM has no backend for, a CPU that target lacks.
absl::StatusOr<LLVMTarget> ParseLLVMTarget(absl::string_view spec);

// OK when code compiled for `target` can run on this machine: FAILED_PRECONDITION naming the
// triple when its architecture differs, or naming every ISA feature the target enables (through
// its CPU or -mattr) that this host's CPU lacks, e.g. avx512fp16. What `kiln run` checks before
// it JIT-executes anything, so a missing feature is an error, never SIGILL.
absl::Status CheckRunsOnHost(const LLVMTarget& target);

// The machine-code optimization level for `target`'s -opt-level (None, Less, Default, Aggressive).
llvm::CodeGenOpt::Level CodeGenOptLevel(const LLVMTarget& target);

// A TargetMachine for `target` with PIC relocations (its objects go into shared libraries).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const LLVMTarget& target);

// Registers LLVM's targets once per process (thread-safe; every entry point here calls it).
void InitializeLLVM();

}  // namespace kiln::codegen

#endif  // KILN_COMPILER_TARGET_LLVM_TARGET_H_
