// LowerSBlocks: removes SBlockRealize/SBlock, the scheduling-level statements, leaving the loops,
// ifs and allocations that backends understand. For each realized block:
//
//   * iter_vars are replaced by their iter_values (substitution, as the spec binds them);
//   * the predicate, unless it is the constant true, guards the block: if (predicate) { ... };
//   * init runs when every reduce iter_var is at the minimum of its domain:
//       if (k == 0) { init } body
//     (with no reduce iter_vars, init runs every time, as the spec says). The guard stays inside
//     the loops; hoisting it out of innermost reduce loops is an optimisation left for later;
//   * alloc_buffers become AllocBuffer statements around the block body;
//   * match_buffers become views: every access to the matched buffer is rewritten into an access
//     to the source buffer at the region's minimum plus the index (trailing dimensions aligned, as
//     the spec's Block semantics say), and symbolic shape / stride / elem_offset variables of the
//     matched buffer are bound with LetStmts to the region's extents and the source's layout;
//   * reads, writes, names and annotations are dropped.
//
// The root block of an s_tir function is a block like any other (no iter_vars), so it unwraps to
// its allocations and body. The "s_tir" function attribute is removed with the blocks.
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

// A matched buffer seen as (source buffer, offset of its first element in every source dim).
struct View {
  Buffer source;
  std::vector<PrimExpr> mins;
};

PrimExpr AddOffset(const PrimExpr& index, const PrimExpr& offset) {
  DataType t = WiderIndexType(index.dtype(), offset.dtype());
  PrimExpr off = CastTo(t, offset);
  if (index.dtype().is_vector()) off = Broadcast(off, index.dtype().lanes());
  return Add(CastTo(t, index), off);
}

// Variables the function defines other than through match_buffers: those are never rebound.
class DefinedVars : public StmtExprVisitor {
 public:
  std::unordered_set<const VarNode*> vars;
  void VisitStmt_(const ForNode* op) override {
    vars.insert(op->loop_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    vars.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    vars.insert(op->var.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void AddBuffer(const Buffer& b) {
    for (const PrimExpr& e : b->shape) AddIfVar(e);
    for (const PrimExpr& e : b->strides) AddIfVar(e);
    if (b->elem_offset.defined()) AddIfVar(b->elem_offset);
  }
  void AddIfVar(const PrimExpr& e) {
    if (const auto* v = e.as<VarNode>()) vars.insert(v);
  }
};

class Lowerer : public StmtExprMutator {
 public:
  Lowerer(std::string name, std::unordered_set<const VarNode*> defined)
      : name_(std::move(name)), bound_(std::move(defined)) {}
  absl::Status status() const { return status_; }

 private:
  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    Array<PrimExpr> values = VisitExprs(op->iter_values);
    if (values.size() != block->iter_vars.size()) {
      Fail(absl::StrCat("block ", block->name, " has ", block->iter_vars.size(), " iter_vars but ",
                        values.size(), " iter_values"));
      return GetRef<Stmt>(op);
    }
    VarMap vmap;
    for (size_t i = 0; i < values.size(); ++i) vmap[block->iter_vars[i]->var.get()] = values[i];

    std::vector<std::pair<Var, PrimExpr>> lets;
    for (const MatchBufferRegion& mb : block->match_buffers) {
      BindMatchBuffer(mb, vmap, &lets);
    }
    Stmt body = VisitStmt(Substitute(block->body, vmap));
    if (block->init.defined()) {
      Stmt init = VisitStmt(Substitute(block->init, vmap));
      PrimExpr cond;
      for (size_t i = 0; i < values.size(); ++i) {
        const IterVar& iv = block->iter_vars[i];
        if (iv->iter_type != IterVarType::kCommReduce) continue;
        PrimExpr min = iv->dom.defined() ? iv->dom->min : IntImm(values[i].dtype(), 0);
        PrimExpr first = EQ(values[i], CastTo(values[i].dtype(), Substitute(min, vmap)));
        cond = cond.defined() ? PrimExpr(And(cond, first)) : first;
      }
      body = SeqStmt::Flatten({cond.defined() ? Stmt(IfThenElse(cond, init)) : init, body});
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt(it->first, it->second, body);
    for (size_t i = block->alloc_buffers.size(); i-- > 0;) body = AllocBuffer(block->alloc_buffers[i], body);
    const auto* pred = op->predicate.defined() ? op->predicate.as<IntImmNode>() : nullptr;
    if (op->predicate.defined() && !(pred && pred->value != 0)) {
      body = IfThenElse(VisitExpr(op->predicate), body);
    }
    return body;
  }

  void BindMatchBuffer(const MatchBufferRegion& mb, const VarMap& vmap, std::vector<std::pair<Var, PrimExpr>>* lets) {
    const Buffer& buf = mb->buffer;
    Buffer src = mb->source->buffer;
    std::vector<PrimExpr> mins, extents;
    for (const Range& r : mb->source->region) {
      mins.push_back(Substitute(r->min, vmap));
      extents.push_back(Substitute(r->extent, vmap));
    }
    if (buf->shape.size() > mins.size()) {
      Fail(absl::StrCat("match_buffer ", buf->name, " has more dimensions than its source region"));
      return;
    }
    // The source may itself be a view of an enclosing block: compose the offsets.
    auto outer = views_.find(src.get());
    if (outer != views_.end()) {
      mins = Remap(outer->second, mins);
      src = outer->second.source;
    }
    size_t offset = mins.size() - buf->shape.size();
    arith::Analyzer analyzer;
    auto bind = [&](const PrimExpr& slot, const PrimExpr& value) {
      const auto* v = slot.as<VarNode>();
      if (v == nullptr || bound_.count(v)) return;
      bound_.insert(v);
      lets->push_back({GetRef<Var>(v), analyzer.Simplify(CastTo(v->dtype, value))});
    };
    for (size_t k = 0; k < buf->shape.size(); ++k) bind(buf->shape[k], extents[offset + k]);
    // Strides and elem_offset of the view, from the source's layout (compact unless declared).
    std::vector<PrimExpr> src_strides(src->shape.size());
    for (size_t k = src->shape.size(); k-- > 0;) {
      if (!src->strides.empty()) {
        src_strides[k] = src->strides[k];
      } else if (k + 1 == src->shape.size()) {
        src_strides[k] = IntImm(src->shape[k].dtype(), 1);
      } else {
        DataType t = WiderIndexType(src_strides[k + 1].dtype(), src->shape[k + 1].dtype());
        src_strides[k] = Mul(CastTo(t, src_strides[k + 1]), CastTo(t, src->shape[k + 1]));
      }
    }
    for (size_t k = 0; k < buf->strides.size() && offset + k < src_strides.size(); ++k) {
      bind(buf->strides[k], src_strides[offset + k]);
    }
    if (buf->elem_offset.defined() && src_strides.size() == mins.size()) {
      PrimExpr off = src->elem_offset.defined() ? src->elem_offset : IntImm(DataType::Int(32), 0);
      for (size_t k = 0; k < mins.size(); ++k) {
        DataType t = WiderIndexType(WiderIndexType(off.dtype(), mins[k].dtype()), src_strides[k].dtype());
        off = Add(CastTo(t, off), Mul(CastTo(t, mins[k]), CastTo(t, src_strides[k])));
      }
      bind(buf->elem_offset, off);
    }
    views_[buf.get()] = View{src, mins};
    keep_.push_back(buf);
  }

  // Indices into a view -> indices into its source.
  std::vector<PrimExpr> Remap(const View& view, const std::vector<PrimExpr>& indices) {
    size_t offset = view.mins.size() - indices.size();
    std::vector<PrimExpr> out;
    for (size_t k = 0; k < offset; ++k) out.push_back(view.mins[k]);
    for (size_t k = 0; k < indices.size(); ++k) out.push_back(AddOffset(indices[k], view.mins[offset + k]));
    return out;
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return e;
    const auto* load = e.as<BufferLoadNode>();
    BufferLoad out(it->second.source, Remap(it->second, load->indices.ToVector()), load->span);
    if (load->predicate.defined()) out.CopyOnWrite()->predicate = load->predicate;
    return out;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto it = views_.find(op->buffer.get());
    if (it == views_.end()) return s;
    const auto* store = s.as<BufferStoreNode>();
    BufferStore out(it->second.source, store->value, Remap(it->second, store->indices.ToVector()), store->span);
    if (store->predicate.defined()) out.CopyOnWrite()->predicate = store->predicate;
    return out;
  }

  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat(name_, ": ", msg));
  }

  std::string name_;
  absl::Status status_;
  std::unordered_map<const BufferNode*, View> views_;
  std::vector<Buffer> keep_;
  std::unordered_set<const VarNode*> bound_;
};

}  // namespace

absl::StatusOr<PrimFunc> LowerSBlocks(const PrimFunc& f, const std::string& name) {
  DefinedVars defined;
  for (const Var& p : f->params) defined.vars.insert(p.get());
  for (const auto& [param, buffer] : f->buffer_map.items()) defined.AddBuffer(buffer);
  defined.VisitStmt(f->body);
  Lowerer lowerer(name, std::move(defined.vars));
  Stmt body = lowerer.VisitStmt(f->body);
  if (!lowerer.status().ok()) return lowerer.status();
  PrimFunc out = f;
  PrimFuncNode* n = out.CopyOnWrite();
  n->body = body;
  n->attrs.erase(String("s_tir"));
  return out;
}

}  // namespace kiln::tir::transform
