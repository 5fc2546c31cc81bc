// Structural equality and hashing, derived from node reflection.
//
// Two IRs are structurally equal when they have the same shape and values, up to a consistent
// renaming of the variables (and buffers) they bind: a variable reached through a binding field
// (kFieldDef: loop vars, params, let vars, buffer shapes in buffer_map, ...) is mapped to its
// counterpart; later uses must agree with the mapping. A variable used without being bound (a
// free variable) must be the very same object unless `map_free_vars` is set.
//
// The hash agrees with equality (equal => same hash) and is stable across processes and runs: it
// depends only on type keys, values and binding order, never on addresses. kilnd's cache keys use
// it to find candidates, and always confirm with StructuralEqual.
#ifndef KILN_COMPILER_IR_STRUCTURAL_H_
#define KILN_COMPILER_IR_STRUCTURAL_H_

#include <cstdint>
#include <string>

#include "compiler/ir/object.h"

namespace kiln::ir {

// If `mismatch` is given and the IRs differ, it receives the path of the first difference,
// e.g. "functions[0].body.seq[2].value.b: IntImm.value 1 vs 2".
bool StructuralEqual(const ObjectRef& lhs, const ObjectRef& rhs, bool map_free_vars = false,
                     std::string* mismatch = nullptr);

uint64_t StructuralHash(const ObjectRef& node, bool map_free_vars = false);

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_STRUCTURAL_H_
