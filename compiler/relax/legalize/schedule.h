// ScheduleDefaultCPU: the default CPU schedule for the s_tir PrimFuncs that LegalizeOps (and
// FuseTIR after it) produce, so that elementwise, injective and reduction stages use every core and
// the vector units without a user-written schedule. Run after FuseTIR, before the TIR pipeline.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_H_

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

// Every PrimFunc of `module` that is in s_tir form and not already scheduled (no
// "kiln.scheduled" attribute; the hand-scheduled kernels carry it) is scheduled stage by stage.
// A stage is a perfect loop nest directly in the root block around one SBlockRealize whose
// iter_values are the loop variables themselves (what FuncBuilder and FuseTIR emit):
//   * the leading loops bound to data-parallel iter vars are fused into one T.parallel loop;
//   * when every loop is data-parallel and the innermost one indexes the written buffer's last
//     dim, that loop is split into T.vectorized chunks of one 64-byte vector (a constant extent
//     up to that size is vectorized whole) and a serial tail for the rest (the tail is a copy of the
//     block, so this needs a block that is a single store); if it is the only loop, its chunks
//     are the parallel loop;
//   * reduction stages get the parallel loop only (their init guard sits in the innermost loop,
//     which the TIR pipeline cannot vectorize);
//   * a stage of fewer than 2^16 iterations (constant extents) keeps that loop serial: it runs on
//     the calling thread, since waking the pool would cost more than the stage itself.
// Other stages and functions are left as they are. Scheduled functions get "kiln.scheduled".
// Numerics are unchanged: iterations of data-parallel iter vars are independent by the s_tir
// contract, and reductions still run in order.
absl::StatusOr<ir::IRModule> ScheduleDefaultCPU(const ir::IRModule& module);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_H_
