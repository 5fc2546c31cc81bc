#include "compiler/script/script.h"

#include <map>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "compiler/relax/analysis/well_formed.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/script/verify.h"
#include "compiler/tir/analysis/verifier.h"

namespace kiln::script {

using namespace ir;  // NOLINT

IRModule AsModule(const ObjectRef& parsed) {
  if (parsed.as<IRModuleNode>()) return Downcast<IRModule>(parsed);
  IRModule mod = IRModule::Make();
  const auto* f = parsed.as<BaseFuncNode>();
  if (!f) return mod;
  std::string name = "main";
  if (const auto* s = f->attrs.Get(String("global_symbol")).as<StringNode>()) name = s->value;
  mod.Add(GlobalVar(name), Downcast<BaseFunc>(parsed));
  return mod;
}

namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

// Only literal values (what a captured Python value prints as) may be defined.
bool IsLiteral(const doc::Expr& e) {
  switch (e.kind) {
    case doc::ExprKind::kConstant: return true;
    case doc::ExprKind::kUnaryOp: return e.value != nullptr && IsLiteral(*e.value);  // -1
    case doc::ExprKind::kTuple:
    case doc::ExprKind::kList:
      for (const doc::ExprPtr& x : e.elts) {
        if (!IsLiteral(*x)) return false;
      }
      return true;
    default: return false;
  }
}

// `NAME = VALUE` statements for options.defines, in name order.
absl::StatusOr<std::vector<doc::StmtPtr>> DefineStatements(const std::map<std::string, std::string>& defines) {
  std::vector<doc::StmtPtr> out;
  for (const auto& [name, value] : defines) {
    if (!IsIdentifier(name)) return absl::InvalidArgumentError(absl::StrCat("define: \"", name, "\" is not a name"));
    std::string where = absl::StrCat("<define ", name, ">");
    absl::StatusOr<doc::Module> m = doc::Read(absl::StrCat(name, " = ", value, "\n"), where);
    bool literal = m.ok() && m->body.size() == 1 && m->body[0]->value != nullptr && IsLiteral(*m->body[0]->value);
    bool bare_word = m.ok() && m->body.size() == 1 && m->body[0]->value != nullptr &&
                     m->body[0]->value->kind == doc::ExprKind::kName;
    if (bare_word || (!m.ok() && IsIdentifier(value))) {
      m = doc::Read(absl::StrCat(name, " = \"", value, "\"\n"), where);
      literal = m.ok();
    }
    if (!literal) {
      return absl::InvalidArgumentError(absl::StrCat("define ", name, "=", value,
                                                     ": the value must be a number, a string, a bool, or a tuple or "
                                                     "list of those"));
    }
    out.push_back(m->body[0]);
  }
  return out;
}

// Two top-level definitions of one name: Python lets the second replace the first, which made
// the last one silently win and `kiln fmt -i` drop the first from the file. kiln refuses it, as
// it refuses two functions of one name inside an @I.ir_module class.
void CheckTopLevelNames(const doc::Module& m, const std::string& filename, DiagnosticList* diags) {
  std::map<std::string, int> first_line;
  for (const doc::StmtPtr& s : m.body) {
    if ((s->kind != doc::StmtKind::kFunctionDef && s->kind != doc::StmtKind::kClassDef) || s->decorators.empty()) {
      continue;
    }
    auto [it, inserted] = first_line.emplace(s->name, s->pos.line);
    if (inserted) continue;
    Span span;
    span.source = std::make_shared<const std::string>(filename);
    span.line = s->pos.line;
    span.column = s->pos.col;
    span.end_line = s->pos.end_line;
    span.end_column = s->pos.end_col;
    diags->Error(span, absl::StrCat(s->kind == doc::StmtKind::kClassDef ? "class '" : "function '", s->name,
                                    "' is defined twice (first on line ", it->second, ")"));
  }
}

}  // namespace

absl::StatusOr<ObjectRef> ParseScript(absl::string_view source, const std::string& filename,
                                      DiagnosticList* diags, const ParseOptions& options, ParseInfo* info) {
  // Python skips a UTF-8 byte order mark at the start of a source file; so does kiln.
  absl::ConsumePrefix(&source, "\xEF\xBB\xBF");
  DiagnosticList local;
  DiagnosticList* d = diags ? diags : &local;
  size_t first = d->items().size();
  auto fail = [&]() -> absl::Status {
    DiagnosticList mine;
    for (size_t i = first; i < d->items().size(); ++i) mine.Add(d->items()[i]);
    std::string text = RenderAll(mine, std::string(source));
    return absl::InvalidArgumentError(text.empty() ? "invalid TVMScript" : text);
  };
  doc::ReadOptions ro;
  ro.max_depth = options.max_depth;
  absl::StatusOr<doc::Module> m = doc::Read(source, filename, d, ro);
  if (!m.ok()) return fail();
  CheckTopLevelNames(*m, filename, d);
  if (d->has_errors()) return fail();
  absl::StatusOr<std::vector<doc::StmtPtr>> defines = DefineStatements(options.defines);
  if (!defines.ok()) return defines.status();
  m->body.insert(m->body.begin(), defines->begin(), defines->end());
  parser::Parser p(std::string(source), filename, d);
  p.set_max_scope_depth(options.max_scope_depth);
  p.set_check_well_formed(options.check_well_formed);
  ObjectRef result = p.ParseModule(*m, options.name);
  if (info) info->well_formed_check_off = p.well_formed_check_off();
  if (!result.defined() || d->has_errors()) return fail();
  if (options.verify) {
    if (!VerifyModule(AsModule(result), d, !p.well_formed_check_off()).ok()) return fail();
  }
  return result;
}

absl::Status VerifyModule(const IRModule& module, DiagnosticList* diags, bool check_well_formed) {
  // TVM's parser accepts T.ret without a declared return type and nested launches of one thread
  // tag; kiln's lowering verifies those again with the backend rules on.
  kiln::tir::VerifyOptions vo;
  vo.backend_rules = false;
  vo.ssa = check_well_formed;
  vo.defined_vars = check_well_formed;
  vo.scope_ids = check_well_formed;
  absl::Status tir = kiln::tir::VerifyModuleTIR(module, diags, vo);
  absl::Status rel = check_well_formed ? kiln::relax::CheckWellFormed(module, diags) : absl::OkStatus();
  // What the backends need besides the type rules (verify.h): checked with the well-formed check
  // off too, since such a module is built all the same.
  absl::Status buildable = VerifyBuildable(module, diags);
  if (!tir.ok()) return tir;
  return rel.ok() ? buildable : rel;
}

}  // namespace kiln::script
