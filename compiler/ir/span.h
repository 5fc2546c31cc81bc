// Source location of a node that came from TVMScript. Ignored by equality and hashing.
#ifndef KILN_COMPILER_IR_SPAN_H_
#define KILN_COMPILER_IR_SPAN_H_

#include <memory>
#include <string>

namespace kiln::ir {

struct Span {
  // Shared so that thousands of spans from one file cost one string.
  std::shared_ptr<const std::string> source;
  int32_t line = 0;  // 1-based; 0 = unknown
  int32_t column = 0;  // 1-based
  int32_t end_line = 0;
  int32_t end_column = 0;

  bool defined() const { return line > 0; }
  const std::string& source_name() const {
    static const std::string kEmpty;
    return source ? *source : kEmpty;
  }
  // "file:line:col" (or "line:col" without a file name).
  std::string ToString() const;
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_SPAN_H_
