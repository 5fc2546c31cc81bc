// The printer's entry points: IR -> Doc (Docsifier) -> text (doc::Write).
#include "compiler/script/printer/printer.h"

#include "compiler/script/doc/writer.h"
#include "compiler/script/printer/docsifier.h"

namespace kiln::script::printer {

doc::Module PrintDoc(const ir::ObjectRef& node, const PrinterOptions& options) {
  Docsifier d(options);
  return d.PrintTop(node);
}

std::string Print(const ir::ObjectRef& node, const PrinterOptions& options) {
  doc::Module m = PrintDoc(node, options);
  // A lone expression reads best without the trailing newline of a module.
  if (m.leading_comments.empty() && m.body.size() == 1 && m.body[0]->kind == doc::StmtKind::kExpr &&
      !node.as<ir::StmtNode>()) {
    return doc::WriteExpr(*m.body[0]->value);
  }
  return doc::Write(m);
}

}  // namespace kiln::script::printer
