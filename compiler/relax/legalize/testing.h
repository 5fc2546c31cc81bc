// Test support for the legalization tests: runs a legalized Relax function whose body is a chain
// of call_tir bindings (what LegalizeOps makes of an operator graph) by calling each PrimFunc with
// the Runner (compiler/driver/run.h), and computes the expected values with numpy through
// /usr/bin/python3, the independent oracle.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_TESTING_H_
#define KILN_COMPILER_RELAX_LEGALIZE_TESTING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/run.h"
#include "compiler/ir/ir.h"
#include "runtime/tensor.h"

namespace kiln::relax::legalize::testing {

// Evaluates Relax function `entry` of a legalized module on `inputs` (one per parameter; a R.Prim
// parameter is a 0-d tensor): its bindings may be call_tir(_inplace), shape_of, if/else on a bool tensor,
// tuples, tuple items, variables and constants; symbolic dims are bound from the parameters' shapes. Returns the result's tensors (a tuple flattened).
absl::StatusOr<std::vector<runtime::Tensor>> RunRelax(const ir::IRModule& module, const std::string& entry,
                                                      const std::vector<runtime::Tensor>& inputs,
                                                      driver::RunTarget target);
// The same with a list of tensors per parameter (the fields of a tuple parameter).
absl::StatusOr<std::vector<runtime::Tensor>> RunRelax(const ir::IRModule& module, const std::string& entry,
                                                      const std::vector<std::vector<runtime::Tensor>>& inputs,
                                                      driver::RunTarget target);

// Runs `code` with numpy after binding `names[i]` to inputs[i] (np as numpy); the value of the
// last line's expression `out = ...` (a tuple for several results) is returned.
absl::StatusOr<std::vector<runtime::Tensor>> Numpy(const std::string& code, const std::vector<std::string>& names,
                                                   const std::vector<runtime::Tensor>& inputs);

// A tensor of random values: floats in [-2, 2), ints in [-5, 5) (unsigned [0, 10)), bools.
runtime::Tensor Random(const std::vector<int64_t>& shape, const std::string& dtype, uint32_t seed);

// Empty when `actual` matches `expected` (same shape; values within atol + rtol * |expected|,
// NaNs equal); else a description of the first difference.
std::string Compare(const runtime::Tensor& actual, const runtime::Tensor& expected, double rtol = 1e-5,
                    double atol = 1e-5);

// The names of the Relax operators other than call_tir still called in the module's Relax
// functions (empty once everything is legalized).
std::vector<std::string> RemainingOps(const ir::IRModule& module);

struct InputSpec {
  std::vector<int64_t> shape;
  std::string dtype = "float32";
};

// The whole check of a legalization test: parses the TVMScript module `source`, legalizes it,
// checks no operator call is left, runs "main" on random inputs of `specs` on the interpreter and
// on LLVM, and compares every result with numpy's (`code` binds `out`; the inputs are named as
// main's parameters). Returns "" on success, else what went wrong.
std::string CheckAgainstNumpy(const std::string& source, const std::vector<InputSpec>& specs,
                              const std::string& code, double rtol = 1e-5, double atol = 1e-5);

}  // namespace kiln::relax::legalize::testing

#endif  // KILN_COMPILER_RELAX_LEGALIZE_TESTING_H_
