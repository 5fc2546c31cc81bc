// The Relax passes, one per file in this directory, each `IRModule -> IRModule`. The order they run
// in is compiler/driver/relax_pipeline.cc; TVM's equivalents (same names) are listed in
// ../shared/notes/tvm-reference.md §4.1. Legalization (relax ops -> PrimFuncs via call_tir) lives in
// compiler/relax/legalize.
//
// Every pass keeps the module well formed (compiler/relax/analysis/well_formed.h) and every
// expression's `ty` set; errors are INVALID_ARGUMENT naming the function and, where there is one,
// the source span.
//
// THE VM-LOWERED FORM (what VMCodeGen in compiler/relax/backend/vm accepts; the pipeline's output)
// Each Relax function's body is a SeqExpr of non-dataflow BindingBlocks whose bindings are
// VarBindings (no MatchCast: VMShapeLower turned them into checks) of:
//   * Call(ExternFunc("vm.builtin.*" or a kernel/packed name), args)  -- a packed call; its result
//     goes to the bound var (ty_args gives its type); Call(Op relax.call_builtin_with_ctx,
//     [ExternFunc, Tuple(args)]) passes the VM context ("%vm") first.
//   * Call(GlobalVar of a PrimFunc, args)  -- a destination-passing kernel call (inputs, then the
//     outputs allocated before it); its result is void.
//   * Call(GlobalVar of a Relax function, args), Call(Var holding a closure, args)  -- VM calls.
//   * If(cond, SeqExpr, SeqExpr) whose branches follow the same rules; cond a Var.
//   * Tuple, TupleGetItem, Var, Constant, PrimValue (IntImm/FloatImm only), StringImm,
//     DataTypeImm, ShapeExpr of IntImms (symbolic shapes were replaced by make_shape calls).
// Arguments of calls are leaves (Var, Constant, PrimValue of an IntImm/FloatImm, StringImm,
// DataTypeImm, static ShapeExpr, GlobalVar, ExternFunc). There are no relax ops other than
// call_builtin_with_ctx, relax.null_value and the relax.vm.* ops listed in LowerRuntimeBuiltin.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_PASSES_H_
#define KILN_COMPILER_RELAX_TRANSFORM_PASSES_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::transform {

// --- Fusion (fuse_ops.cc, fuse_tir.cc, annotate_tir_op_pattern.cc, dead_code_elimination.cc) ---

// Sets each PrimFunc's "op_pattern" attr (IntImm: 0 kElemWise, 1 kBroadcast, 2 kInjective,
// 3 kCommReduce, 4 kOutEWiseFusable, 7 kTuple, 8 kOpaque, as TVM) by analysing its body.
absl::StatusOr<ir::IRModule> AnnotateTIROpPattern(const ir::IRModule& module);
// Groups call_tir bindings inside dataflow blocks by op pattern (TVM's FuseOps rules) into new
// Relax functions marked "Primitive" = 1 and calls to them.
absl::StatusOr<ir::IRModule> FuseOps(const ir::IRModule& module);
// Turns each "Primitive" Relax function into one PrimFunc (TVM's FuseTIR) and its call into a
// call_tir; PrimFuncs no longer called are dropped.
absl::StatusOr<ir::IRModule> FuseTIR(const ir::IRModule& module);
// Removes unused bindings of pure values and functions unreachable from the exported entries.
absl::StatusOr<ir::IRModule> DeadCodeElimination(const ir::IRModule& module);

// --- Lowering to the VM form (one file each), in pipeline order ---

// Expressions nested in others that are not leaves or tuples (calls in call arguments or tuple
// fields, tuple item accesses, ...) are bound to variables of their own first: one operator call
// per binding, the A-normal form TVM's BlockBuilder gives its passes.
absl::StatusOr<ir::IRModule> Normalize(const ir::IRModule& module);

// Local functions become module functions named "<function>_<var>"; one with free variables is
// lifted with them as trailing parameters and bound as R.make_closure(lifted, (captured...)).
absl::StatusOr<ir::IRModule> LambdaLift(const ir::IRModule& module);
// Reshape-only PrimFuncs called through call_tir inside dataflow blocks become relax.reshape
// (a zero-copy view at run time).
absl::StatusOr<ir::IRModule> RewriteDataflowReshape(const ir::IRModule& module);
// Dataflow blocks become ordinary binding blocks and DataflowVars become Vars.
absl::StatusOr<ir::IRModule> ToNonDataflow(const ir::IRModule& module);
// Pure functions get "relax.force_pure"; call_pure_packed(f, args) and call_inplace_packed(f, args)
// become the direct call f(args) and invoke_pure_closure becomes invoke_closure.
absl::StatusOr<ir::IRModule> RemovePurityChecking(const ir::IRModule& module);
// call_tir / call_tir_inplace / call_dps_packed -> explicit output allocation (relax.builtin.
// alloc_tensor) followed by a destination-passing call.
absl::StatusOr<ir::IRModule> CallTIRRewrite(const ir::IRModule& module);
// Static memory planning: alloc_tensor with known sizes -> storage reused across non-overlapping
// lifetimes within a block (relax.memory.alloc_storage + relax.memory.alloc_tensor).
absl::StatusOr<ir::IRModule> StaticPlanBlockMemory(const ir::IRModule& module);
// After the last use of a value, its register is released (memory.kill_storage / kill_tensor,
// vm.kill_object); parameters and results are never killed.
absl::StatusOr<ir::IRModule> KillAfterLastUse(const ir::IRModule& module);
// relax.memory.* / relax.builtin.* / relax.vm.* / shape_of / reshape / null_value / to_vdevice ...
// -> the vm.builtin.* packed calls of ../shared/notes/tvm-reference.md §3.1.
absl::StatusOr<ir::IRModule> LowerRuntimeBuiltin(const ir::IRModule& module);
// R.prim_value of a non-integer expression of symbolic variables (an If condition n > 2) -> a
// call of a generated host PrimFunc compute_symbolic_expr(vars) returning it.
absl::StatusOr<ir::IRModule> ComputePrimValue(const ir::IRModule& module);
// Symbolic shapes: parameter checks (check_tensor_info, ...), match_shape into the shape heap,
// make_shape for every shape that uses a symbolic var, PrimFunc calls' symbolic int args. Its
// output is the VM-lowered form (compiler/relax/analysis/vm_lowered_form.h checks it); symbolic
// variables in types are then defined by match_shape calls, which CheckWellFormed does not know.
absl::StatusOr<ir::IRModule> VMShapeLower(const ir::IRModule& module);

}  // namespace kiln::relax::transform

#endif  // KILN_COMPILER_RELAX_TRANSFORM_PASSES_H_
