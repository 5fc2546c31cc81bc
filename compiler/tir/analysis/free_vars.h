// The variables a statement uses but does not define, in first-use order. Backends use it to
// build the closure of an outlined parallel loop body.
#ifndef KILN_COMPILER_TIR_ANALYSIS_FREE_VARS_H_
#define KILN_COMPILER_TIR_ANALYSIS_FREE_VARS_H_

#include <vector>

#include "compiler/ir/tir.h"

namespace kiln::tir {

// Buffer data vars count as uses wherever their buffer is loaded or stored. `bound` are defined
// outside `body` but must not be reported (e.g. the loop var of the loop being outlined).
std::vector<ir::Var> FreeVars(const ir::Stmt& body, const std::vector<ir::Var>& bound = {});

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_FREE_VARS_H_
