// What the kernel benchmarks share: a module JIT-compiled for the host through the TIR pipeline
// (KILN_BENCH_DUMP_IR=<dir> writes its optimized LLVM IR there; KILN_BENCH_CHECKED=1 builds it in
// checked mode), 64-byte aligned float storage and a float32 DLTensor argument for the kernel ABI.
// A benchmark that cannot build its kernel stops with the error, since no figure can be reported
// without it.
#ifndef KILN_TESTS_BENCH_JIT_KERNEL_H_
#define KILN_TESTS_BENCH_JIT_KERNEL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/driver/tir_pipeline.h"
#include "compiler/target/llvm/codegen_llvm.h"
#include "compiler/target/llvm/jit.h"
#include "runtime/kernel_abi.h"

namespace kiln::bench {

[[noreturn]] inline void Die(const std::string& what, const absl::Status& st) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), std::string(st.message()).c_str());
  std::exit(1);
}

// LowerTIR + the LLVM JIT for the host: the code a kernel library would hold. `name` is used for
// messages and the IR dump's file name.
inline std::unique_ptr<codegen::JitModule> JitCompile(const ir::IRModule& module, const std::string& name) {
  driver::PipelineOptions po;
  po.target_kind = "llvm";
  // KILN_BENCH_CHECKED=1 measures checked mode's cost (kiln build/run --checked).
  const char* checked = std::getenv("KILN_BENCH_CHECKED");
  po.checked = checked != nullptr && std::string(checked) == "1";
  auto lowered = driver::LowerTIR(module, po);
  if (!lowered.ok()) Die(name, lowered.status());
  if (const char* dir = std::getenv("KILN_BENCH_DUMP_IR"); dir != nullptr) {
    auto ir = codegen::EmitLLVMAssembly(*lowered, "llvm");
    std::ofstream(std::string(dir) + "/" + name + ".ll") << (ir.ok() ? *ir : std::string(ir.status().message()));
  }
  auto jit = codegen::JitModule::Create(*lowered);
  if (!jit.ok()) Die(name, jit.status());
  return std::move(*jit);
}

// 64-byte aligned float storage.
struct Floats {
  explicit Floats(int64_t n) : n(n), p(static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)))) {}
  ~Floats() { std::free(p); }
  Floats(const Floats&) = delete;
  Floats& operator=(const Floats&) = delete;
  int64_t n;
  float* p;
};

// A compact float32 CPU tensor over caller-owned data, passed to kernels as a DLTensor*.
struct Tensor {
  Tensor(float* data, std::vector<int64_t> s) : shape(std::move(s)) {
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
  }
  KilnAny Arg() {
    KilnAny a{};
    a.type_index = kKilnDLTensorPtr;
    a.v_ptr = &t;
    return a;
  }
  std::vector<int64_t> shape;
  DLTensor t{};
};

}  // namespace kiln::bench

#endif  // KILN_TESTS_BENCH_JIT_KERNEL_H_
