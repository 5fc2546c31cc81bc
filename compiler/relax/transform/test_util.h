// Test helpers for the lowering passes: parse a TVMScript module, print one back.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_TEST_UTIL_H_
#define KILN_COMPILER_RELAX_TRANSFORM_TEST_UTIL_H_

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform::testing {

inline ir::IRModule Parse(const std::string& source) {
  absl::StatusOr<ir::ObjectRef> parsed = script::ParseScript(source, "test.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

// The printed Relax function `name` of `module` (PrimFuncs are left out to keep expectations short).
inline std::string PrintFunction(const ir::IRModule& module, const std::string& name = "main") {
  return script::printer::Print(module.Lookup(name));
}

// The lines of that function after its signature and attributes: what a pass changes.
inline std::string PrintBody(const ir::IRModule& module, const std::string& name = "main") {
  std::string text = PrintFunction(module, name);
  size_t def = text.find("\ndef ");
  size_t start = def == std::string::npos ? 0 : text.find('\n', def + 1) + 1;
  std::string out;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find("func_attr(") == std::string::npos && line.find("= T.int64()") == std::string::npos &&
        !line.empty()) {
      out += line + "\n";
    }
    start = end + 1;
  }
  return out;
}

}  // namespace kiln::relax::transform::testing

#endif  // KILN_COMPILER_RELAX_TRANSFORM_TEST_UTIL_H_
