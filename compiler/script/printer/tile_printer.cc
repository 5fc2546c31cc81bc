// Printer for TVM v0.26's TIRx tile/device DSL statements (the parser side is
// parser/parse_tile.cc): scope-id declarations print as TVM prints its ScopeIdDefStmt,
// `bx, by = T.cta_id([4, 2])`, `tx = T.thread_id()` (deferred extent), with preferred= and a
// non-int32 dtype= spelled out so the text reads back to the same statement; T.hint directives
// print as the call that made them.
#include <string>
#include <utility>
#include <vector>

#include "compiler/script/printer/docsifier.h"

namespace kiln::script::printer {

using namespace ir;  // NOLINT: this file is about IR node types only

void Docsifier::PrintScopeIdDef(const ScopeIdDefStmtNode* op, std::vector<StmtPtr>* out) {
  std::vector<ExprPtr> args;
  Kwargs kwargs;
  // A CTA pair always has two members; TVM prints T.cta_id_in_pair() without them.
  if (op->scope != ScopeBinding::kClusterCtaPair && !op->extents.empty()) {
    std::vector<ExprPtr> extents;
    for (const PrimExpr& e : op->extents) extents.push_back(PrintExpr(e));
    args.push_back(ListE(std::move(extents)));
  }
  if (!op->preferred_extents.empty()) {
    std::vector<ExprPtr> preferred;
    for (const PrimExpr& e : op->preferred_extents) preferred.push_back(PrintExpr(e));
    kwargs.emplace_back("preferred", ListE(std::move(preferred)));
  }
  if (!op->def_ids.empty() && op->def_ids[0]->dtype != DataType::Int(32)) {
    kwargs.emplace_back("dtype", StrLit(op->def_ids[0]->dtype.ToString()));
  }
  ExprPtr rhs = CallE(T(ScopeIdFunctionName(op->scope)), std::move(args), std::move(kwargs));
  std::vector<ExprPtr> vars;
  for (const Var& v : op->def_ids) vars.push_back(Define(v.get(), v->name));
  out->push_back(Assign(vars.size() == 1 ? vars[0] : TupleE(std::move(vars)), rhs));
  if (op->body.defined()) PrintStmt(op->body, out);
}

ExprPtr Docsifier::PrintHint(const AttrStmtNode* op) {
  const auto* attrs = op->node.as<MapNode>();
  if (op->attr_key != "tirx_hint" || !attrs) return nullptr;
  std::vector<ExprPtr> args;
  Kwargs kwargs;
  for (const auto& [k, v] : attrs->data) {
    const auto* key = k.as<StringNode>();
    if (!key) return nullptr;
    if (key->value == "message" && v.as<StringNode>()) {
      args.push_back(StrLit(v.as<StringNode>()->value));
      continue;
    }
    const auto* region = v.as<BufferRegionNode>();
    kwargs.emplace_back(key->value, region ? PrintRegion(BufferRegion(ObjectPtr<Object>(const_cast<BufferRegionNode*>(region)))) : PrintAttrValue(v, false));
  }
  return CallE(T("hint"), std::move(args), std::move(kwargs));
}

}  // namespace kiln::script::printer
