// The TIR reference interpreter: executes a verified, high-level PrimFunc (what the TVMScript
// parser produces: N-D buffers, SBlocks, match_buffer params, every loop kind) directly from the TIR
// language spec's semantics, with no lowering. It is slow on purpose and simple to read: it is the
// oracle that the LLVM and C backends are compared with.
//
// Arguments use the kernel ABI of runtime/kernel_abi.h, exactly as a compiled kernel receives them
// (one KilnAny per PrimFunc parameter: DLTensor* for buffers, int/bool/float for scalars), and the
// binding checks are the ones MakePackedAPI compiles in, so a call that a compiled kernel rejects is
// rejected here too.
#ifndef KILN_COMPILER_TIR_INTERP_INTERP_H_
#define KILN_COMPILER_TIR_INTERP_INTERP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/module.h"
#include "compiler/ir/tir.h"
#include "runtime/kernel_abi.h"

namespace kiln::tir {

struct InterpOptions {
  // Executed statements before the run is stopped with DEADLINE_EXCEEDED (0 = no limit), so that a
  // non-terminating While cannot hang a test or a server worker.
  int64_t max_steps = 0;
  // Bytes the program may allocate (AllocBuffer, SBlock alloc_buffers) at once; more is
  // RESOURCE_EXHAUSTED instead of an attempt to allocate whatever a shape asks for.
  int64_t max_alloc_bytes = int64_t{1} << 30;
  // Evaluates T.call_packed(name, args...) (tirx.tvm_call_packed); unset, such calls are
  // UNIMPLEMENTED. Arguments arrive in the kernel ABI's form (handles as kKilnOpaquePtr, integers
  // as kKilnInt, bools as kKilnBool, floats as kKilnFloat) and the call evaluates to int32 0. This
  // is how a GPU target runs the host part of a split module here: the launches SplitHostDevice
  // leaves in host code go to the device runtime (compiler/driver/device_run.h).
  std::function<absl::Status(const std::string& name, const std::vector<KilnAny>& args)> call_packed;
};

// Runs PrimFunc `entry` of `module` (found by global_symbol, else by GlobalVar name) on `args`,
// writing through the DLTensors' data like a compiled kernel would. A value returned by tirx.ret is
// stored in `*result` (kKilnInt / kKilnBool / kKilnFloat); otherwise `*result` is kKilnNone.
// Errors: INVALID_ARGUMENT for argument mismatches (naming the argument, as MakePackedAPI does) and
// failed AssertStmts ("<kind>: <message>"), OUT_OF_RANGE for buffer accesses outside their
// allocation, DEADLINE_EXCEEDED past max_steps, NOT_FOUND for an unknown entry. Behaviour the TIR
// spec leaves undefined is OUT_OF_RANGE too ("undefined behaviour: ..."; see value.h), integer
// division by zero INVALID_ARGUMENT, and an intrinsic or extern function the interpreter cannot
// evaluate UNIMPLEMENTED (naming it). Loops of every kind run serially (see interp.cc for GPU
// barriers).
absl::Status Interpret(const ir::IRModule& module, const std::string& entry, const KilnAny* args,
                       int32_t num_args, KilnAny* result, const InterpOptions& options = {});

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_INTERP_INTERP_H_
