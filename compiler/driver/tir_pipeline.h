// The TIR lowering pipeline: high-level TIR (what the TVMScript parser produces: N-D buffers,
// SBlocks, match_buffer params, vectorized/unrolled loops) -> the lowered form that the C and LLVM
// backends compile. The passes, in order, are in tir_pipeline.cc; each lives in
// compiler/tir/transform/<pass>.cc.
//
// THE LOWERED FORM (the contract with compiler/target/source/c and the LLVM backend)
//
// Functions. Every PrimFunc with a non-empty "global_symbol" attr is a packed entry:
//   params (self: handle, args: handle, num_args: int32, result: handle), empty buffer_map,
//   attrs = the original attrs + "calling_conv" = IntImm(int32, 1), ret_type = the original one.
// It implements `int32_t symbol(void* self, const KilnAny* args, int32_t num_args, KilnAny* result)`
// of runtime/kernel_abi.h. Its body is a chain of LetStmts and AssertStmts that unpack and check
// the arguments (make_packed_api.cc documents each check and its message), then the function body.
// A PrimFunc without a global_symbol is an internal helper, called with a Call whose op is its
// GlobalVar: its params are scalars and, for each original buffer param, that buffer's data pointer
// (handle); it keeps its ret_type and is not exported. Other (Relax) functions pass through.
//
// Argument access uses only Call(Op("tirx.tvm_struct_get"), [handle, IntImm index, IntImm field])
// with the fields of compiler/tir/op/builtin.h (StructField): kArg* on `args` (index = argument
// number), kTensor* on a DLTensor* (index 0). DLTensor shape and strides arrays are read as
// BufferLoads of a 1-D int64 buffer whose data var is the handle bound to kTensorShape /
// kTensorStrides. Also used by the checks: tirx.isnullptr(handle), Cast(int64, handle) (the
// pointer's address, for the alignment check), tirx.bitwise_and, tirx.if_then_else (lazy).
//
// Statements: LetStmt, AssertStmt (error_kind + one message part; the backend returns -1 with
// "<kind>: <message>" in `result` on failure), For (kinds serial and parallel only; optional step),
// While, Break, Continue, IfThenElse, SeqStmt, Evaluate, BufferStore, AllocBuffer. There are no
// SBlock/SBlockRealize, no DeclBuffer, no match_buffers, no AttrStmts (pragmas are dropped; GPU
// thread bindings are rejected for CPU targets), no vectorized/unrolled/thread-bound loops.
// Evaluate(tirx.ret(v)) returns v: in a packed entry the backend stores it into `result`
// (kKilnInt/kKilnBool/kKilnFloat by v's dtype) and returns 0.
//
// Buffers: every BufferLoad/BufferStore has exactly one index, into a 1-D buffer with no strides
// and no elem_offset (the element offset is already in the index). The buffer's data var is a
// handle defined by a LetStmt (arguments), an AllocBuffer, or a param (internal helpers).
// AllocBuffer allocates shape[0] elements of its dtype in its data var's storage scope for the
// duration of its body (the backend picks stack or heap). Rank-0 local scalars are 1-element.
//
// Expressions: everything in compiler/ir/expr.h. Vector code appears as Ramp/Broadcast (and
// vector-typed arithmetic, comparisons, Select, Cast, pure intrinsic calls); a vector BufferLoad or
// BufferStore has a Ramp index. Integer division: FloorDiv/FloorMod (floor semantics), Div/Mod
// (truncating, C semantics) — backends implement all four; tirx.shift_right on signed ints is an
// arithmetic shift. Math intrinsics stay tirx.* calls (tirx.exp, tirx.sqrt, ...). Integer
// arithmetic wraps at its width.
#ifndef KILN_COMPILER_DRIVER_TIR_PIPELINE_H_
#define KILN_COMPILER_DRIVER_TIR_PIPELINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/driver/pass_instrument.h"
#include "compiler/ir/ir.h"

namespace kiln::driver {

struct PipelineOptions {
  // The target kind: "llvm" or "c" (both CPU hosts). Others are rejected until GPU targets exist.
  std::string target_kind = "c";
  // T.unroll loops with more iterations stay loops.
  int max_unroll_extent = 64;
  // T.vectorized loops with more lanes stay loops.
  int max_vector_lanes = 64;
  // Run the TIR verifier on the input first (off for IR that was already verified).
  bool verify_input = true;
  // Per-pass hooks: a dump of the module after chosen passes, the verifier between passes.
  PassHooks hooks;
};

// The names of the pipeline's steps in order (a pass that runs twice is listed once): what
// PassHooks::after_pass receives and `kiln build --print-after` accepts.
const std::vector<std::string>& TIRPassNames();

// Lowers every PrimFunc of `module` (Relax functions are kept as they are). Errors are
// INVALID_ARGUMENT naming the function: verifier errors, GPU constructs on a CPU target, malformed
// blocks, parameters the kernel ABI cannot pass.
absl::StatusOr<ir::IRModule> LowerTIR(const ir::IRModule& module, const PipelineOptions& options = {});

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_TIR_PIPELINE_H_
