// Constructors and small helpers of the shared and TIR nodes (relax_nodes.cc has the Relax ones).
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/ir/module.h"
#include "compiler/ir/tir.h"

namespace kiln::ir {

void StringNode::VisitFields(FieldVisitor*) {}
void ArrayNode::VisitFields(FieldVisitor*) {}
void MapNode::VisitFields(FieldVisitor*) {}

String::String(std::string s) {
  auto n = make_object<StringNode>();
  n->value = std::move(s);
  data_ = ObjectPtr<Object>(std::move(n));
}
String::String(const char* s) : String(std::string(s)) {}

std::string Span::ToString() const {
  if (source && !source->empty()) return absl::StrCat(*source, ":", line, ":", column);
  return absl::StrCat(line, ":", column);
}

namespace {
template <typename NodeT, typename RefT>
RefT Wrap(ObjectPtr<NodeT> n) { return RefT(ObjectPtr<Object>(std::move(n))); }
}  // namespace

PrimExpr::PrimExpr(int value) : PrimExpr(IntImm(DataType::Int(32), value)) {}
PrimExpr::PrimExpr(int64_t value)
    : PrimExpr(value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()
                   ? IntImm(DataType::Int(32), value)
                   : IntImm(DataType::Int(64), value)) {}
PrimExpr::PrimExpr(float value) : PrimExpr(FloatImm(DataType::Float(32), value)) {}

std::string BaseFuncNode::GetGlobalSymbol() const {
  int64_t i = attrs.Find(String("global_symbol"));
  if (i < 0) return "";
  const auto* s = attrs.value_at(i).as<StringNode>();
  return s ? s->value : "";
}

// ---- types ----
PrimType::PrimType(DataType dtype, PrimExpr value) {
  auto n = make_object<PrimTypeNode>();
  n->dtype = dtype;
  n->value = std::move(value);
  data_ = ObjectPtr<Object>(std::move(n));
}
PointerType::PointerType(Type element_type, std::string storage_scope) {
  auto n = make_object<PointerTypeNode>();
  n->element_type = std::move(element_type);
  n->storage_scope = std::move(storage_scope);
  data_ = ObjectPtr<Object>(std::move(n));
}
TupleType::TupleType(Array<Type> fields) {
  auto n = make_object<TupleTypeNode>();
  n->fields = std::move(fields);
  data_ = ObjectPtr<Object>(std::move(n));
}
FuncType::FuncType(Array<Type> params, Type ret, bool purity) {
  auto n = make_object<FuncTypeNode>();
  n->params = std::move(params);
  n->ret = std::move(ret);
  n->purity = purity;
  data_ = ObjectPtr<Object>(std::move(n));
}
TensorMapType TensorMapType::Make() { return Wrap<TensorMapTypeNode, TensorMapType>(make_object<TensorMapTypeNode>()); }
// ---- TIR expressions ----
Var::Var(std::string name, DataType dtype, Span span) {
  auto n = make_object<VarNode>();
  n->name = std::move(name);
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Var::Var(std::string name, Type ty, Span span) {
  auto n = make_object<VarNode>();
  n->name = std::move(name);
  if (const auto* p = ty.as<PrimTypeNode>()) {
    n->dtype = p->dtype;
  } else if (ty.as<PointerTypeNode>()) {
    n->dtype = DataType::Handle();
  } else {
    n->dtype = DataType::Void();
  }
  n->ty = std::move(ty);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
SizeVar::SizeVar(std::string name, DataType dtype, Span span) {
  auto n = make_object<SizeVarNode>();
  n->name = std::move(name);
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
IntImm::IntImm(DataType dtype, int64_t value, Span span) {
  auto n = make_object<IntImmNode>();
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
FloatImm::FloatImm(DataType dtype, double value, Span span) {
  auto n = make_object<FloatImmNode>();
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
StringImm::StringImm(std::string value, Span span) {
  auto n = make_object<StringImmNode>();
  n->dtype = DataType::Handle();
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Cast::Cast(DataType dtype, PrimExpr value, Span span) {
  auto n = make_object<CastNode>();
  n->dtype = dtype;
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}

#define KILN_BINARY_CTOR(Name)                                                     \
  Name::Name(PrimExpr a, PrimExpr b, Span span) {                                  \
    auto n = make_object<Name##Node>();                                            \
    n->dtype = kIsCompare ? DataType::Bool(a.dtype().lanes()) : a.dtype();         \
    n->a = std::move(a);                                                           \
    n->b = std::move(b);                                                           \
    n->span = std::move(span);                                                     \
    data_ = ObjectPtr<Object>(std::move(n));                                        \
  }
KILN_BINARY_CTOR(Add)
KILN_BINARY_CTOR(Sub)
KILN_BINARY_CTOR(Mul)
KILN_BINARY_CTOR(Div)
KILN_BINARY_CTOR(Mod)
KILN_BINARY_CTOR(FloorDiv)
KILN_BINARY_CTOR(FloorMod)
KILN_BINARY_CTOR(Min)
KILN_BINARY_CTOR(Max)
KILN_BINARY_CTOR(EQ)
KILN_BINARY_CTOR(NE)
KILN_BINARY_CTOR(LT)
KILN_BINARY_CTOR(LE)
KILN_BINARY_CTOR(GT)
KILN_BINARY_CTOR(GE)
KILN_BINARY_CTOR(And)
KILN_BINARY_CTOR(Or)
#undef KILN_BINARY_CTOR

Not::Not(PrimExpr a, Span span) {
  auto n = make_object<NotNode>();
  n->dtype = a.dtype();
  n->a = std::move(a);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Select::Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value, Span span) {
  auto n = make_object<SelectNode>();
  n->dtype = true_value.dtype();
  n->condition = std::move(condition);
  n->true_value = std::move(true_value);
  n->false_value = std::move(false_value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Ramp::Ramp(PrimExpr base, PrimExpr stride, int lanes, Span span) {
  auto n = make_object<RampNode>();
  n->dtype = base.dtype().with_lanes(lanes);
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Broadcast::Broadcast(PrimExpr value, int lanes, Span span) {
  auto n = make_object<BroadcastNode>();
  n->dtype = value.dtype().with_lanes(lanes);
  n->value = std::move(value);
  n->lanes = lanes;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Shuffle::Shuffle(Array<PrimExpr> vectors, Array<PrimExpr> indices, Span span) {
  auto n = make_object<ShuffleNode>();
  DataType elem = vectors.empty() ? DataType::Void() : vectors[0].dtype().element_of();
  n->dtype = elem.with_lanes(static_cast<int>(indices.size()));
  n->vectors = std::move(vectors);
  n->indices = std::move(indices);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Let::Let(Var var, PrimExpr value, PrimExpr body, Span span) {
  auto n = make_object<LetNode>();
  n->dtype = body.dtype();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Op::Op(std::string name) {
  auto n = make_object<OpNode>();
  n->name = std::move(name);
  data_ = ObjectPtr<Object>(std::move(n));
}
GlobalVar::GlobalVar(std::string name, Span span) {
  auto n = make_object<GlobalVarNode>();
  n->name = std::move(name);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Call::Call(DataType dtype, Expr op, Array<PrimExpr> args, Span span) {
  auto n = make_object<CallNode>();
  n->dtype = dtype;
  n->op = std::move(op);
  n->args = std::move(args);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Range::Range(PrimExpr min, PrimExpr extent, Span span) {
  auto n = make_object<RangeNode>();
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}

// ---- TIR buffers and statements ----
std::string BufferNode::scope() const {
  if (data.defined()) {
    if (const auto* p = data->ty.as<PointerTypeNode>()) {
      if (!p->storage_scope.empty()) return p->storage_scope;
    }
  }
  return "global";
}

Buffer Buffer::Make(std::string name, Array<PrimExpr> shape, DataType dtype, std::string scope, Span span) {
  auto n = make_object<BufferNode>();
  n->data = Var(name, PointerType(PrimType(dtype), std::move(scope)), span);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->name = std::move(name);
  n->span = std::move(span);
  return Buffer(ObjectPtr<Object>(std::move(n)));
}

BufferLoad::BufferLoad(Buffer buffer, Array<PrimExpr> indices, Span span) {
  auto n = make_object<BufferLoadNode>();
  int lanes = indices.empty() ? 1 : indices.back().dtype().lanes();
  n->dtype = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
BufferRegion::BufferRegion(Buffer buffer, Array<Range> region) {
  auto n = make_object<BufferRegionNode>();
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  data_ = ObjectPtr<Object>(std::move(n));
}
BufferRegion BufferRegion::FullRegion(Buffer buffer) {
  Array<Range> region;
  for (const PrimExpr& e : buffer->shape) region.push_back(Range(IntImm(e.dtype(), 0), e));
  return BufferRegion(std::move(buffer), std::move(region));
}
MatchBufferRegion::MatchBufferRegion(Buffer buffer, BufferRegion source) {
  auto n = make_object<MatchBufferRegionNode>();
  n->buffer = std::move(buffer);
  n->source = std::move(source);
  data_ = ObjectPtr<Object>(std::move(n));
}
Iter::Iter(PrimExpr extent, PrimExpr stride, std::string axis, Span span) {
  auto n = make_object<IterNode>();
  n->extent = std::move(extent);
  n->stride = std::move(stride);
  n->axis = std::move(axis);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
TileLayout::TileLayout(Array<Iter> shard, Array<Iter> replica, Map<String, PrimExpr> offset, Span span) {
  auto n = make_object<TileLayoutNode>();
  n->shard = std::move(shard);
  n->replica = std::move(replica);
  n->offset = std::move(offset);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
TileLayout TileLayout::Default(const Array<PrimExpr>& shape) {
  // Strides are running products of the extents from the innermost one, in the extents' dtype
  // (TVM folds constants and multiplication by one, so equal layouts compare equal).
  std::vector<Iter> iters(shape.size());
  PrimExpr stride = shape.empty() ? PrimExpr() : IntImm(shape[0].dtype(), 1);
  for (size_t i = shape.size(); i-- > 0;) {
    iters[i] = Iter(shape[i], stride, "m");
    const auto* a = stride.as<IntImmNode>();
    const auto* b = shape[i].as<IntImmNode>();
    int64_t folded = 0;
    // A product past int64 (a shape no buffer can have, but the parser must not overflow on it)
    // stays unfolded.
    if (a && b && !__builtin_mul_overflow(a->value, b->value, &folded)) stride = IntImm(stride.dtype(), folded);
    else if (a && a->value == 1) stride = shape[i];
    else if (!b || b->value != 1) stride = Mul(stride, shape[i]);
  }
  return TileLayout(Array<Iter>(iters.begin(), iters.end()), {}, {});
}
IterVar::IterVar(Range dom, Var var, IterVarType type, std::string thread_tag, Span span) {
  auto n = make_object<IterVarNode>();
  n->dom = std::move(dom);
  n->var = std::move(var);
  n->iter_type = type;
  n->thread_tag = std::move(thread_tag);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
LetStmt::LetStmt(Var var, PrimExpr value, Stmt body, Span span) {
  auto n = make_object<LetStmtNode>();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
AttrStmt::AttrStmt(ObjectRef node, std::string attr_key, PrimExpr value, Stmt body, Span span) {
  auto n = make_object<AttrStmtNode>();
  n->node = std::move(node);
  n->attr_key = std::move(attr_key);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
AssertStmt::AssertStmt(PrimExpr condition, std::string error_kind, Array<String> message_parts,
                       Stmt body, Span span) {
  auto n = make_object<AssertStmtNode>();
  n->condition = std::move(condition);
  n->error_kind = std::move(error_kind);
  n->message_parts = std::move(message_parts);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
BufferStore::BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices, Span span) {
  auto n = make_object<BufferStoreNode>();
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
const char* ForKindName(ForKind k) {
  switch (k) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unroll";
    case ForKind::kThreadBinding: return "thread_binding";
  }
  return "?";
}
For::For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body, IterVar thread_binding,
         Map<String, ObjectRef> annotations, Span span) {
  auto n = make_object<ForNode>();
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->body = std::move(body);
  n->thread_binding = std::move(thread_binding);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
While::While(PrimExpr condition, Stmt body, Span span) {
  auto n = make_object<WhileNode>();
  n->condition = std::move(condition);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Break Break::Make(Span span) {
  auto n = make_object<BreakNode>();
  n->span = std::move(span);
  return Break(ObjectPtr<Object>(std::move(n)));
}
Continue Continue::Make(Span span) {
  auto n = make_object<ContinueNode>();
  n->span = std::move(span);
  return Continue(ObjectPtr<Object>(std::move(n)));
}
IfThenElse::IfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case, Span span) {
  auto n = make_object<IfThenElseNode>();
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
SeqStmt::SeqStmt(Array<Stmt> seq, Span span) {
  auto n = make_object<SeqStmtNode>();
  n->seq = std::move(seq);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
Stmt SeqStmt::Flatten(const std::vector<Stmt>& seq) {
  Array<Stmt> flat;
  for (const Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const auto* inner = s.as<SeqStmtNode>()) {
      for (const Stmt& t : inner->seq) flat.push_back(t);
    } else {
      flat.push_back(s);
    }
  }
  if (flat.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
  if (flat.size() == 1) return flat[0];
  return SeqStmt(flat);
}
Evaluate::Evaluate(PrimExpr value, Span span) {
  auto n = make_object<EvaluateNode>();
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
AllocBuffer::AllocBuffer(Buffer buffer, Stmt body, Map<String, ObjectRef> annotations, Span span) {
  auto n = make_object<AllocBufferNode>();
  n->buffer = std::move(buffer);
  n->body = std::move(body);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
DeclBuffer::DeclBuffer(Buffer buffer, Stmt body, Span span) {
  auto n = make_object<DeclBufferNode>();
  n->buffer = std::move(buffer);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
SBlockRealize::SBlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, SBlock block, Span span) {
  auto n = make_object<SBlockRealizeNode>();
  n->iter_values = std::move(iter_values);
  n->predicate = std::move(predicate);
  n->block = std::move(block);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}
ScopeIdDefStmt::ScopeIdDefStmt(Array<Var> def_ids, Array<PrimExpr> extents, ScopeBinding scope, Stmt body,
                               Array<PrimExpr> preferred_extents, Span span) {
  auto n = make_object<ScopeIdDefStmtNode>();
  n->def_ids = std::move(def_ids);
  n->extents = std::move(extents);
  n->scope = scope;
  n->preferred_extents = std::move(preferred_extents);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}

TilePrimitiveCall::TilePrimitiveCall(std::string op, Array<ObjectRef> args, Map<String, Buffer> workspace,
                                     Map<String, ObjectRef> config, std::string dispatch, TileScope scope,
                                     Span span) {
  auto n = make_object<TilePrimitiveCallNode>();
  n->op = std::move(op);
  n->args = std::move(args);
  n->workspace = std::move(workspace);
  n->config = std::move(config);
  n->dispatch = std::move(dispatch);
  n->scope = scope;
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}

namespace {
struct TileScopeName {
  TileScope scope;
  const char* ns;
};
// The first entry per scope is the one printed; the rest are aliases the parser accepts.
constexpr TileScopeName kTileScopeNames[] = {
    {TileScope::kThread, "tile"}, {TileScope::kWarp, "warp"},       {TileScope::kWarpgroup, "wg"},
    {TileScope::kCta, "cta"},     {TileScope::kCluster, "cluster"}, {TileScope::kWarpgroup, "warpgroup"},
    {TileScope::kThread, "thread"},
};
}  // namespace

const char* TileScopeNamespace(TileScope s) {
  for (const TileScopeName& e : kTileScopeNames) {
    if (e.scope == s) return e.ns;
  }
  return "tile";
}
bool TileScopeFromNamespace(const std::string& ns, TileScope* out) {
  for (const TileScopeName& e : kTileScopeNames) {
    if (ns == e.ns) {
      *out = e.scope;
      return true;
    }
  }
  return false;
}

namespace {
struct ScopeBindingInfo {
  ScopeBinding binding;
  const char* function;
  const char* parent;
  const char* cur;
};
// TVM's script spellings and (parent, child) names for each binding.
constexpr ScopeBindingInfo kScopeBindings[] = {
    {ScopeBinding::kKernelCluster, "cluster_id", "kernel", "cluster"},
    {ScopeBinding::kKernelCta, "cta_id", "kernel", "cta"},
    {ScopeBinding::kClusterCta, "cta_id_in_cluster", "cluster", "cta"},
    {ScopeBinding::kCtaWarpgroup, "warpgroup_id", "cta", "warpgroup"},
    {ScopeBinding::kCtaWarp, "warp_id", "cta", "warp"},
    {ScopeBinding::kWarpgroupWarp, "warp_id_in_wg", "warpgroup", "warp"},
    {ScopeBinding::kWarpThread, "lane_id", "warp", "thread"},
    {ScopeBinding::kCtaThread, "thread_id", "cta", "thread"},
    {ScopeBinding::kWarpgroupThread, "thread_id_in_wg", "warpgroup", "thread"},
    {ScopeBinding::kClusterCtaPair, "cta_id_in_pair", "cluster", "cta_pair"},
};
}  // namespace

const char* ScopeIdFunctionName(ScopeBinding b) { return kScopeBindings[static_cast<int>(b)].function; }
std::pair<const char*, const char*> ScopeBindingScopes(ScopeBinding b) {
  const ScopeBindingInfo& i = kScopeBindings[static_cast<int>(b)];
  return {i.parent, i.cur};
}
bool ScopeBindingFromScopes(const std::string& parent, const std::string& cur, ScopeBinding* out) {
  for (const ScopeBindingInfo& i : kScopeBindings) {
    if (parent == i.parent && cur == i.cur) {
      *out = i.binding;
      return true;
    }
  }
  return false;
}
PrimFunc::PrimFunc(Array<Var> params, Stmt body, Type ret_type, Map<Var, Buffer> buffer_map,
                   Map<String, ObjectRef> attrs, Span span) {
  auto n = make_object<PrimFuncNode>();
  n->params = std::move(params);
  n->body = std::move(body);
  n->ret_type = std::move(ret_type);
  n->buffer_map = std::move(buffer_map);
  n->attrs = std::move(attrs);
  n->span = std::move(span);
  data_ = ObjectPtr<Object>(std::move(n));
}

// ---- module ----
GlobalInfo::GlobalInfo(std::string kind, Map<String, ObjectRef> attrs) {
  auto n = make_object<GlobalInfoNode>();
  n->kind = std::move(kind);
  n->attrs = std::move(attrs);
  data_ = ObjectPtr<Object>(std::move(n));
}
IRModule IRModule::Make() { return IRModule(ObjectPtr<Object>(std::move(make_object<IRModuleNode>()))); }
void IRModule::Add(const GlobalVar& gv, const BaseFunc& func) {
  IRModuleNode* n = CopyOnWrite();
  for (size_t i = 0; i < n->functions.size(); ++i) {
    if (n->functions.key_at(i)->name == gv->name) {
      n->functions.Mutable()->data[i] = {gv, func};
      return;
    }
  }
  n->functions.Set(gv, func);
}
GlobalVar IRModule::GetGlobalVar(const std::string& name) const {
  for (size_t i = 0; i < get()->functions.size(); ++i) {
    GlobalVar gv = get()->functions.key_at(i);
    if (gv->name == name) return gv;
  }
  return GlobalVar();
}
BaseFunc IRModule::Lookup(const std::string& name) const {
  for (size_t i = 0; i < get()->functions.size(); ++i) {
    if (get()->functions.key_at(i)->name == name) return get()->functions.value_at(i);
  }
  return BaseFunc();
}

}  // namespace kiln::ir
