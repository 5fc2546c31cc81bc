// Small factories for Doc nodes (compiler/script/doc/doc.h). The printer builds whole functions out
// of these; keeping them here keeps the IR-to-Doc code about TVMScript, not about Doc plumbing.
#ifndef KILN_COMPILER_SCRIPT_PRINTER_DOC_BUILDER_H_
#define KILN_COMPILER_SCRIPT_PRINTER_DOC_BUILDER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/script/doc/doc.h"

namespace kiln::script::printer {

using doc::ExprPtr;
using doc::StmtPtr;
using Kwargs = std::vector<std::pair<std::string, ExprPtr>>;

// ---- expressions ----
ExprPtr Id(std::string name);
ExprPtr Attr(ExprPtr value, std::string attr);
ExprPtr CallE(ExprPtr func, std::vector<ExprPtr> args, Kwargs kwargs = {});
ExprPtr IntLit(int64_t v);
ExprPtr FloatLit(double v);
ExprPtr StrLit(std::string s);
ExprPtr BoolLit(bool b);
ExprPtr NoneLit();
ExprPtr BinOp(std::string op, ExprPtr l, ExprPtr r);
ExprPtr UnaryOp(std::string op, ExprPtr x);
// `and` / `or` over several operands.
ExprPtr BoolOpE(std::string op, std::vector<ExprPtr> values);
ExprPtr Compare(ExprPtr l, std::string op, ExprPtr r);
ExprPtr TupleE(std::vector<ExprPtr> elts);  // written with parentheses
ExprPtr ListE(std::vector<ExprPtr> elts);
ExprPtr DictE(std::vector<ExprPtr> keys, std::vector<ExprPtr> values);
// value[i, j]; no indices gives value[()].
ExprPtr Index(ExprPtr value, std::vector<ExprPtr> indices);
ExprPtr SliceE(ExprPtr lower, ExprPtr upper, ExprPtr step = nullptr);  // lower:upper[:step]
ExprPtr LambdaE(std::vector<std::string> args, ExprPtr body);

// ---- statements ----
StmtPtr ExprStmt(ExprPtr e);
StmtPtr Assign(ExprPtr target, ExprPtr value);
// `target: annotation = value`; value may be null (`x: T.int32`).
StmtPtr AnnAssign(ExprPtr target, ExprPtr annotation, ExprPtr value);
StmtPtr ForS(ExprPtr target, ExprPtr iter, std::vector<StmtPtr> body);
StmtPtr WhileS(ExprPtr test, std::vector<StmtPtr> body);
StmtPtr IfS(ExprPtr test, std::vector<StmtPtr> body, std::vector<StmtPtr> orelse);
StmtPtr WithS(ExprPtr context, ExprPtr as_var, std::vector<StmtPtr> body);
StmtPtr AssertS(ExprPtr test, ExprPtr msg);
StmtPtr ReturnS(ExprPtr value);
StmtPtr FunctionDefS(std::string name, std::vector<doc::Arg> args, std::vector<ExprPtr> decorators,
                     ExprPtr returns, std::vector<StmtPtr> body);
StmtPtr ClassDefS(std::string name, std::vector<ExprPtr> decorators, std::vector<StmtPtr> body);
doc::Arg ArgOf(std::string name, ExprPtr annotation);

}  // namespace kiln::script::printer

#endif  // KILN_COMPILER_SCRIPT_PRINTER_DOC_BUILDER_H_
