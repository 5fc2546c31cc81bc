// Small IR utilities shared by the lowering passes.
#ifndef KILN_COMPILER_TIR_TRANSFORM_IR_UTILS_H_
#define KILN_COMPILER_TIR_TRANSFORM_IR_UTILS_H_

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "compiler/ir/tir.h"

namespace kiln::tir::transform {

using VarMap = std::unordered_map<const ir::VarNode*, ir::PrimExpr>;

// Replaces uses of the mapped variables (the map's keys must be kept alive by the caller).
ir::PrimExpr Substitute(const ir::PrimExpr& e, const VarMap& vmap);
ir::Stmt Substitute(const ir::Stmt& s, const VarMap& vmap);

// Substitute, and also gives every variable and buffer that `s` itself defines (let vars, loop
// vars, allocated buffers) a fresh copy, so the result can sit next to `s` (or other copies) without
// one variable being defined twice. Used to duplicate loop bodies.
ir::Stmt CopyWithFreshDefs(const ir::Stmt& s, const VarMap& vmap);

// A copy of `b` with a different shape (and strides / elem_offset cleared), sharing b's data var.
ir::Buffer WithFlatShape(const ir::Buffer& b, ir::PrimExpr extent);

// e converted to `t` (a Cast unless it already has that dtype; vector lanes are kept).
ir::PrimExpr CastTo(ir::DataType t, const ir::PrimExpr& e);

// `f` with `body` (f itself when the body is unchanged): the last step of every pass.
ir::PrimFunc WithBody(const ir::PrimFunc& f, const ir::Stmt& body);

// The loop `op` turned serial over `body` (what vectorize and unroll leave of a loop they keep).
ir::Stmt AsSerialLoop(const ir::ForNode* op, const ir::Stmt& body);

// The loop `op` with `body` (op itself when the body is unchanged): loops a pass does not rewrite.
ir::Stmt WithLoopBody(const ir::ForNode* op, const ir::Stmt& body);

// The number of iterations of `op` when its extent is a constant and its step is 1 (or absent),
// the loops vectorize and unroll can expand; nullopt otherwise.
std::optional<int64_t> ConstUnitStepExtent(const ir::ForNode* op);

// The integer dtype able to hold both: the wider of two integer types (int64 wins).
ir::DataType WiderIndexType(ir::DataType a, ir::DataType b);

}  // namespace kiln::tir::transform

#endif  // KILN_COMPILER_TIR_TRANSFORM_IR_UTILS_H_
