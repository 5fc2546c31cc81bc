// Internal to ScheduleDefaultGPU: the cooperative schedule of a reduction stage whose reduction is
// long (sums, means, norms, the max and sum of a softmax row), where one thread per output would
// leave the device idle and run each reduction serially.
#ifndef KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_REDUCE_H_
#define KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_REDUCE_H_

#include <optional>

#include "compiler/ir/ir.h"

namespace kiln::relax::legalize {

// `stage` scheduled with one thread block per output element, or nullopt when it is not a
// reduction stage (schedule_gpu_stage.h) whose update is C = C op v or v op C with op one of +, *,
// max, min (v not reading C), whose reduction has at least 64 iterations (or a symbolic count),
// and whose outputs fit one grid dimension (at most 65535, or symbolic). The block's threads (256,
// or 64 for a reduction shorter than 256) each fold a strided share of the reduction into a
// register starting from op's identity, then combine the partials in shared memory in log2(threads)
// halving steps separated by barriers; thread 0 stores init op total. Float results may differ
// from the serial order in the last bits (the sum is reassociated). With `warp_shuffle` (the
// target has 32-lane tvm_warp_shuffle_down) and a float32 or int32 result, the partials are
// combined by shuffles within each warp, one value per warp goes through shared memory, and the
// first warp combines those by shuffles again.
std::optional<ir::Stmt> ScheduleReductionStage(const ir::Stmt& stage, bool warp_shuffle);

}  // namespace kiln::relax::legalize

#endif  // KILN_COMPILER_RELAX_LEGALIZE_SCHEDULE_GPU_REDUCE_H_
