// Generic IR walking and substitution over node reflection, for the fusion passes: they move
// bindings between Relax functions and statements between PrimFuncs, and need every reference to a
// variable or buffer renamed at once (in types, shapes, regions and bodies), whatever node holds it.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_IR_REWRITE_H_
#define KILN_COMPILER_RELAX_TRANSFORM_IR_REWRITE_H_

#include <functional>
#include <unordered_map>

#include "compiler/ir/ir.h"

namespace kiln::relax::transform {

// Calls fn on every object reachable from root through reflected reference fields (containers
// included), each once, parents before children. Returning false from fn skips that object's
// children.
void WalkIR(const ir::ObjectRef& root, const std::function<bool(const ir::ObjectRef&)>& fn);

using SubstMap = std::unordered_map<const ir::Object*, ir::ObjectRef>;

// A copy of root with every object that is a key of `map` replaced by its value, and every object
// above a replaced one rebuilt (a shared object is rebuilt once, so identity-bearing nodes such as
// Vars and Buffers stay shared). Objects nothing changed under are kept as they are. Replacement
// values are not searched further.
ir::ObjectRef SubstituteIR(const ir::ObjectRef& root, const SubstMap& map);

template <typename T>
T Substitute(const T& root, const SubstMap& map) {
  return ir::Downcast<T>(SubstituteIR(root, map));
}

}  // namespace kiln::relax::transform

#endif  // KILN_COMPILER_RELAX_TRANSFORM_IR_REWRITE_H_
