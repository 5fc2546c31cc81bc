// Printer for TVM v0.26's TIRx tile primitives (the parser side is parser/parse_tile_prims.cc):
// a TilePrimitiveCall prints as TVM prints it, `T.<ns>.<op>(operands..., workspace={...},
// dispatch="...", key=value, ...)`, where <ns> is the cooperating scope ("tile" for one thread,
// "warp", "wg", "cta", "cluster"), the config entries are flattened into keyword arguments in
// key order, and an in-place unary call (dst and src the same region) prints its one operand.
// Flags print as Python bools and a reduction's axes as a list (`[1, 3]`), as TVM prints them.
// compose_op prints as the with statement it is read from, `with T.tile.compose_op(workspace=...,
// dispatch=..., key=value):` over the calls it composes.
// One departure from TVM: an operand region whose every extent is 1 prints as slices
// (`A[i:i + 1]`), not in TVM's index form `A[i]`, which TVM's parser and kiln's read back as a
// BufferLoad, not a region (TVM's own builder then rejects it as a `dst`).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/script/printer/docsifier.h"

namespace kiln::script::printer {

using namespace ir;  // NOLINT: this file is about IR node types only

// workspace={...}, dispatch="..." and the config entries in key order, as keyword arguments.
Kwargs Docsifier::TileKeywords(const TilePrimitiveCallNode* op) {
  Kwargs kwargs;
  if (!op->workspace.empty()) {
    std::vector<ExprPtr> keys, values;
    for (const auto& [k, b] : op->workspace.items()) {
      keys.push_back(StrLit(k->value));
      values.push_back(BufferRef(b));
    }
    kwargs.emplace_back("workspace", DictE(std::move(keys), std::move(values)));
  }
  if (!op->dispatch.empty()) kwargs.emplace_back("dispatch", StrLit(op->dispatch));
  std::vector<std::pair<std::string, ObjectRef>> config;
  for (const auto& [k, v] : op->config.items()) config.emplace_back(k->value, v);
  std::sort(config.begin(), config.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [k, v] : config) {
    kwargs.emplace_back(k, v.as<BufferRegionNode>() ? PrintRegion(Downcast<BufferRegion>(v), /*keep_region=*/true) : PrintAttrValue(v, false));
  }
  return kwargs;
}

void Docsifier::PrintTilePrimitiveCall(const TilePrimitiveCallNode* op, std::vector<StmtPtr>* out) {
  Kwargs kwargs = TileKeywords(op);
  ExprPtr callee = Attr(T(TileScopeNamespace(op->scope)), op->op);
  if (op->op == "compose_op") {
    std::vector<StmtPtr> body;
    for (const ObjectRef& a : op->args) {
      if (const auto* call = a.as<TilePrimitiveCallNode>()) PrintTilePrimitiveCall(call, &body);
    }
    out->push_back(WithS(CallE(callee, {}, std::move(kwargs)), nullptr, std::move(body)));
    return;
  }
  size_t n = op->args.size();
  // TVM prints `T.tile.exp(A[0:8])` for exp(dst=A[0:8], src=A[0:8]).
  if (n == 2) {
    const auto* dst = op->args[0].as<BufferRegionNode>();
    const auto* src = op->args[1].as<BufferRegionNode>();
    if (dst && src && dst->buffer.same_as(src->buffer) && StructuralEqual(dst->region, src->region)) n = 1;
  }
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < n; ++i) {
    const ObjectRef& a = op->args[i];
    const auto* imm = a.as<IntImmNode>();
    if (a.as<BufferRegionNode>()) {
      args.push_back(PrintRegion(Downcast<BufferRegion>(a), /*keep_region=*/true));
    } else if (imm && imm->dtype.is_bool()) {  // a flag (gemm's transpose_A, a reduction's accum)
      args.push_back(BoolLit(imm->value != 0));
    } else if (const auto* axes = a.as<ArrayNode>()) {  // a reduction's axes, as TVM prints them
      std::vector<ExprPtr> items;
      for (const ObjectRef& x : axes->data) items.push_back(PrintExpr(Downcast<PrimExpr>(x)));
      args.push_back(ListE(std::move(items)));
    } else {
      args.push_back(PrintExpr(Downcast<PrimExpr>(a)));
    }
  }
  out->push_back(ExprStmt(CallE(callee, std::move(args), std::move(kwargs))));
}

}  // namespace kiln::script::printer
