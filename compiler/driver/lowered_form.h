// THE LOWERED FORM: what the TIR pipeline (tir_pipeline.h) produces and what the backends
// (compiler/target/source/c, compiler/target/llvm) and the kernel library builder accept. The
// named helpers below are how every one of them asks the questions the form answers, so that
// "is this a packed entry" has one spelling.
//
// Functions. Every PrimFunc with a non-empty "global_symbol" attr is a packed entry:
//   params (self: handle, args: handle, num_args: int32, result: handle), empty buffer_map,
//   attrs = the original attrs + kCallingConvAttr = IntImm(int32, kPackedCallingConv) (IsPackedEntry
//   tests exactly that), ret_type = the original one.
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
// thread bindings are rejected for CPU targets) except the "compute_scope" AttrStmt that
// MakePackedAPI wraps around a packed entry's original body, no vectorized/unrolled/thread-bound
// loops.
// Evaluate(tirx.ret(v)) returns v (ReturnedValue): in a packed entry the backend stores it into
// `result` (kKilnInt/kKilnBool/kKilnFloat by v's dtype) and returns 0. Evaluate of tirx.assume (a
// fact for the simplifier) or of a constant emits nothing (IsNoOpEvaluate).
// Evaluate(tirx.check_failure(parts...)) (FailedCheck; checked mode, tir/transform/
// instrument_checks.cc) fails the call like a failed AssertStmt, with a message formatted at run
// time: the StringImm parts as written, the integer parts in decimal (unsigned for uint dtypes);
// the backend returns -1 with {kKilnErrorMessageOwned, a malloc'ed message} in `result`.
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
#ifndef KILN_COMPILER_DRIVER_LOWERED_FORM_H_
#define KILN_COMPILER_DRIVER_LOWERED_FORM_H_

#include <string>

#include "compiler/ir/tir.h"

namespace kiln::driver {

// The attr that marks a packed entry, and its value (TVM's CallingConv::kCPackedFunc).
inline constexpr char kCallingConvAttr[] = "calling_conv";
// AllocBuffer annotation: the buffer lives in device memory (host code of a GPU target,
// driver/device_build.h), allocated through KilnKernelEnv::device_alloc.
inline constexpr char kDeviceAllocAttr[] = "kiln.device_alloc";
inline constexpr int kPackedCallingConv = 1;

// Whether `f` is a packed entry: its kCallingConvAttr is an IntImm equal to kPackedCallingConv.
bool IsPackedEntry(const ir::PrimFuncNode* f);

// The symbol a lowered PrimFunc is emitted and exported under: its global_symbol, else the name of
// its GlobalVar in the module (`module_name`).
std::string LoweredSymbol(const std::string& module_name, const ir::PrimFuncNode* f);

// v when `op` is Evaluate(tirx.ret(v)), else an undefined PrimExpr.
ir::PrimExpr ReturnedValue(const ir::EvaluateNode* op);

// The call when `op` is Evaluate(tirx.check_failure(...)), else null.
const ir::CallNode* FailedCheck(const ir::EvaluateNode* op);

// Whether `op` has nothing to emit: Evaluate(tirx.assume(...)) or Evaluate of a constant.
bool IsNoOpEvaluate(const ir::EvaluateNode* op);

}  // namespace kiln::driver

#endif  // KILN_COMPILER_DRIVER_LOWERED_FORM_H_
