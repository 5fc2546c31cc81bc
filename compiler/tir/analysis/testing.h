// Test support for the TIR analyses: modules parsed from TVMScript text, with a failed parse
// reported as a test failure.
#ifndef KILN_COMPILER_TIR_ANALYSIS_TESTING_H_
#define KILN_COMPILER_TIR_ANALYSIS_TESTING_H_

#include <string>

#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::tir::testing {

// The lines before a PrimFunc's `def`.
inline constexpr char kPrimFuncHeader[] = "from tvm.script import tirx as T\n\n@T.prim_func\n";

// `text` parsed as file k.py into a module (empty when the parse fails, which fails the test).
inline ir::IRModule ParseModule(const std::string& text) {
  absl::StatusOr<ir::ObjectRef> r = script::ParseScript(text, "k.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? script::AsModule(*r) : ir::IRModule();
}

}  // namespace kiln::tir::testing

#endif  // KILN_COMPILER_TIR_ANALYSIS_TESTING_H_
