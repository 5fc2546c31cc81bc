// StorageRewrite: lets allocations whose live ranges do not overlap share one allocation, so a
// kernel with several temporaries (one per stage, say) needs the memory of the largest instead of
// the sum. As TVM's StorageRewrite, for the allocations of a CPU kernel after flattening.
//
// Live ranges. Statements are numbered in execution order (an entry and an exit number each). An
// access to buffer X counts at the outermost loop that encloses the access inside X's AllocBuffer,
// or else at the statement making it: a temporary used in a loop is live for the whole loop, since
// the next iteration uses it again. X's live range is the hull of its accesses' intervals. Whatever
// X holds outside its range is never read (its AllocBuffer starts with undefined contents on
// every execution), so another buffer may use the memory then.
//
// Which allocations take part: constant size, no annotations, not under a parallel loop (each
// iteration there needs its own copy), and the data var only used through BufferLoad/BufferStore
// (a pointer handed to a call may be used anywhere). Buffers share when they have the same
// storage scope and dtype (so every access keeps its index, and vector accesses their alignment)
// and, as TVM does, sizes within a factor of 16 of each other (a scalar temporary does not pin a
// large buffer).
//
// Planning is greedy in order of range start: a buffer joins the first group of its scope and
// dtype whose members' ranges all end before it starts. Each group of two or more becomes one
// allocation at the top of the function body (hoisted out of the loops its members sat in: a new
// allocation per iteration and one reused allocation are the same when contents start undefined),
// sized for its largest member, aligned for the most demanding; the members' AllocBuffers go.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

constexpr int64_t kSizeMatchFactor = 16;

struct AllocInfo {
  const AllocBufferNode* alloc = nullptr;
  size_t loop_depth = 0;       // loops enclosing the AllocBuffer
  bool candidate = false;
  std::vector<const Object*> anchors;  // statements whose intervals make up the live range
  int64_t begin = 0, end = -1;
};

// Numbers statements and records, per allocation, where it is accessed.
class LivenessFinder : public StmtExprVisitor {
 public:
  std::unordered_map<const VarNode*, AllocInfo> allocs;
  std::vector<const VarNode*> order;  // allocations in program order
  std::unordered_map<const Object*, std::pair<int64_t, int64_t>> interval;

  void VisitStmt(const Stmt& s) override {
    int64_t enter = counter_++;
    const Object* saved = current_;
    current_ = s.get();
    StmtExprVisitor::VisitStmt(s);
    current_ = saved;
    interval[s.get()] = {enter, counter_++};
  }

 private:
  void VisitStmt_(const ForNode* op) override {
    bool parallel = op->kind == ForKind::kParallel || op->kind == ForKind::kThreadBinding;
    parallel_depth_ += parallel;
    loops_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
    parallel_depth_ -= parallel;
  }
  void VisitStmt_(const WhileNode* op) override {
    loops_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& b = op->buffer;
    AllocInfo info;
    info.alloc = op;
    info.loop_depth = loops_.size();
    info.candidate = parallel_depth_ == 0 && op->annotations.empty() && b->shape.size() == 1 &&
                     b->shape[0].as<IntImmNode>() != nullptr && b->shape[0].as<IntImmNode>()->value > 0;
    allocs[b->data.get()] = info;
    order.push_back(b->data.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const VarNode* op) override {
    // The data var as a value (a pointer passed on): the buffer may be used anywhere.
    auto it = allocs.find(op);
    if (it != allocs.end()) it->second.candidate = false;
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Access(op->buffer);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Access(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void Access(const Buffer& b) {
    auto it = allocs.find(b->data.get());
    if (it == allocs.end()) return;
    AllocInfo& info = it->second;
    info.anchors.push_back(loops_.size() > info.loop_depth ? loops_[info.loop_depth] : current_);
  }

  int64_t counter_ = 0;
  int parallel_depth_ = 0;
  const Object* current_ = nullptr;
  std::vector<const Object*> loops_;
};

struct Group {
  std::vector<const VarNode*> members;
  int64_t end = -1;
  int64_t extent = 0;
  Buffer buffer;  // the shared allocation
};

class Rewriter : public StmtExprMutator {
 public:
  explicit Rewriter(std::unordered_map<const VarNode*, Buffer> target) : target_(std::move(target)) {}

 private:
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    if (target_.count(op->buffer->data.get())) return VisitStmt(op->body);
    return StmtExprMutator::VisitStmt_(op);
  }
  // A dropped AllocBuffer's body may be a sequence inside a sequence.
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) seq.push_back(VisitStmt(s));
    return SeqStmt::Flatten(seq);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto it = target_.find(op->buffer->data.get());
    if (it == target_.end()) return e;
    BufferLoad load = Downcast<BufferLoad>(e);
    load.CopyOnWrite()->buffer = it->second;
    return load;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto it = target_.find(op->buffer->data.get());
    if (it == target_.end()) return s;
    BufferStore store = Downcast<BufferStore>(s);
    store.CopyOnWrite()->buffer = it->second;
    return store;
  }

  std::unordered_map<const VarNode*, Buffer> target_;
};

}  // namespace

PrimFunc StorageRewrite(const PrimFunc& f) {
  LivenessFinder finder;
  finder.VisitStmt(f->body);
  std::vector<const VarNode*> cands;
  for (const VarNode* v : finder.order) {
    AllocInfo& info = finder.allocs.at(v);
    if (!info.candidate || info.anchors.empty()) continue;
    info.begin = INT64_MAX;
    for (const Object* a : info.anchors) {
      const auto& iv = finder.interval.at(a);
      info.begin = std::min(info.begin, iv.first);
      info.end = std::max(info.end, iv.second);
    }
    cands.push_back(v);
  }
  std::stable_sort(cands.begin(), cands.end(), [&](const VarNode* a, const VarNode* b) {
    return finder.allocs.at(a).begin < finder.allocs.at(b).begin;
  });
  std::vector<Group> groups;
  for (const VarNode* v : cands) {
    const AllocInfo& info = finder.allocs.at(v);
    const Buffer& b = info.alloc->buffer;
    int64_t extent = b->shape[0].as<IntImmNode>()->value;
    Group* home = nullptr;
    for (Group& g : groups) {
      const Buffer& first = finder.allocs.at(g.members[0]).alloc->buffer;
      if (first->dtype != b->dtype || first->scope() != b->scope() || g.end >= info.begin) continue;
      if (extent * kSizeMatchFactor < g.extent || g.extent * kSizeMatchFactor < extent) continue;
      home = &g;
      break;
    }
    if (home == nullptr) {
      groups.emplace_back();
      home = &groups.back();
    }
    home->members.push_back(v);
    home->end = info.end;
    home->extent = std::max(home->extent, extent);
  }
  std::unordered_map<const VarNode*, Buffer> target;
  std::vector<Buffer> shared;
  for (Group& g : groups) {
    if (g.members.size() < 2) continue;
    const Buffer& first = finder.allocs.at(g.members[0]).alloc->buffer;
    Buffer nb = WithFlatShape(first, IntImm(first->shape[0].dtype(), g.extent));
    BufferNode* n = nb.CopyOnWrite();
    n->data = Var(first->data->name, first->data->ty);
    for (const VarNode* m : g.members) {
      n->data_alignment = std::max(n->data_alignment, finder.allocs.at(m).alloc->buffer->data_alignment);
      target[m] = nb;
    }
    shared.push_back(nb);
  }
  if (shared.empty()) return f;
  Stmt body = Rewriter(std::move(target)).VisitStmt(f->body);
  for (auto it = shared.rbegin(); it != shared.rend(); ++it) body = AllocBuffer(*it, body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
