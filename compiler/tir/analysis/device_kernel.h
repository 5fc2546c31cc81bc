// Facts about a device kernel that every GPU backend needs (the CUDA/OpenCL source printer, LLVM
// NVPTX/AMDGPU and SPIR-V): the element type each data handle is accessed with, the element count
// of a fixed-size allocation, and the dimension a thread tag names.
#ifndef KILN_COMPILER_TIR_ANALYSIS_DEVICE_BUFFERS_H_
#define KILN_COMPILER_TIR_ANALYSIS_DEVICE_BUFFERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "compiler/ir/tir.h"

namespace kiln::tir {

// How the loads and stores of a function body access one data handle: the element type of the
// first access, and whether any other access uses another type (a parameter's pointer can then
// only be typed as bytes).
struct HandleAccess {
  ir::DataType first;
  bool mixed = false;
};

// Every data handle that `body` loads or stores through, with its accesses. A handle that is never
// accessed has no entry.
std::unordered_map<const ir::VarNode*, HandleAccess> HandleAccesses(const ir::Stmt& body);

// The number of elements of `buffer` when every dimension is a constant, else nullopt (device code
// allocates fixed-size arrays only).
std::optional<int64_t> ConstantElementCount(const ir::Buffer& buffer);

// The dimension (0, 1, 2) of a thread tag ("blockIdx.y" -> block, 1). False for other tags.
bool ParseThreadTag(const std::string& tag, bool* block, int* dim);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_DEVICE_BUFFERS_H_
