// Sample IR for tests: one small, well-formed instance of every registered node kind, and a
// realistic module (a PrimFunc with buffers, sblocks and loops, plus a Relax function calling it).
#ifndef KILN_COMPILER_IR_TESTING_SAMPLES_H_
#define KILN_COMPILER_IR_TESTING_SAMPLES_H_

#include <map>

#include "compiler/ir/ir.h"

namespace kiln::ir::testing {

// A fresh sample of `kind` (new objects on every call), or a null ref if there is none.
ObjectRef MakeSample(NodeKind kind);

// A module with a s_tir matmul PrimFunc and a Relax function that call_tirs it. `tag` changes the
// variable names only, so two modules with different tags are alpha-equivalent.
IRModule MakeModule(const std::string& tag = "");

}  // namespace kiln::ir::testing

#endif  // KILN_COMPILER_IR_TESTING_SAMPLES_H_
