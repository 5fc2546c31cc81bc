// T.macro (TVMScript's parse-time macros): a module-level `@T.macro` function is not IR; a call of
// it inside a T.prim_func parses the macro's body there, with its parameters bound to the call's
// argument values (buffers, expressions, loop variables, Python values), as TVM's parser does.
// `@T.macro` (hygienic, the default) resolves the body's other names where the macro was defined:
// module-level values only, never the caller's locals. `@T.macro(hygienic=False)` resolves them at
// the call site, so the body may use the caller's loop variables and buffers by name.
#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/script/parser/parser_impl.h"

namespace kiln::script::parser {

namespace {

// Deeper than this is a macro that (directly or not) calls itself.
constexpr int kMaxMacroDepth = 64;

}  // namespace

Value Parser::DefineMacro(const doc::Stmt& def, const CallArgs& deco) {
  bool hygienic = true;
  if (deco.args.size() > 1) Fail(deco.span, "T.macro takes one argument, hygienic");
  if (deco.args.size() == 1) hygienic = ToBool(deco.args[0], deco.span);
  for (const auto& [key, v] : deco.kwargs) {
    if (key != "hygienic" || !deco.args.empty()) Fail(deco.span, absl::StrCat("T.macro: unexpected argument '", key, "'"));
    hygienic = ToBool(v, deco.span);
  }
  if (def.returns) Fail(def.returns->pos, "a T.macro has no return annotation");
  Value m = Value::Of(K::kMacro);
  m.macro = &def;
  m.b = hygienic;
  m.i = static_cast<int64_t>(scopes_.size());
  m.span = SpanOf(def.pos);
  return m;
}

Value Parser::ExpandMacro(const Value& macro, CallArgs& a) {
  const doc::Stmt& def = *macro.macro;
  if (relax_depth_ > 0 || tir_.depth() == 0) {
    Fail(a.span, absl::StrCat("macro '", def.name, "' is called outside a T.prim_func body"));
  }
  if (macro_depth_ >= kMaxMacroDepth) {
    Fail(a.span, absl::StrCat("macro '", def.name, "' expands more than ", kMaxMacroDepth, " levels deep (recursive?)"));
  }
  // Parameters as Python binds them: positional, then by keyword, then defaults.
  std::vector<const Value*> bound(def.args.size(), nullptr);
  if (a.args.size() > def.args.size()) {
    Fail(a.span, absl::StrCat("macro '", def.name, "' takes ", def.args.size(), " arguments, got ", a.args.size()));
  }
  for (size_t k = 0; k < a.args.size(); ++k) bound[k] = &a.args[k];
  for (const auto& [key, v] : a.kwargs) {
    size_t k = 0;
    while (k < def.args.size() && def.args[k].name != key) ++k;
    if (k == def.args.size()) Fail(a.span, absl::StrCat("macro '", def.name, "' has no parameter '", key, "'"));
    if (bound[k] != nullptr) Fail(a.span, absl::StrCat("macro '", def.name, "' got two values for '", key, "'"));
    bound[k] = &v;
  }
  for (size_t k = 0; k < def.args.size(); ++k) {
    if (bound[k] == nullptr && !def.args[k].default_value) {
      Fail(a.span, absl::StrCat("macro '", def.name, "' is missing its argument '", def.args[k].name, "'"));
    }
  }

  // A hygienic body (and its parameters' defaults) sees the scopes of its definition only: the
  // caller's are set aside meanwhile.
  std::vector<std::unordered_map<std::string, Value>> caller;
  if (macro.b) {
    size_t keep = std::min(scopes_.size(), static_cast<size_t>(macro.i));
    caller.assign(std::make_move_iterator(scopes_.begin() + keep), std::make_move_iterator(scopes_.end()));
    scopes_.resize(keep);
  }
  size_t depth = scopes_.size();
  ++macro_depth_;
  auto restore = [&] {
    --macro_depth_;
    scopes_.resize(depth);
    for (auto& s : caller) scopes_.push_back(std::move(s));
  };
  try {
    std::vector<Value> params;
    for (size_t k = 0; k < def.args.size(); ++k) params.push_back(bound[k] ? *bound[k] : Eval(def.args[k].default_value));
    PushScope();
    for (size_t k = 0; k < def.args.size(); ++k) Define(def.args[k].name, std::move(params[k]));
    ParseTIRBody(def.body);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  return Value::None();
}

}  // namespace kiln::script::parser
