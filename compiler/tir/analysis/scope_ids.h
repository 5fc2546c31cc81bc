// The scope ids of one device region (the ScopeIdDefStmts under a `T.device_entry()`) must
// describe one launch: TVM closes the set of declared bindings under composition (cta->warp and
// warp->thread give cta->thread) and complement (kernel->cta over cluster->cta gives
// kernel->cluster), and refuses a region where two derivations disagree, where a complement does
// not divide evenly (128 threads in 3 warps), or where a thread count is not positive or, with
// warp-granular bindings, not a multiple of 32. A binding declared again begins the region's next
// launch. kiln decides these on constant extents; a symbolic extent is left to the launch.
#ifndef KILN_COMPILER_TIR_ANALYSIS_SCOPE_IDS_H_
#define KILN_COMPILER_TIR_ANALYSIS_SCOPE_IDS_H_

#include <string>
#include <vector>

#include "compiler/ir/tir.h"

namespace kiln::tir {

// The errors of the scope ids declared in `defs` (one device region's, in program order); empty
// when they describe a launch.
std::vector<std::string> CheckScopeIdClosure(const std::vector<const ir::ScopeIdDefStmtNode*>& defs);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_SCOPE_IDS_H_
