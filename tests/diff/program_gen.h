// A seeded generator of random, well-typed, high-level TIR PrimFuncs for differential testing of
// the backends (LLVM, C) against each other and against the reference interpreter.
//
// A program is a loop nest (serial / parallel / vectorized / unrolled loops) over an output domain
// that stores random expressions into one or two output buffers, optionally under an if/else, with
// let bindings, a local accumulator for reductions, input buffers of any dtype with padded strides
// and element offsets, and scalar parameters. Expressions cover every integer width (signed and
// unsigned), float16/32/64 and bool, and every operator: + - * / floordiv floormod truncdiv
// truncmod min max, comparisons, logic, select, if_then_else, casts, shifts, bitwise ops and math
// intrinsics. A quarter of the elementwise programs make the inner extent a shape variable n and
// tile that loop by a constant under a `T.likely(j < n)` guard, as schedules of non-divisible
// shapes do (the case LoopPartition rewrites).
//
// Every program is defined behaviour under the TIR spec, so all backends must agree on it: divisors
// are forced away from 0 (and -1 for signed types, so INT_MIN / -1 cannot happen), shift amounts are
// masked to the width, float->int casts are guarded to the target's range, and all indices stay in
// bounds. Transcendental math feeds only continuous operations (never a cast to an integer, a
// comparison or floor/ceil), so the libm differences allowed between backends stay within the
// comparison's tolerance instead of being amplified into different integers.
#ifndef KILN_TESTS_DIFF_PROGRAM_GEN_H_
#define KILN_TESTS_DIFF_PROGRAM_GEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace kiln::difftest {

// How one parameter is passed: a buffer (DLTensor) or a scalar.
struct ArgSpec {
  std::string name;
  bool is_buffer = true;
  ir::DataType dtype;
  std::vector<int64_t> shape;    // buffers
  std::vector<int64_t> strides;  // in elements; empty = compact
  int64_t elem_offset = 0;       // in elements (passed as DLTensor byte_offset)
  bool is_output = false;        // written by the program; compared after the run
};

struct Program {
  uint64_t seed = 0;
  std::string name;    // the function's global_symbol: "p<seed>"
  ir::PrimFunc func;   // high-level TIR, as the parser would build it
  std::vector<ArgSpec> args;  // one per param, in order
  // Uses transcendental math (exp, log, sin, ...): libm results may differ by an ulp or so between
  // implementations, so float outputs get a relative tolerance instead of a few ulps.
  bool uses_math = false;
};

// The program for `seed`: the same seed always gives the same program.
Program GenerateProgram(uint64_t seed);

}  // namespace kiln::difftest

#endif  // KILN_TESTS_DIFF_PROGRAM_GEN_H_
