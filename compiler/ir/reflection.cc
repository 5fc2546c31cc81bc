// Field listing, generic copy and the node type registry.
#include "compiler/ir/reflection.h"

#include <cstring>

#include "compiler/ir/ir.h"

namespace kiln::ir {

std::vector<FieldInfo> ListFields(const Object* node) {
  FieldVisitor v;
  // VisitFields only records field addresses; it does not modify the node.
  const_cast<Object*>(node)->VisitFields(&v);
  return v.TakeFields();
}

void CopyFields(const Object& src, Object* dst) {
  std::vector<FieldInfo> from = ListFields(&src);
  std::vector<FieldInfo> to = ListFields(dst);
  for (size_t i = 0; i < from.size(); ++i) {
    const FieldInfo& f = from[i];
    void* d = to[i].addr;
    switch (f.kind) {
      case FieldKind::kBool: *static_cast<bool*>(d) = *static_cast<bool*>(f.addr); break;
      case FieldKind::kInt32: *static_cast<int32_t*>(d) = *static_cast<int32_t*>(f.addr); break;
      case FieldKind::kInt64: *static_cast<int64_t*>(d) = *static_cast<int64_t*>(f.addr); break;
      case FieldKind::kDouble: *static_cast<double*>(d) = *static_cast<double*>(f.addr); break;
      case FieldKind::kString: *static_cast<std::string*>(d) = *static_cast<std::string*>(f.addr); break;
      case FieldKind::kDType: *static_cast<DataType*>(d) = *static_cast<DataType*>(f.addr); break;
      case FieldKind::kSpan: *static_cast<Span*>(d) = *static_cast<Span*>(f.addr); break;
      case FieldKind::kRef: *static_cast<ObjectRef*>(d) = *static_cast<ObjectRef*>(f.addr); break;
    }
  }
  // Containers have no reflected fields; copy their payload directly.
  if (const auto* a = dynamic_cast<const ArrayNode*>(&src)) static_cast<ArrayNode*>(dst)->data = a->data;
  if (const auto* m = dynamic_cast<const MapNode*>(&src)) static_cast<MapNode*>(dst)->data = m->data;
  if (const auto* s = dynamic_cast<const StringNode*>(&src)) static_cast<StringNode*>(dst)->value = s->value;
}

namespace {
template <typename T>
TypeRegistry::Entry MakeEntry(bool is_binding = false) {
  return {T::kTypeKey, T::kKind, []() { return ObjectPtr<Object>(std::move(make_object<T>())); },
          is_binding};
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
      MakeEntry<VarNode>(true), MakeEntry<SizeVarNode>(true), MakeEntry<IntImmNode>(),
      MakeEntry<FloatImmNode>(), MakeEntry<ir::StringImmNode>(), MakeEntry<CastNode>(),
      MakeEntry<AddNode>(), MakeEntry<SubNode>(), MakeEntry<MulNode>(), MakeEntry<DivNode>(),
      MakeEntry<ModNode>(), MakeEntry<FloorDivNode>(), MakeEntry<FloorModNode>(),
      MakeEntry<MinNode>(), MakeEntry<MaxNode>(), MakeEntry<EQNode>(), MakeEntry<NENode>(),
      MakeEntry<LTNode>(), MakeEntry<LENode>(), MakeEntry<GTNode>(), MakeEntry<GENode>(),
      MakeEntry<AndNode>(), MakeEntry<OrNode>(), MakeEntry<NotNode>(), MakeEntry<SelectNode>(),
      MakeEntry<BufferLoadNode>(), MakeEntry<RampNode>(), MakeEntry<BroadcastNode>(),
      MakeEntry<ShuffleNode>(), MakeEntry<LetNode>(), MakeEntry<ir::CallNode>(),
      MakeEntry<BufferNode>(true), MakeEntry<BufferRegionNode>(), MakeEntry<MatchBufferRegionNode>(),
      MakeEntry<IterVarNode>(), MakeEntry<CommReducerNode>(), MakeEntry<IndexMapNode>(),
      MakeEntry<IterNode>(), MakeEntry<TileLayoutNode>(), MakeEntry<ComposeLayoutNode>(),
      MakeEntry<LetStmtNode>(), MakeEntry<AttrStmtNode>(), MakeEntry<AssertStmtNode>(),
      MakeEntry<BufferStoreNode>(), MakeEntry<ForNode>(), MakeEntry<WhileNode>(),
      MakeEntry<BreakNode>(), MakeEntry<ContinueNode>(), MakeEntry<IfThenElseNode>(),
      MakeEntry<SeqStmtNode>(), MakeEntry<EvaluateNode>(), MakeEntry<AllocBufferNode>(),
      MakeEntry<DeclBufferNode>(), MakeEntry<SBlockNode>(), MakeEntry<SBlockRealizeNode>(),
      MakeEntry<ScopeIdDefStmtNode>(), MakeEntry<PrimFuncNode>(),
      MakeEntry<DataflowVarNode>(true), MakeEntry<ConstantNode>(), MakeEntry<TupleNode>(),
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
