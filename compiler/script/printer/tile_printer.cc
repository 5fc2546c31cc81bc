// Printer for TVM v0.26's TIRx tile/device DSL statements (the parser side is
// parser/parse_tile.cc): scope-id declarations print as TVM prints its ScopeIdDefStmt,
// `bx, by = T.cta_id([4, 2])`, `tx = T.thread_id()` (deferred extent), with preferred= and a
// non-int32 dtype= spelled out so the text reads back to the same statement; T.hint directives
// print as the call that made them; tile layouts print as the T.TileLayout(T.S[...] + ...) /
// T.ComposeLayout(...) calls TVM's printer writes.
#include <algorithm>
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

ExprPtr Docsifier::PrintLayout(const ObjectRef& layout) {
  if (const auto* c = layout.as<ComposeLayoutNode>()) {
    Kwargs kw;
    if (!c->swizzle_inner) kw.emplace_back("swizzle_inner", BoolLit(false));
    return CallE(T("ComposeLayout"),
                 {IntLit(c->per_element), IntLit(c->swizzle_len), IntLit(c->atom_len), PrintLayout(c->tile_layout)},
                 std::move(kw));
  }
  const auto* l = layout.as<TileLayoutNode>();
  // `value @ Axis.name`, the memory axis "m" left implicit.
  auto on_axis = [&](ExprPtr value, const std::string& axis) {
    return axis == "m" ? value : BinOp("@", std::move(value), Attr(Id("Axis"), axis));
  };
  // S[e : s] for one iter, S[(e0, e1) : (s0, s1)] for several.
  auto iters = [&](const std::string& head, const Array<Iter>& its) {
    std::vector<ExprPtr> extents, strides;
    for (const Iter& it : its) {
      extents.push_back(PrintExpr(it->extent));
      strides.push_back(on_axis(PrintExpr(it->stride), it->axis));
    }
    ExprPtr start = extents.size() == 1 ? extents[0] : TupleE(std::move(extents));
    ExprPtr stop = strides.size() == 1 ? strides[0] : TupleE(std::move(strides));
    return Index(T(head), {SliceE(start, stop)});
  };
  ExprPtr spec;
  auto add = [&](ExprPtr term) { spec = spec ? BinOp("+", spec, std::move(term)) : std::move(term); };
  if (!l->shard.empty()) add(iters("S", l->shard));
  if (!l->replica.empty()) add(iters("R", l->replica));
  // The offset terms sum to one expression first (by axis name, for a stable text), then join
  // the spec with one `+`.
  std::vector<std::pair<std::string, PrimExpr>> offset;
  for (size_t i = 0; i < l->offset.size(); ++i) offset.emplace_back(l->offset.key_at(i).str(), l->offset.value_at(i));
  std::sort(offset.begin(), offset.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ExprPtr off;
  for (const auto& [axis, value] : offset) {
    ExprPtr term = on_axis(PrintExpr(value), axis);
    off = off ? BinOp("+", off, std::move(term)) : std::move(term);
  }
  if (off && !spec) {  // no iters: only the offset, given by axis name
    std::vector<ExprPtr> keys, values;
    for (const auto& [axis, value] : offset) {
      keys.push_back(StrLit(axis));
      values.push_back(PrintExpr(value));
    }
    return CallE(Attr(T("TileLayout"), "from_iters"), {}, {{"offset", DictE(std::move(keys), std::move(values))}});
  }
  if (off) add(off);
  if (!spec) return CallE(Attr(T("TileLayout"), "from_iters"), {});
  return CallE(T("TileLayout"), {spec});
}

}  // namespace kiln::script::printer
