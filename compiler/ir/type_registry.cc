// The node type registry: the explicit list of every node type.
#include "compiler/ir/type_registry.h"

#include "compiler/ir/ir.h"

namespace kiln::ir {

namespace {
template <typename T>
TypeRegistry::Entry MakeEntry() {
  return {T::kTypeKey, T::kKind, []() { return ObjectPtr<Object>(std::move(make_object<T>())); },
          IsBindingKind(T::kKind)};
}
}  // namespace

TypeRegistry::TypeRegistry() {
  using namespace relax;  // NOLINT
  entries_ = {
      MakeEntry<ArrayNode>(), MakeEntry<MapNode>(), MakeEntry<StringNode>(),
      MakeEntry<RangeNode>(), MakeEntry<OpNode>(), MakeEntry<GlobalVarNode>(),
      MakeEntry<IRModuleNode>(), MakeEntry<GlobalInfoNode>(),
      MakeEntry<PrimTypeNode>(), MakeEntry<PointerTypeNode>(), MakeEntry<TupleTypeNode>(),
      MakeEntry<FuncTypeNode>(), MakeEntry<TensorTypeNode>(), MakeEntry<ShapeTypeNode>(),
      MakeEntry<AnyTypeNode>(), MakeEntry<PackedFuncTypeNode>(), MakeEntry<TensorMapTypeNode>(), MakeEntry<DTensorTypeNode>(),
      MakeEntry<VarNode>(), MakeEntry<SizeVarNode>(), MakeEntry<IntImmNode>(),
      MakeEntry<FloatImmNode>(), MakeEntry<ir::StringImmNode>(), MakeEntry<CastNode>(),
      MakeEntry<AddNode>(), MakeEntry<SubNode>(), MakeEntry<MulNode>(), MakeEntry<DivNode>(),
      MakeEntry<ModNode>(), MakeEntry<FloorDivNode>(), MakeEntry<FloorModNode>(),
      MakeEntry<MinNode>(), MakeEntry<MaxNode>(), MakeEntry<EQNode>(), MakeEntry<NENode>(),
      MakeEntry<LTNode>(), MakeEntry<LENode>(), MakeEntry<GTNode>(), MakeEntry<GENode>(),
      MakeEntry<AndNode>(), MakeEntry<OrNode>(), MakeEntry<NotNode>(), MakeEntry<SelectNode>(),
      MakeEntry<BufferLoadNode>(), MakeEntry<RampNode>(), MakeEntry<BroadcastNode>(),
      MakeEntry<ShuffleNode>(), MakeEntry<LetNode>(), MakeEntry<ir::CallNode>(),
      MakeEntry<BufferNode>(), MakeEntry<BufferRegionNode>(), MakeEntry<MatchBufferRegionNode>(),
      MakeEntry<IterVarNode>(), MakeEntry<CommReducerNode>(), MakeEntry<IndexMapNode>(),
      MakeEntry<IterNode>(), MakeEntry<TileLayoutNode>(), MakeEntry<ComposeLayoutNode>(),
      MakeEntry<LetStmtNode>(), MakeEntry<AttrStmtNode>(), MakeEntry<AssertStmtNode>(),
      MakeEntry<BufferStoreNode>(), MakeEntry<ForNode>(), MakeEntry<WhileNode>(),
      MakeEntry<BreakNode>(), MakeEntry<ContinueNode>(), MakeEntry<IfThenElseNode>(),
      MakeEntry<SeqStmtNode>(), MakeEntry<EvaluateNode>(), MakeEntry<AllocBufferNode>(),
      MakeEntry<DeclBufferNode>(), MakeEntry<SBlockNode>(), MakeEntry<SBlockRealizeNode>(),
      MakeEntry<ScopeIdDefStmtNode>(), MakeEntry<TilePrimitiveCallNode>(), MakeEntry<PrimFuncNode>(),
      MakeEntry<DataflowVarNode>(), MakeEntry<ConstantNode>(), MakeEntry<TupleNode>(),
      MakeEntry<TupleGetItemNode>(), MakeEntry<ShapeExprNode>(), MakeEntry<PrimValueNode>(),
      MakeEntry<relax::StringImmNode>(), MakeEntry<DataTypeImmNode>(), MakeEntry<relax::CallNode>(),
      MakeEntry<IfNode>(), MakeEntry<SeqExprNode>(), MakeEntry<BindingBlockNode>(),
      MakeEntry<DataflowBlockNode>(), MakeEntry<VarBindingNode>(), MakeEntry<MatchCastNode>(),
      MakeEntry<FunctionNode>(), MakeEntry<ExternFuncNode>(),
  };
  by_kind_.assign(static_cast<size_t>(NodeKind::kNumKinds), -1);
  for (size_t i = 0; i < entries_.size(); ++i) by_kind_[static_cast<size_t>(entries_[i].kind)] = static_cast<int>(i);
}

const TypeRegistry& TypeRegistry::Global() {
  static const TypeRegistry* const kRegistry = new TypeRegistry();
  return *kRegistry;
}

const TypeRegistry::Entry* TypeRegistry::Find(const std::string& type_key) const {
  for (const Entry& e : entries_) {
    if (type_key == e.type_key) return &e;
  }
  return nullptr;
}

const TypeRegistry::Entry* TypeRegistry::Find(NodeKind kind) const {
  size_t k = static_cast<size_t>(kind);
  if (k >= by_kind_.size() || by_kind_[k] < 0) return nullptr;
  return &entries_[by_kind_[k]];
}

}  // namespace kiln::ir
