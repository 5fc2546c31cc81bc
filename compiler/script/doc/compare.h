// Structural equality of Doc trees, ignoring positions and the `parenthesized` hint (neither
// changes meaning). Used by round-trip tests (Read(Write(doc)) == doc) and the fuzzer.
#ifndef KILN_COMPILER_SCRIPT_DOC_COMPARE_H_
#define KILN_COMPILER_SCRIPT_DOC_COMPARE_H_

#include <string>

#include "compiler/script/doc/doc.h"

namespace kiln::script::doc {

// True when equal. Otherwise, if `why` is given, it receives a short description of the first
// difference found (a node kind or field name and the line of the left-hand node).
bool StructurallyEqual(const Module& a, const Module& b, std::string* why = nullptr);
bool StructurallyEqual(const Expr& a, const Expr& b, std::string* why = nullptr);

}  // namespace kiln::script::doc

#endif  // KILN_COMPILER_SCRIPT_DOC_COMPARE_H_
