// Test support for the default CPU kernels: run one generated PrimFunc on the reference interpreter
// and on the LLVM backend (with a thread pool, so parallel loops really run in parallel) and
// compare both with values the test computes itself.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_KERNEL_TESTING_H_
#define KILN_COMPILER_RELAX_LEGALIZE_KERNEL_TESTING_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/driver/run.h"
#include "compiler/ir/ir.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace kiln::relax::legalize::kernel_testing {

inline constexpr DLDataType kF32 = {kDLFloat, 32, 1};

// A float32 tensor with deterministic values in [-1, 1) (small integers / 8, so sums are exact
// enough that the only differences come from summation order).
inline runtime::Tensor RandomF32(const std::vector<int64_t>& shape, uint32_t seed) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, kF32);
  float* p = static_cast<float*>(t.data());
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(static_cast<int>((s >> 16) % 16) - 8) / 8.0f;
  }
  return t;
}

inline const float* F(const runtime::Tensor& t) { return static_cast<const float*>(t.data()); }

// Copies of `args` (so each target starts from the same inputs), run through `func` on `target`;
// returns the arguments afterwards.
inline std::vector<runtime::Tensor> Run(const ir::PrimFunc& func, driver::RunTarget target,
                                        const std::vector<runtime::Tensor>& args) {
  static runtime::ThreadPool* pool = new runtime::ThreadPool(4);  // test-only, never destroyed
  ir::IRModule mod = ir::IRModule::Make();
  const std::string name = "kernel";
  ir::Map<ir::String, ir::ObjectRef> attrs = func->attrs;
  attrs.Set(ir::String("global_symbol"), ir::String(name));  // an entry the Runner may call
  mod.Add(ir::GlobalVar(name), ir::PrimFunc(func->params, func->body, func->ret_type, func->buffer_map, attrs));
  driver::RunOptions o;
  o.target = target;
  o.env = pool->env();
  auto runner = driver::Runner::Create(mod, o);
  EXPECT_TRUE(runner.ok()) << runner.status();
  std::vector<runtime::Tensor> copies;
  for (const runtime::Tensor& a : args) {
    runtime::Tensor c = *runtime::Tensor::Empty(a.shape(), a.dtype());
    std::memcpy(c.data(), a.data(), a.nbytes());
    copies.push_back(c);
  }
  if (!runner.ok()) return copies;
  auto r = (*runner)->Call(name, copies);
  EXPECT_TRUE(r.ok()) << r.status();
  return copies;
}

// Every element of `got` within `tol` (absolute, plus relative to the magnitude) of `want`.
inline void ExpectNear(const runtime::Tensor& got, const std::vector<double>& want, double tol,
                       const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 5; ++i) {
    double g = F(got)[i];
    if (!(std::fabs(g - want[i]) <= tol * (1 + std::fabs(want[i])))) {
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", want " << want[i];
      ++bad;
    }
  }
}

}  // namespace kiln::relax::legalize::kernel_testing

#endif  // KILN_COMPILER_RELAX_LEGALIZE_KERNEL_TESTING_H_
