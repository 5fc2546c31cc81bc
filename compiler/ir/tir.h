// TIR: buffers, statements and PrimFunc (../shared/spec/004 "Grammar", with TVM v0.26's SBlock,
// AllocBuffer and Break/Continue). Statements that bind a name for "the rest of the block"
// (LetStmt, AllocBuffer, DeclBuffer, AttrStmt) hold that rest as their body.
#ifndef KILN_COMPILER_IR_TIR_H_
#define KILN_COMPILER_IR_TIR_H_

#include <string>
#include <utility>

#include "compiler/ir/expr.h"

namespace kiln::ir {

enum class BufferKind : int32_t { kDefault = 0, kAutoBroadcast = 1 };
template <>
struct EnumRange<BufferKind> {
  static constexpr BufferKind kMax = BufferKind::kAutoBroadcast;
};

// A typed view of memory: data pointer, element dtype, shape, strides (empty = compact row
// major) and element offset. Identity matters, like Var.
class BufferNode : public SpannedNode {
 public:
  Var data;  // handle var with PointerType(PrimType(dtype), scope)
  DataType dtype;
  Array<PrimExpr> shape;
  Array<IntImm> axis_separators;
  Array<PrimExpr> strides;
  PrimExpr elem_offset;  // may be undefined (= 0)
  std::string name;
  int32_t data_alignment = 0;  // bytes; 0 = default
  int32_t offset_factor = 0;
  BufferKind buffer_type = BufferKind::kDefault;
  // TVM's Buffer.layout (a TileLayout or ComposeLayout). Undefined = the default layout the
  // script parser gives a buffer declared without layout= (TVM: DefaultLayout(shape) in a TIRx
  // function, none in an s_tir function or a trn.sbuf/trn.psum buffer); kiln does not materialize
  // it so that buffers made by passes and parsed ones agree. `no_layout` is an explicit
  // layout=None where that differs from the default (a TIRx function, other scopes).
  ObjectRef layout;
  bool no_layout = false;
  // Pre-assigned address of the allocation; multi-dimensional for some scopes (trn.psum: bank,
  // offset). Empty = not assigned.
  Array<PrimExpr> allocated_addr;

  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("data", &data, kFieldDef);
    v->Visit("dtype", &dtype);
    v->Visit("shape", &shape, kFieldDef);
    v->Visit("axis_separators", &axis_separators);
    v->Visit("strides", &strides, kFieldDef);
    v->Visit("elem_offset", &elem_offset, kFieldDef | kFieldOptional);
    v->Visit("name", &name, kFieldIgnoreEq);
    v->Visit("data_alignment", &data_alignment);
    v->Visit("offset_factor", &offset_factor);
    v->Visit("buffer_type", &buffer_type);
    v->Visit("layout", &layout, kFieldOptional);
    v->Visit("no_layout", &no_layout);
    v->Visit("allocated_addr", &allocated_addr);
  }
  // Storage scope of the data pointer ("global" if unannotated).
  std::string scope() const;
  KILN_DECLARE_NODE(BufferNode, "tirx.Buffer", kBuffer)
};
class Buffer : public ObjectRef {
  KILN_DEFINE_REF(Buffer, ObjectRef, BufferNode)
  // A compact buffer with a fresh data var `name` in `scope`.
  static Buffer Make(std::string name, Array<PrimExpr> shape, DataType dtype,
                     std::string scope = "global", Span span = {});
};

class BufferLoadNode : public PrimExprNode {
 public:
  Buffer buffer;
  Array<PrimExpr> indices;
  PrimExpr predicate;  // optional lane mask
  void VisitFields(FieldVisitor* v) override {
    PrimExprNode::VisitFields(v);
    v->Visit("buffer", &buffer);
    v->Visit("indices", &indices);
    v->Visit("predicate", &predicate, kFieldOptional);
  }
  KILN_DECLARE_NODE(BufferLoadNode, "tirx.BufferLoad", kBufferLoad)
};
class BufferLoad : public PrimExpr {
  KILN_DEFINE_REF(BufferLoad, PrimExpr, BufferLoadNode)
  // dtype is the buffer's, widened to the lanes of the last index.
  BufferLoad(Buffer buffer, Array<PrimExpr> indices, Span span = {});
};

class BufferRegionNode : public SpannedNode {
 public:
  Buffer buffer;
  Array<Range> region;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("buffer", &buffer);
    v->Visit("region", &region);
  }
  KILN_DECLARE_NODE(BufferRegionNode, "tirx.BufferRegion", kBufferRegion)
};
class BufferRegion : public ObjectRef {
  KILN_DEFINE_REF(BufferRegion, ObjectRef, BufferRegionNode)
  BufferRegion(Buffer buffer, Array<Range> region);
  static BufferRegion FullRegion(Buffer buffer);
};

class MatchBufferRegionNode : public SpannedNode {
 public:
  Buffer buffer;
  BufferRegion source;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("source", &source);
    v->Visit("buffer", &buffer, kFieldDef);
  }
  KILN_DECLARE_NODE(MatchBufferRegionNode, "tirx.MatchBufferRegion", kMatchBufferRegion)
};
class MatchBufferRegion : public ObjectRef {
  KILN_DEFINE_REF(MatchBufferRegion, ObjectRef, MatchBufferRegionNode)
  MatchBufferRegion(Buffer buffer, BufferRegion source);
};

enum class IterVarType : int32_t {
  kDataPar = 0, kThreadIndex = 1, kCommReduce = 2, kOrdered = 3, kOpaque = 4,
  kUnrolled = 5, kVectorized = 6, kParallelized = 7, kTensorized = 8,
};
template <>
struct EnumRange<IterVarType> {
  static constexpr IterVarType kMax = IterVarType::kTensorized;
};

class IterVarNode : public SpannedNode {
 public:
  Range dom;  // optional
  Var var;
  IterVarType iter_type = IterVarType::kDataPar;
  std::string thread_tag;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("dom", &dom, kFieldOptional);
    v->Visit("var", &var, kFieldDef);
    v->Visit("iter_type", &iter_type);
    v->Visit("thread_tag", &thread_tag);
  }
  KILN_DECLARE_NODE(IterVarNode, "tirx.IterVar", kIterVar)
};
class IterVar : public ObjectRef {
  KILN_DEFINE_REF(IterVar, ObjectRef, IterVarNode)
  IterVar(Range dom, Var var, IterVarType type, std::string thread_tag = "", Span span = {});
};

// T.comm_reducer(lambda x, y: x + y, [identity]).
class CommReducerNode : public SpannedNode {
 public:
  Array<Var> lhs, rhs;
  Array<PrimExpr> result, identity_element;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("lhs", &lhs, kFieldDef);
    v->Visit("rhs", &rhs, kFieldDef);
    v->Visit("result", &result);
    v->Visit("identity_element", &identity_element);
  }
  KILN_DECLARE_NODE(CommReducerNode, "tirx.CommReducer", kCommReducer)
};
class CommReducer : public ObjectRef {
  KILN_DEFINE_REF(CommReducer, ObjectRef, CommReducerNode)
};

// T.index_map(lambda i, j: (j, i), index_dtype="int32"): a layout mapping from the initial
// indices to the final ones (R.layout_transform, schedule annotations).
class IndexMapNode : public SpannedNode {
 public:
  Array<Var> initial_indices;
  Array<PrimExpr> final_indices;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("initial_indices", &initial_indices, kFieldDef);
    v->Visit("final_indices", &final_indices);
  }
  KILN_DECLARE_NODE(IndexMapNode, "tirx.IndexMap", kIndexMap)
};
class IndexMap : public ObjectRef {
  KILN_DEFINE_REF(IndexMap, ObjectRef, IndexMapNode)
};

// TVM's tile layouts (python/tvm/tirx/layout.py), the values of Buffer.layout. A layout maps a
// buffer's logical index onto named axes: "m" (memory) and hardware axes such as "laneid",
// "warpid", "P"/"F" (Trainium partition/free).

// One dimension of a TileLayout: `extent` indices, `stride` apart on `axis`.
class IterNode : public SpannedNode {
 public:
  PrimExpr extent;
  PrimExpr stride;
  std::string axis = "m";
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("extent", &extent);
    v->Visit("stride", &stride);
    v->Visit("axis", &axis);
  }
  KILN_DECLARE_NODE(IterNode, "tirx.Iter", kIter)
};
class Iter : public ObjectRef {
  KILN_DEFINE_REF(Iter, ObjectRef, IterNode)
  Iter(PrimExpr extent, PrimExpr stride, std::string axis, Span span = {});
};

// T.TileLayout(T.S[extents : strides] + T.R[extents : strides] + offset): sharded dimensions,
// replicated dimensions and a constant offset per axis.
class TileLayoutNode : public SpannedNode {
 public:
  Array<Iter> shard;
  Array<Iter> replica;
  Map<String, PrimExpr> offset;  // axis name -> offset
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("shard", &shard);
    v->Visit("replica", &replica);
    v->Visit("offset", &offset);
  }
  KILN_DECLARE_NODE(TileLayoutNode, "tirx.TileLayout", kTileLayout)
};
class TileLayout : public ObjectRef {
  KILN_DEFINE_REF(TileLayout, ObjectRef, TileLayoutNode)
  TileLayout(Array<Iter> shard, Array<Iter> replica, Map<String, PrimExpr> offset, Span span = {});
  // TVM's TileLayoutNode::DefaultLayout: row-major shards of `shape` on axis "m".
  static TileLayout Default(const Array<PrimExpr>& shape);
};

// T.ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True): a
// swizzle composed with a tile layout (shared-memory bank-conflict avoidance).
class ComposeLayoutNode : public SpannedNode {
 public:
  int32_t per_element = 0;
  int32_t swizzle_len = 0;
  int32_t atom_len = 0;
  bool swizzle_inner = true;
  TileLayout tile_layout;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("per_element", &per_element);
    v->Visit("swizzle_len", &swizzle_len);
    v->Visit("atom_len", &atom_len);
    v->Visit("swizzle_inner", &swizzle_inner);
    v->Visit("tile_layout", &tile_layout);
  }
  KILN_DECLARE_NODE(ComposeLayoutNode, "tirx.ComposeLayout", kComposeLayout)
};
class ComposeLayout : public ObjectRef {
  KILN_DEFINE_REF(ComposeLayout, ObjectRef, ComposeLayoutNode)
};

// ---- statements ----

class LetStmtNode : public StmtNode {
 public:
  Var var;
  PrimExpr value;
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("value", &value);
    v->Visit("var", &var, kFieldDef);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(LetStmtNode, "tirx.LetStmt", kLetStmt)
};
class LetStmt : public Stmt {
  KILN_DEFINE_REF(LetStmt, Stmt, LetStmtNode)
  LetStmt(Var var, PrimExpr value, Stmt body, Span span = {});
};

// node is usually an IterVar (thread_extent), a Var, a Buffer, or a String.
class AttrStmtNode : public StmtNode {
 public:
  ObjectRef node;
  std::string attr_key;
  PrimExpr value;
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    // thread_extent defines the thread IterVar's var.
    v->Visit("node", &node, kFieldOptional | kFieldDef);
    v->Visit("attr_key", &attr_key);
    v->Visit("value", &value);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(AttrStmtNode, "tirx.AttrStmt", kAttrStmt)
};
class AttrStmt : public Stmt {
  KILN_DEFINE_REF(AttrStmt, Stmt, AttrStmtNode)
  AttrStmt(ObjectRef node, std::string attr_key, PrimExpr value, Stmt body, Span span = {});
};

// assert cond, (kind, [message parts]): message is a StringImm "Kind: text" or a call.
class AssertStmtNode : public StmtNode {
 public:
  PrimExpr condition;
  std::string error_kind = "RuntimeError";
  Array<String> message_parts;
  Stmt body;  // optional: may be undefined for a flat assert
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("condition", &condition);
    v->Visit("error_kind", &error_kind);
    v->Visit("message_parts", &message_parts);
    v->Visit("body", &body, kFieldOptional);
  }
  KILN_DECLARE_NODE(AssertStmtNode, "tirx.AssertStmt", kAssertStmt)
};
class AssertStmt : public Stmt {
  KILN_DEFINE_REF(AssertStmt, Stmt, AssertStmtNode)
  AssertStmt(PrimExpr condition, std::string error_kind, Array<String> message_parts,
             Stmt body = Stmt(), Span span = {});
};

class BufferStoreNode : public StmtNode {
 public:
  Buffer buffer;
  PrimExpr value;
  Array<PrimExpr> indices;
  PrimExpr predicate;  // optional lane mask
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("buffer", &buffer);
    v->Visit("value", &value);
    v->Visit("indices", &indices);
    v->Visit("predicate", &predicate, kFieldOptional);
  }
  KILN_DECLARE_NODE(BufferStoreNode, "tirx.BufferStore", kBufferStore)
};
class BufferStore : public Stmt {
  KILN_DEFINE_REF(BufferStore, Stmt, BufferStoreNode)
  BufferStore(Buffer buffer, PrimExpr value, Array<PrimExpr> indices, Span span = {});
};

enum class ForKind : int32_t { kSerial = 0, kParallel = 1, kVectorized = 2, kUnrolled = 3, kThreadBinding = 4 };
template <>
struct EnumRange<ForKind> {
  static constexpr ForKind kMax = ForKind::kThreadBinding;
};
const char* ForKindName(ForKind k);

class ForNode : public StmtNode {
 public:
  Var loop_var;
  PrimExpr min, extent;
  ForKind kind = ForKind::kSerial;
  Stmt body;
  IterVar thread_binding;  // optional; set for kThreadBinding
  Map<String, ObjectRef> annotations;
  PrimExpr step;  // optional; 1 when undefined
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("min", &min);
    v->Visit("extent", &extent);
    v->Visit("step", &step, kFieldOptional);
    v->Visit("loop_var", &loop_var, kFieldDef);
    v->Visit("kind", &kind);
    v->Visit("thread_binding", &thread_binding, kFieldOptional | kFieldDef);
    v->Visit("annotations", &annotations);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(ForNode, "tirx.For", kFor)
};
class For : public Stmt {
  KILN_DEFINE_REF(For, Stmt, ForNode)
  For(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
      IterVar thread_binding = IterVar(), Map<String, ObjectRef> annotations = {}, Span span = {});
};

class WhileNode : public StmtNode {
 public:
  PrimExpr condition;
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("condition", &condition);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(WhileNode, "tirx.While", kWhile)
};
class While : public Stmt {
  KILN_DEFINE_REF(While, Stmt, WhileNode)
  While(PrimExpr condition, Stmt body, Span span = {});
};

class BreakNode : public StmtNode {
 public:
  KILN_DECLARE_NODE(BreakNode, "tirx.Break", kBreak)
};
class Break : public Stmt {
  KILN_DEFINE_REF(Break, Stmt, BreakNode)
  static Break Make(Span span = {});
};

class ContinueNode : public StmtNode {
 public:
  KILN_DECLARE_NODE(ContinueNode, "tirx.Continue", kContinue)
};
class Continue : public Stmt {
  KILN_DEFINE_REF(Continue, Stmt, ContinueNode)
  static Continue Make(Span span = {});
};

class IfThenElseNode : public StmtNode {
 public:
  PrimExpr condition;
  Stmt then_case;
  Stmt else_case;  // optional
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("condition", &condition);
    v->Visit("then_case", &then_case);
    v->Visit("else_case", &else_case, kFieldOptional);
  }
  KILN_DECLARE_NODE(IfThenElseNode, "tirx.IfThenElse", kIfThenElse)
};
class IfThenElse : public Stmt {
  KILN_DEFINE_REF(IfThenElse, Stmt, IfThenElseNode)
  IfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case = Stmt(), Span span = {});
};

class SeqStmtNode : public StmtNode {
 public:
  Array<Stmt> seq;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("seq", &seq);
  }
  KILN_DECLARE_NODE(SeqStmtNode, "tirx.SeqStmt", kSeqStmt)
};
class SeqStmt : public Stmt {
  KILN_DEFINE_REF(SeqStmt, Stmt, SeqStmtNode)
  explicit SeqStmt(Array<Stmt> seq, Span span = {});
  // One statement if seq has one, a no-op Evaluate(0) if empty, a flattened SeqStmt otherwise.
  static Stmt Flatten(const std::vector<Stmt>& seq);
};

class EvaluateNode : public StmtNode {
 public:
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("value", &value);
  }
  KILN_DECLARE_NODE(EvaluateNode, "tirx.Evaluate", kEvaluate)
};
class Evaluate : public Stmt {
  KILN_DEFINE_REF(Evaluate, Stmt, EvaluateNode)
  explicit Evaluate(PrimExpr value, Span span = {});
};

// Allocates storage for `buffer` (whose data var it defines) for the duration of body.
class AllocBufferNode : public StmtNode {
 public:
  Buffer buffer;
  Map<String, ObjectRef> annotations;
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("buffer", &buffer, kFieldDef);
    v->Visit("annotations", &annotations);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(AllocBufferNode, "tirx.AllocBuffer", kAllocBuffer)
};
class AllocBuffer : public Stmt {
  KILN_DEFINE_REF(AllocBuffer, Stmt, AllocBufferNode)
  AllocBuffer(Buffer buffer, Stmt body, Map<String, ObjectRef> annotations = {}, Span span = {});
};

// Declares a buffer view over existing memory (its data var is already defined) for body.
class DeclBufferNode : public StmtNode {
 public:
  Buffer buffer;
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("buffer", &buffer, kFieldDef);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(DeclBufferNode, "tirx.DeclBuffer", kDeclBuffer)
};
class DeclBuffer : public Stmt {
  KILN_DEFINE_REF(DeclBuffer, Stmt, DeclBufferNode)
  DeclBuffer(Buffer buffer, Stmt body, Span span = {});
};

class SBlockNode : public StmtNode {
 public:
  Array<IterVar> iter_vars;
  Array<BufferRegion> reads, writes;
  std::string name;
  Stmt body;
  Stmt init;  // optional
  Array<Buffer> alloc_buffers;
  Array<MatchBufferRegion> match_buffers;
  Map<String, ObjectRef> annotations;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("iter_vars", &iter_vars, kFieldDef);
    v->Visit("alloc_buffers", &alloc_buffers, kFieldDef);
    v->Visit("match_buffers", &match_buffers);
    v->Visit("reads", &reads);
    v->Visit("writes", &writes);
    v->Visit("name", &name);
    v->Visit("annotations", &annotations);
    v->Visit("init", &init, kFieldOptional);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(SBlockNode, "tirx.SBlock", kSBlock)
};
class SBlock : public Stmt {
  KILN_DEFINE_REF(SBlock, Stmt, SBlockNode)
};

class SBlockRealizeNode : public StmtNode {
 public:
  Array<PrimExpr> iter_values;
  PrimExpr predicate;
  SBlock block;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("iter_values", &iter_values);
    v->Visit("predicate", &predicate);
    v->Visit("block", &block);
  }
  KILN_DECLARE_NODE(SBlockRealizeNode, "tirx.SBlockRealize", kSBlockRealize)
};
class SBlockRealize : public Stmt {
  KILN_DEFINE_REF(SBlockRealize, Stmt, SBlockRealizeNode)
  SBlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, SBlock block, Span span = {});
};

// TVM's tile DSL scope ids (TIRx): `bx, by = T.cta_id([4, 2])`, `tx = T.thread_id([128])`, ...
// declares the index of the current CTA / warpgroup / warp / thread within its parent scope, one
// var per axis, for the rest of the block (TVM's ScopeIdDefStmt). The (parent, child) pair names
// which index it is; the values are TVM's ScopeBinding enum so serialized modules agree.
enum class ScopeBinding : int32_t {
  kKernelCluster = 0, kKernelCta = 1, kClusterCta = 2, kCtaWarpgroup = 3, kCtaWarp = 4,
  kWarpgroupWarp = 5, kWarpThread = 6, kCtaThread = 7, kWarpgroupThread = 8, kClusterCtaPair = 9,
};
template <>
struct EnumRange<ScopeBinding> {
  static constexpr ScopeBinding kMax = ScopeBinding::kClusterCtaPair;
};
// The script function that declares a binding ("cta_id", "lane_id", ...), its (parent, child)
// scope names, and the binding a (parent, child) pair names (false if none).
const char* ScopeIdFunctionName(ScopeBinding b);
std::pair<const char*, const char*> ScopeBindingScopes(ScopeBinding b);
bool ScopeBindingFromScopes(const std::string& parent, const std::string& cur, ScopeBinding* out);

class ScopeIdDefStmtNode : public StmtNode {
 public:
  Array<Var> def_ids;
  // One extent per var; empty = deferred (TVM infers a lone var's extent from its siblings).
  Array<PrimExpr> extents;
  ScopeBinding scope = ScopeBinding::kKernelCta;
  Array<PrimExpr> preferred_extents;  // cluster->cta launch hint; empty = none
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("extents", &extents);
    v->Visit("preferred_extents", &preferred_extents);
    v->Visit("scope", &scope);
    v->Visit("def_ids", &def_ids, kFieldDef);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(ScopeIdDefStmtNode, "tirx.ScopeIdDefStmt", kScopeIdDefStmt)
};
class ScopeIdDefStmt : public Stmt {
  KILN_DEFINE_REF(ScopeIdDefStmt, Stmt, ScopeIdDefStmtNode)
  ScopeIdDefStmt(Array<Var> def_ids, Array<PrimExpr> extents, ScopeBinding scope, Stmt body,
                 Array<PrimExpr> preferred_extents = {}, Span span = {});
};

// TVM's TIRx tile primitives: `T.tile.memset(A[0:16], T.float32(1.25), dispatch="v10", foo=42)`
// is one cooperative operation on buffer regions (TVM's TilePrimitiveCall). `op` is the primitive's
// script name ("memset", "copy", ...), `args` its positional operands (each a BufferRegion or a
// PrimExpr), `workspace` named scratch buffers, `config` the free keyword arguments the
// scheduler reads, `dispatch` an explicit variant name ("" = none), and `scope` the cooperating
// group, the namespace the call is reached through (`T.tile.` = thread, `T.warp.`, `T.wg.`, ...).
// kiln parses, prints and serializes these; it does not lower them yet.
enum class TileScope : int32_t { kThread = 0, kWarp = 1, kWarpgroup = 2, kCta = 3, kCluster = 4 };
template <>
struct EnumRange<TileScope> {
  static constexpr TileScope kMax = TileScope::kCluster;
};
// The script namespace a scope prints as ("tile" for thread, "wg" for warpgroup), and the scope a
// namespace names (false if none); `warpgroup` and `thread` are accepted aliases.
const char* TileScopeNamespace(TileScope s);
bool TileScopeFromNamespace(const std::string& ns, TileScope* out);

class TilePrimitiveCallNode : public StmtNode {
 public:
  std::string op;
  Array<ObjectRef> args;
  Map<String, Buffer> workspace;
  Map<String, ObjectRef> config;
  std::string dispatch;
  TileScope scope = TileScope::kThread;
  void VisitFields(FieldVisitor* v) override {
    StmtNode::VisitFields(v);
    v->Visit("op", &op);
    v->Visit("args", &args);
    v->Visit("workspace", &workspace);
    v->Visit("config", &config);
    v->Visit("dispatch", &dispatch);
    v->Visit("scope", &scope);
  }
  KILN_DECLARE_NODE(TilePrimitiveCallNode, "tirx.TilePrimitiveCall", kTilePrimitiveCall)
};
class TilePrimitiveCall : public Stmt {
  KILN_DEFINE_REF(TilePrimitiveCall, Stmt, TilePrimitiveCallNode)
  TilePrimitiveCall(std::string op, Array<ObjectRef> args, Map<String, Buffer> workspace = {},
                    Map<String, ObjectRef> config = {}, std::string dispatch = "",
                    TileScope scope = TileScope::kThread, Span span = {});
};

// A TIR function. Buffer params: params[i] is a handle Var and buffer_map[params[i]] its Buffer.
class PrimFuncNode : public BaseFuncNode {
 public:
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  Type ret_type;  // optional (void)
  Stmt body;
  void VisitFields(FieldVisitor* v) override {
    BaseFuncNode::VisitFields(v);
    v->Visit("params", &params, kFieldDef);
    v->Visit("buffer_map", &buffer_map, kFieldDef);
    v->Visit("ret_type", &ret_type, kFieldOptional);
    v->Visit("body", &body);
  }
  KILN_DECLARE_NODE(PrimFuncNode, "tirx.PrimFunc", kPrimFunc)
};
class PrimFunc : public BaseFunc {
  KILN_DEFINE_REF(PrimFunc, BaseFunc, PrimFuncNode)
  PrimFunc(Array<Var> params, Stmt body, Type ret_type = Type(), Map<Var, Buffer> buffer_map = {},
           Map<String, ObjectRef> attrs = {}, Span span = {});
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_TIR_H_
