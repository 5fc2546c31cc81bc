// Whether every constant-shape allocation of a module can be indexed and sized. A buffer's
// flattened index is computed in the dtype of its extents (int32 for plain literals), so an
// allocation of more elements than that dtype counts would wrap its index, and one of more bytes
// than int64 holds cannot be allocated at all. TVM's parser accepts such programs (meta-schedule
// tests declare 2048^3 float32 caches they never build), and so does `kiln check`; lowering, the
// device build and the interpreter refuse them here, before any pass computes a wrapped index.
#ifndef KILN_COMPILER_TIR_ANALYSIS_ALLOCATION_SIZE_H_
#define KILN_COMPILER_TIR_ANALYSIS_ALLOCATION_SIZE_H_

#include "absl/status/status.h"
#include "compiler/ir/module.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

// OK when every AllocBuffer and sblock allocation with constant extents fits; otherwise
// INVALID_ARGUMENT at the allocation: "k.py:7:9: error: allocation of buffer B (65536 x 65536 x
// 65536 elements of float32) is too large: its element count overflows the index type".
absl::Status CheckAllocationSizes(const ir::PrimFunc& func);
absl::Status CheckAllocationSizes(const ir::IRModule& module);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_ALLOCATION_SIZE_H_
