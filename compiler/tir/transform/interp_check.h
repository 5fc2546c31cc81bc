// ExpectSameBehaviour: the oracle for pass tests whose expected IR is a golden text. Those goldens
// are kiln's own printer output for the pass's result, checked by reading, so on their own they only
// detect change; running the program before and after the pass on the reference interpreter
// (compiler/tir/interp) with the same inputs checks that the pass kept its meaning.
#ifndef KILN_COMPILER_TIR_TRANSFORM_INTERP_CHECK_H_
#define KILN_COMPILER_TIR_TRANSFORM_INTERP_CHECK_H_

#include <cstdint>
#include <vector>

#include "compiler/ir/tir.h"

namespace kiln::tir::transform::testing {

// Runs `before` and `after` (PrimFuncs with the same parameters: buffers of constant shape and
// int32/float32 dtype, and integer scalars) once per value of `scalar_values`, which every scalar
// parameter takes. Buffers start with the same pseudo-random contents in both runs and must end
// with the same bytes; both runs must succeed. Failures are gtest failures naming the value.
void ExpectSameBehaviour(const ir::PrimFunc& before, const ir::PrimFunc& after,
                         const std::vector<int64_t>& scalar_values);

// Runs `before` and `after` as above with every scalar parameter equal to `scalar`: both must
// fail, with the same message (how checked mode's checks are held to the interpreter's wording).
void ExpectSameFailure(const ir::PrimFunc& before, const ir::PrimFunc& after, int64_t scalar);

}  // namespace kiln::tir::transform::testing

#endif  // KILN_COMPILER_TIR_TRANSFORM_INTERP_CHECK_H_
