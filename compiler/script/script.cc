#include "compiler/script/script.h"

#include "compiler/relax/analysis/well_formed.h"
#include "compiler/script/doc/reader.h"
#include "compiler/script/parser/parser_impl.h"
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

absl::StatusOr<ObjectRef> ParseScript(absl::string_view source, const std::string& filename,
                                      DiagnosticList* diags, const ParseOptions& options, ParseInfo* info) {
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
  absl::Status tir = kiln::tir::VerifyModuleTIR(module, diags, vo);
  absl::Status rel = check_well_formed ? kiln::relax::CheckWellFormed(module, diags) : absl::OkStatus();
  return tir.ok() ? rel : tir;
}

}  // namespace kiln::script
