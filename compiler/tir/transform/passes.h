// The TIR lowering passes, one per .cc file; compiler/driver/tir_pipeline.cc runs them in order
// and documents the lowered form they produce together. Each pass takes and returns one PrimFunc;
// `name` (the function's global symbol, or its module name) only labels error messages.
#ifndef KILN_COMPILER_TIR_TRANSFORM_PASSES_H_
#define KILN_COMPILER_TIR_TRANSFORM_PASSES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tir.h"

namespace kiln::tir::transform {

// host_only.cc: fails (INVALID_ARGUMENT) if `f` binds GPU threads (thread_binding loops,
// launch_thread / virtual_thread attributes), which a CPU target cannot run; otherwise removes
// the remaining AttrStmts (scheduling hints such as pragmas, which no CPU backend reads).
absl::StatusOr<ir::PrimFunc> CheckHostOnly(const ir::PrimFunc& f, const std::string& name,
                                           const std::string& target_kind);

// lower_sblocks.cc: SBlockRealize/SBlock -> plain loops, ifs and allocations.
absl::StatusOr<ir::PrimFunc> LowerSBlocks(const ir::PrimFunc& f, const std::string& name);

// instrument_checks.cc: checked mode: an AssertStmt before each statement for every buffer access
// out of bounds, integer division or modulo by zero, INT_MIN / -1, shift by >= the bit width and
// call nesting deeper than 64, worded as the reference interpreter words the same fault. Internal
// (non-exported) functions gain a trailing int32 call-depth parameter that every call passes.
// Run right after LowerSBlocks, on every PrimFunc of a module.
absl::StatusOr<ir::PrimFunc> InstrumentChecks(const ir::PrimFunc& f, const std::string& name);
// guard_alloc_sizes.cc: an allocation with run-time extents is preceded by an assert that they
// are non-negative and that the element count fits the index type (MemoryError otherwise).
ir::PrimFunc GuardAllocSizes(const ir::PrimFunc& f);

// flatten_buffer.cc: every buffer access becomes a 1-D access of a flat buffer sharing the data
// var; DeclBuffer disappears; buffer_map keeps the original N-D buffers (MakePackedAPI reads them).
ir::PrimFunc FlattenBuffer(const ir::PrimFunc& f);

// simplify.cc: Analyzer::Simplify on every expression, with loop variable ranges in scope;
// statically decided ifs and asserts, empty loops and no-op statements removed.
ir::PrimFunc Simplify(const ir::PrimFunc& f);

// loop_partition.cc: loops with a non-constant range whose body tests T.likely(cond) on the loop
// variable -> prologue / middle / epilogue loops, the conditions replaced by true in the middle
// one (where they provably hold); then every `likely` wrapper is removed. Run Simplify after it.
ir::PrimFunc LoopPartition(const ir::PrimFunc& f);

// vectorize.cc: vectorized loops with a constant extent -> Ramp/Broadcast vector statements, or
// serial loops when the body is not vectorizable.
ir::PrimFunc VectorizeLoops(const ir::PrimFunc& f, int max_lanes = 64);

// storage_rewrite.cc: constant-size allocations (not under parallel loops, not escaping as
// pointers) with the same scope and dtype and disjoint live ranges -> one shared allocation at the
// top of the body, sized for the largest.
ir::PrimFunc StorageRewrite(const ir::PrimFunc& f);

// unroll.cc: unrolled loops with a constant extent up to `max_extent` -> a sequence of copies of
// the body; other unrolled loops -> serial.
ir::PrimFunc UnrollLoops(const ir::PrimFunc& f, int max_extent = 64);

// lower_intrin.cc: integer floordiv/floormod into cheaper exact forms where that is possible.
ir::PrimFunc LowerIntrin(const ir::PrimFunc& f);

// make_packed_api.cc: exported functions -> kernel ABI entries with argument checks.
struct PackedApiOptions {
  int device_type = 1;              // DLDeviceType every tensor argument must have (kDLCPU)
  std::string device_name = "cpu";  // for messages
};
absl::StatusOr<ir::PrimFunc> MakePackedAPI(const ir::PrimFunc& f, const std::string& name,
                                           const PackedApiOptions& options = {});

// split_host_device.cc: each outermost GPU thread-bound region of `f` -> a device kernel
// PrimFunc (calling_conv kDeviceKernelLaunchCallingConv, "tir.kernel_launch_params" = its thread
// tags) and, in the host function, T.call_packed(kernel, params..., launch extents...). A function
// without thread bindings comes back unchanged with no kernels. Run on flattened TIR.
inline constexpr int kDeviceKernelLaunchCallingConv = 2;  // TVM's CallingConv::kDeviceKernelLaunch
struct SplitFunctions {
  ir::PrimFunc host;
  std::vector<ir::PrimFunc> kernels;  // named by their global_symbol "<name>_kernel[_k]"
};
absl::StatusOr<SplitFunctions> SplitHostDevice(const ir::PrimFunc& f, const std::string& name,
                                               const std::string& device_target);

}  // namespace kiln::tir::transform

#endif  // KILN_COMPILER_TIR_TRANSFORM_PASSES_H_
