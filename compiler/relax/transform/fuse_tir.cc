// FuseTIR: turns each "Primitive" Relax function that FuseOps made (a dataflow chain of call_tir
// bindings) into one s_tir PrimFunc of the same name, rewrites every call to it into a call_tir of
// that PrimFunc, then runs DeadCodeElimination so the PrimFuncs it merged disappear when nothing
// else calls them (TVM's FuseTIR).
//
// Why: FuseOps only decides what belongs together; the saving (one kernel, intermediates that
// never leave the kernel) exists once the chain is a single PrimFunc.
//
// How, per Primitive function:
//  * each tensor parameter becomes a buffer parameter (handle "p_<name>", buffer "<name>" of the
//    parameter's shape); an R.Prim parameter a scalar parameter; a shape parameter (FuseOps'
//    tir_vars) one scalar per dim;
//  * each call_tir's callee is copied with fresh variables and buffers (a kernel may be called
//    twice), its input buffers are replaced by the buffers of its arguments and its output buffers
//    by new "<name>_intermediate" buffers of the call's out_ty shape; the callee's symbolic shape
//    variables become the matching dims of those buffers, and its scalar parameters the PrimValue
//    arguments passed to them;
//  * the callees' root-block bodies run in order inside one root block that allocates the
//    intermediates (and the callees' own scratch buffers); the buffers the function returns become
//    the output parameters "p_output<k>"; block names are made unique (exp, exp1, ...);
//  * an intermediate that a simple elementwise block writes and a single load reads (with every
//    iterator of the reading block, so nothing is computed twice) is not materialized: the reading
//    block computes the value itself (TVM leaves this to a later compute_inline; on CPU, where no
//    scheduler runs after fusion, it is what removes the memory round trip of the fused chain).
// A call_tir_inplace writes into its argument's buffer; when that is a parameter of the function,
// the fused call becomes a call_tir_inplace overwriting the same argument (TVM's in-place FuseTIR).
// A Primitive function this cannot express (another kind of binding, tuple parameters, a tensor
// parameter of unknown shape, one parameter returned twice) is left as a Relax function: the VM
// runs it as is, unfused.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/ir/type_registry.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/ir_rewrite.h"
#include "compiler/relax/transform/op_pattern.h"
#include "compiler/relax/transform/passes.h"
#include "compiler/tir/functor.h"

namespace kiln::relax::transform {
namespace {

using namespace ir::relax;  // NOLINT
using ir::Array;
using ir::Buffer;
using ir::Downcast;
using ir::Expr;
using ir::ObjectRef;
using ir::PrimExpr;

bool IsScalarArg(const Expr& arg) {
  return arg.as<PrimValueNode>() != nullptr || arg->ty.as<ir::PrimTypeNode>() != nullptr;
}

bool IsOp(const Expr& e, const char* name) {
  const auto* op = e.as<ir::OpNode>();
  return op != nullptr && op->name == name;
}

// A copy of `func` in which every variable (and so every buffer) is a new object.
ir::PrimFunc RenewDefs(const ir::PrimFunc& func) {
  SubstMap fresh;
  WalkIR(func, [&](const ObjectRef& n) {
    if (n.as<ir::VarNode>() && !fresh.count(n.get())) {
      ir::ObjectPtr<ir::Object> copy = ir::TypeRegistry::Global().Find(n->kind())->create();
      ir::CopyFields(*n.get(), copy.get());
      fresh[n.get()] = ObjectRef(copy);
    }
    return true;
  });
  return Substitute(func, fresh);
}

// Gives blocks unique names in statement order: a repeated "exp" becomes "exp1", "exp2", ...
// (trailing digits of the original are the counter's start, as TVM does).
class BlockNameDeduplicator : public ir::StmtExprMutator {
 protected:
  using StmtExprMutator::VisitStmt_;
  ir::Stmt VisitStmt_(const ir::SBlockNode* op) override {
    ir::Stmt s = StmtExprMutator::VisitStmt_(op);
    std::string name = UniqueName(op->name);
    if (name == op->name) return s;
    ir::SBlock block = Downcast<ir::SBlock>(s);
    block.CopyOnWrite()->name = name;
    return block;
  }

 private:
  std::string UniqueName(const std::string& name) {
    if (used_.insert(name).second) return name;
    size_t base_len = name.size();
    while (base_len > 0 && std::isdigit(static_cast<unsigned char>(name[base_len - 1]))) --base_len;
    std::string base = name.substr(0, base_len);
    int64_t counter = base_len < name.size() && name.size() - base_len < 18 ? std::stoll(name.substr(base_len)) + 1 : 1;
    while (!used_.insert(absl::StrCat(base, counter)).second) ++counter;
    return absl::StrCat(base, counter);
  }
  std::unordered_set<std::string> used_;
};

bool IsConst(const PrimExpr& e, int64_t v) {
  const auto* imm = e.as<ir::IntImmNode>();
  return imm != nullptr && imm->value == v;
}

bool SameExtent(const PrimExpr& a, const PrimExpr& b) {
  const auto* ia = a.as<ir::IntImmNode>();
  const auto* ib = b.as<ir::IntImmNode>();
  if (ia != nullptr && ib != nullptr) return ia->value == ib->value;
  return a.same_as(b) || ir::StructuralEqual(a, b);
}

template <typename Node>
std::vector<const Node*> Collect(const ObjectRef& root, const std::function<bool(const Node*)>& pred) {
  std::vector<const Node*> out;
  WalkIR(root, [&](const ObjectRef& n) {
    if (const auto* x = n.as<Node>()) {
      if (pred(x)) out.push_back(x);
    }
    return true;
  });
  return out;
}

// Eliminates intermediate buffers that a consumer can compute directly: an intermediate written by
// one simple elementwise block (a perfect loop nest over the whole buffer, spatial iterators, the
// store at exactly its iterators) and read by exactly one scalar load, in a block whose every
// iterator that load's indices use (so no element is computed twice), has the load replaced by the
// stored value and the producer removed. Chains collapse one link at a time. Only the buffers FuseTIR
// made for call results are candidates: the callees' own scratch buffers keep their schedule.
class IntermediateInliner {
 public:
  IntermediateInliner(std::vector<ir::Stmt> stmts, std::vector<Buffer> allocs,
                      const std::unordered_set<const ir::Object*>& candidates)
      : stmts_(std::move(stmts)), allocs_(std::move(allocs)), candidates_(candidates) {}

  void Run() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < allocs_.size() && !changed; ++i) {
        if (candidates_.count(allocs_[i].get()) && TryInline(allocs_[i])) {
          allocs_.erase(allocs_.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
        }
      }
    }
  }
  const std::vector<ir::Stmt>& stmts() const { return stmts_; }
  const std::vector<Buffer>& allocs() const { return allocs_; }

 private:
  // Index of the top-level statement that contains `node`, or -1.
  int StmtIndexOf(const ir::Object* node) const {
    for (size_t t = 0; t < stmts_.size(); ++t) {
      bool found = false;
      WalkIR(stmts_[t], [&](const ObjectRef& n) {
        found = found || n.get() == node;
        return !found;
      });
      if (found) return static_cast<int>(t);
    }
    return -1;
  }

  // The block realize at the bottom of a perfect loop nest whose loops bind its iterators in order.
  static const ir::SBlockRealizeNode* PerfectNest(const ir::Stmt& stmt) {
    std::vector<const ir::ForNode*> loops;
    ir::Stmt cur = stmt;
    while (const auto* loop = cur.as<ir::ForNode>()) {
      if (!IsConst(loop->min, 0) || (loop->step.defined() && !IsConst(loop->step, 1))) return nullptr;
      loops.push_back(loop);
      cur = loop->body;
    }
    const auto* realize = cur.as<ir::SBlockRealizeNode>();
    if (realize == nullptr || realize->iter_values.size() != loops.size()) return nullptr;
    for (size_t k = 0; k < loops.size(); ++k) {
      const ir::IterVar& iv = realize->block->iter_vars[k];
      if (!realize->iter_values[k].same_as(loops[k]->loop_var) || !iv->dom.defined() ||
          !IsConst(iv->dom->min, 0) || !SameExtent(iv->dom->extent, loops[k]->extent)) {
        return nullptr;
      }
    }
    return realize;
  }

  bool TryInline(const Buffer& buffer) {
    ir::Stmt all = ir::SeqStmt::Flatten(stmts_);
    auto stores = Collect<ir::BufferStoreNode>(all, [&](const ir::BufferStoreNode* s) { return s->buffer.same_as(buffer); });
    auto loads = Collect<ir::BufferLoadNode>(all, [&](const ir::BufferLoadNode* l) { return l->buffer.same_as(buffer); });
    if (stores.size() != 1 || loads.size() != 1) return false;
    const ir::BufferStoreNode* store = stores[0];
    const ir::BufferLoadNode* load = loads[0];
    if (store->predicate.defined() || load->predicate.defined() || load->dtype.lanes() != 1) return false;

    // The producer.
    int t = StmtIndexOf(store);
    const ir::SBlockRealizeNode* realize = t >= 0 ? PerfectNest(stmts_[t]) : nullptr;
    if (realize == nullptr || !IsConst(realize->predicate, 1)) return false;
    const ir::SBlockNode* producer = realize->block.get();
    if (!producer->body.same_as(ObjectRef(ir::GetRef<ir::Stmt>(store))) || producer->init.defined() ||
        !producer->alloc_buffers.empty() || !producer->match_buffers.empty() ||
        store->indices.size() != producer->iter_vars.size() || buffer->shape.size() != store->indices.size()) {
      return false;
    }
    SubstMap iter_to_index;
    for (size_t k = 0; k < producer->iter_vars.size(); ++k) {
      const ir::IterVar& iv = producer->iter_vars[k];
      if (iv->iter_type != ir::IterVarType::kDataPar || !store->indices[k].same_as(iv->var) ||
          !SameExtent(iv->dom->extent, buffer->shape[k])) {
        return false;
      }
      iter_to_index[iv->var.get()] = load->indices[k];
    }
    // What the producer reads must be final when it runs: written only by earlier statements.
    for (const ir::BufferLoadNode* in : Collect<ir::BufferLoadNode>(store->value, [](const ir::BufferLoadNode*) { return true; })) {
      for (const ir::BufferStoreNode* w : Collect<ir::BufferStoreNode>(all, [&](const ir::BufferStoreNode* s) { return s->buffer.same_as(in->buffer); })) {
        int at = StmtIndexOf(w);
        if (at < 0 || at >= t) return false;
      }
    }

    // The consumer: the block whose body (not init, not a nested block) holds the load.
    const ir::SBlockNode* consumer = nullptr;
    for (const ir::SBlockNode* b : Collect<ir::SBlockNode>(all, [](const ir::SBlockNode*) { return true; })) {
      bool found = false;
      WalkIR(b->body, [&](const ObjectRef& n) {
        if (n.as<ir::SBlockNode>()) return false;
        found = found || n.get() == load;
        return !found;
      });
      if (found) consumer = b;
    }
    if (consumer == nullptr || StmtIndexOf(consumer) <= t) return false;
    std::unordered_set<const ir::Object*> index_vars;
    for (const PrimExpr& idx : load->indices) {
      WalkIR(idx, [&](const ObjectRef& n) {
        if (n.as<ir::VarNode>()) index_vars.insert(n.get());
        return true;
      });
    }
    for (const ir::IterVar& iv : consumer->iter_vars) {
      if (!index_vars.count(iv->var.get())) return false;  // some element would be computed repeatedly
    }

    // Rewrite: the load becomes the value; the consumer reads what the producer read.
    PrimExpr value = Substitute(store->value, iter_to_index);
    ir::SBlock block = ir::GetRef<ir::SBlock>(consumer);
    ir::SBlockNode* n = block.CopyOnWrite();
    n->body = Substitute(consumer->body, SubstMap{{load, value}});
    Array<ir::BufferRegion> reads;
    for (const ir::BufferRegion& r : consumer->reads) {
      if (!r->buffer.same_as(buffer)) reads.push_back(r);
    }
    for (const ir::BufferRegion& r : producer->reads) {
      ir::BufferRegion moved = Substitute(r, iter_to_index);
      bool dup = false;
      for (const ir::BufferRegion& have : reads) dup = dup || ir::StructuralEqual(have, moved);
      if (!dup) reads.push_back(moved);
    }
    n->reads = reads;
    std::vector<ir::Stmt> next;
    SubstMap replace{{consumer, block}};
    for (size_t i = 0; i < stmts_.size(); ++i) {
      if (static_cast<int>(i) != t) next.push_back(Substitute(stmts_[i], replace));
    }
    stmts_ = std::move(next);
    return true;
  }

  std::vector<ir::Stmt> stmts_;
  std::vector<Buffer> allocs_;
  const std::unordered_set<const ir::Object*>& candidates_;
};

// Builds the fused PrimFunc of one Primitive function.
class FusedTIRBuilder {
 public:
  explicit FusedTIRBuilder(const ir::IRModule& module) : module_(module) {}

  absl::StatusOr<ir::PrimFunc> Build(const Function& func) {
    for (const ir::Var& p : func->params) {
      if (const auto* tensor = p->ty.as<ir::TensorTypeNode>()) {
        const auto* shape = tensor->shape.as<ShapeExprNode>();
        if (shape == nullptr || tensor->dtype.is_void()) return Unsupported("a tensor parameter of unknown shape");
        Buffer buffer = Buffer::Make(p->name, shape->values, tensor->dtype);
        ir::Var handle("p_" + p->name, ir::DataType::Handle());
        params_.push_back(handle);
        buffer_map_.Set(handle, buffer);
        buffers_of_[p.get()] = {buffer};
        param_buffers_.insert(buffer.get());
      } else if (const auto* prim = p->ty.as<ir::PrimTypeNode>()) {
        if (prim->value.defined()) return Unsupported("a parameter of known prim value");
        ir::Var scalar(p->name, prim->dtype);
        params_.push_back(scalar);
        scalar_of_[p.get()] = scalar;
      } else if (const auto* shape = p->ty.as<ir::ShapeTypeNode>()) {
        for (const PrimExpr& v : shape->values) {
          if (!v.as<ir::VarNode>()) return Unsupported("a shape parameter that is not symbolic variables");
          params_.push_back(Downcast<ir::Var>(v));
        }
      } else {
        return Unsupported("a parameter that is neither a tensor nor a shape");
      }
    }
    const auto* seq = func->body.as<SeqExprNode>();
    if (seq == nullptr) return Unsupported("a body that is not a SeqExpr");
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block->bindings) {
        const auto* vb = b.as<VarBindingNode>();
        if (vb == nullptr) return Unsupported("a match_cast");
        absl::Status st = VisitBinding(vb);
        if (!st.ok()) return st;
      }
    }
    std::vector<Buffer> outputs;
    absl::Status st = BuffersOf(seq->body, &outputs);
    if (!st.ok()) return st;
    // A result that is a parameter's buffer was written in place: the fused call overwrites that
    // argument (call_tir_inplace) instead of taking an output parameter.
    std::unordered_set<const ir::Object*> output_set;
    size_t num_inputs = params_.size();
    int fresh = 0;
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (param_buffers_.count(outputs[k].get())) {
        int64_t index = -1;
        for (size_t p = 0; p < num_inputs; ++p) {
          if (buffer_map_.count(params_[p]) && buffer_map_.Get(params_[p]).same_as(outputs[k])) index = static_cast<int64_t>(p);
        }
        for (int64_t used : inplace_indices_) {
          if (used == index) return Unsupported("one parameter returned twice");
        }
        inplace_indices_.push_back(index);
        continue;
      }
      inplace_indices_.push_back(-1);
      ir::Var handle(absl::StrCat("p_output", fresh++), ir::DataType::Handle());
      params_.push_back(handle);
      buffer_map_.Set(handle, outputs[k]);
      output_set.insert(outputs[k].get());
    }
    Array<Buffer> allocs;
    for (const Buffer& b : allocs_) {
      if (!output_set.count(b.get())) allocs.push_back(b);
    }

    // Callee buffers and variables -> the fused function's (one substitution, so that a buffer
    // rebuilt for a new shape is the same object in the allocations and in the body), then the
    // intermediates a consumer can compute directly are inlined.
    auto staged = ir::make_object<ir::SBlockNode>();
    staged->name = "root";
    staged->body = ir::SeqStmt::Flatten(bodies_);
    staged->alloc_buffers = allocs;
    ir::SBlock substituted = Substitute(ir::SBlock(ir::ObjectPtr<ir::Object>(std::move(staged))), subst_);
    std::vector<ir::Stmt> stmts;
    if (const auto* flat = substituted->body.as<ir::SeqStmtNode>()) {
      stmts = flat->seq.ToVector();
    } else {
      stmts.push_back(substituted->body);
    }
    std::vector<Buffer> alloc_list = substituted->alloc_buffers.ToVector();
    IntermediateInliner inliner(std::move(stmts), std::move(alloc_list), intermediates_);
    inliner.Run();

    auto root = ir::make_object<ir::SBlockNode>();
    root->name = "root";
    root->body = BlockNameDeduplicator().VisitStmt(ir::SeqStmt::Flatten(inliner.stmts()));
    root->alloc_buffers = Array<Buffer>(inliner.allocs());
    ir::Stmt body = ir::SBlockRealize({}, ir::IntImm(ir::DataType::Bool(), 1), ir::SBlock(ir::ObjectPtr<ir::Object>(std::move(root))));
    ir::Map<ir::String, ObjectRef> attrs;
    attrs.Set(ir::String("tirx.noalias"), ir::IntImm(ir::DataType::Bool(), 1));
    attrs.Set(ir::String("s_tir"), ir::IntImm(ir::DataType::Bool(), 1));
    return ir::PrimFunc(Array<ir::Var>(params_), body, ir::Type(), buffer_map_, attrs);
  }

  // Per result of the function: the parameter it overwrites, or -1 (a fresh output). Set by Build.
  const std::vector<int64_t>& inplace_indices() const { return inplace_indices_; }

 private:
  static absl::Status Unsupported(const std::string& what) {
    return absl::UnimplementedError(absl::StrCat("FuseTIR: ", what, " in a Primitive function"));
  }

  absl::Status BuffersOf(const Expr& e, std::vector<Buffer>* out) {
    if (const auto* tuple = e.as<TupleNode>()) {
      for (const Expr& f : tuple->fields) {
        absl::Status st = BuffersOf(f, out);
        if (!st.ok()) return st;
      }
      return absl::OkStatus();
    }
    auto it = buffers_of_.find(e.get());
    if (it == buffers_of_.end()) return Unsupported("a value that is not a tensor computed by call_tir");
    out->insert(out->end(), it->second.begin(), it->second.end());
    return absl::OkStatus();
  }

  // Binds the callee's symbolic shape variable `from` (if it is one) to `to`.
  void MatchShape(const Array<PrimExpr>& from, const Array<PrimExpr>& to) {
    for (size_t i = 0; i < from.size() && i < to.size(); ++i) {
      if (from[i].as<ir::VarNode>() && !subst_.count(from[i].get())) subst_[from[i].get()] = to[i];
    }
  }

  absl::Status VisitBinding(const VarBindingNode* vb) {
    if (const auto* item = vb->value.as<TupleGetItemNode>()) {
      auto it = buffers_of_.find(item->tuple.get());
      if (it == buffers_of_.end() || item->index < 0 || static_cast<size_t>(item->index) >= it->second.size()) {
        return Unsupported("a tuple item of an unknown tuple");
      }
      buffers_of_[vb->var.get()] = {it->second[item->index]};
      return absl::OkStatus();
    }
    const auto* call = vb->value.as<CallNode>();
    bool inplace = call != nullptr && IsOp(call->op, "relax.call_tir_inplace");
    if (call == nullptr || (!IsOp(call->op, "relax.call_tir") && !inplace) || call->args.size() != 2 ||
        call->ty_args.empty()) {
      return Unsupported("a binding other than call_tir, call_tir_inplace or a tuple item");
    }
    const auto* gv = call->args[0].as<ir::GlobalVarNode>();
    const auto* args = call->args[1].as<TupleNode>();
    ir::PrimFunc callee = gv ? Downcast<ir::PrimFunc>(module_.Lookup(gv->name)) : ir::PrimFunc();
    if (!callee.defined() || args == nullptr) return Unsupported("a call_tir without a PrimFunc and argument tuple");
    callee = RenewDefs(callee);

    // Output shapes from out_ty (one type, a tuple type, or one type per output).
    std::vector<const ir::TensorTypeNode*> out_tys;
    if (const auto* tt = call->ty_args.size() == 1 ? call->ty_args[0].as<ir::TupleTypeNode>() : nullptr) {
      for (const ir::Type& f : tt->fields) out_tys.push_back(f.as<ir::TensorTypeNode>());
    } else {
      for (const ir::Type& t : call->ty_args) out_tys.push_back(t.as<ir::TensorTypeNode>());
    }
    // call_tir_inplace: output j overwrites argument inplace[j] (or is fresh, -1); only the fresh
    // outputs are parameters of the callee.
    std::vector<int64_t> inplace_idx(out_tys.size(), -1);
    if (inplace) {
      std::optional<std::vector<int64_t>> idx = IntArrayAttr(ir::GetRef<Call>(call), "inplace_indices");
      if (!idx.has_value() || idx->size() != out_tys.size()) return Unsupported("a call_tir_inplace without inplace_indices");
      inplace_idx = *idx;
    }
    // Which call_tir value each callee parameter receives (an input index, or -1 - output index),
    // by CallTIRRewrite's rule: the argument tuple then the outputs, or else tensors, outputs, scalars.
    size_t num_in = args->fields.size();
    std::vector<int> positional, legacy;
    for (size_t i = 0; i < num_in; ++i) positional.push_back(static_cast<int>(i));
    for (size_t j = 0; j < out_tys.size(); ++j) if (inplace_idx[j] < 0) positional.push_back(-1 - static_cast<int>(j));
    for (size_t i = 0; i < num_in; ++i) if (!IsScalarArg(args->fields[i])) legacy.push_back(static_cast<int>(i));
    for (size_t j = 0; j < out_tys.size(); ++j) if (inplace_idx[j] < 0) legacy.push_back(-1 - static_cast<int>(j));
    for (size_t i = 0; i < num_in; ++i) if (IsScalarArg(args->fields[i])) legacy.push_back(static_cast<int>(i));
    auto fits = [&](const std::vector<int>& order) {
      if (order.size() != callee->params.size()) return false;
      for (size_t p = 0; p < order.size(); ++p) {
        bool is_buffer = callee->buffer_map.count(callee->params[p]) > 0;
        bool wants_buffer = order[p] < 0 || !IsScalarArg(args->fields[order[p]]);
        if (is_buffer != wants_buffer) return false;
      }
      return true;
    };
    const std::vector<int>* order = fits(positional) ? &positional : fits(legacy) ? &legacy : nullptr;
    if (order == nullptr) return Unsupported("a call_tir whose arguments do not fit its PrimFunc's parameters");

    std::vector<Buffer> results(out_tys.size());
    for (size_t j = 0; j < out_tys.size(); ++j) {
      if (inplace_idx[j] < 0) continue;
      if (static_cast<size_t>(inplace_idx[j]) >= num_in) return Unsupported("an inplace index out of range");
      auto it = buffers_of_.find(args->fields[inplace_idx[j]].get());
      if (it == buffers_of_.end() || it->second.size() != 1) return Unsupported("an in-place argument that is not a tensor");
      results[j] = it->second[0];
    }
    for (size_t p = 0; p < order->size(); ++p) {
      const ir::Var& param = callee->params[p];
      int src = (*order)[p];
      if (src < 0) {
        size_t j = static_cast<size_t>(-1 - src);
        const auto* shape = out_tys[j] ? out_tys[j]->shape.as<ShapeExprNode>() : nullptr;
        if (shape == nullptr) return Unsupported("a call_tir output of unknown shape");
        Buffer from = callee->buffer_map.Get(param);
        Buffer inter = Buffer::Make(UniqueAllocName(from->name + "_intermediate"), shape->values, from->dtype, from->scope());
        MatchShape(from->shape, shape->values);
        subst_[from.get()] = inter;
        subst_[from->data.get()] = inter->data;
        allocs_.push_back(inter);
        intermediates_.insert(inter.get());
        results[j] = inter;
        continue;
      }
      const Expr& arg = args->fields[src];
      if (callee->buffer_map.count(param)) {
        auto it = buffers_of_.find(arg.get());
        if (it == buffers_of_.end() || it->second.size() != 1) return Unsupported("a tensor argument that is not a parameter or a call_tir result");
        Buffer from = callee->buffer_map.Get(param);
        MatchShape(from->shape, it->second[0]->shape);
        subst_[from.get()] = it->second[0];
        subst_[from->data.get()] = it->second[0]->data;
      } else if (const auto* pv = arg.as<PrimValueNode>()) {
        subst_[param.get()] = pv->value;
      } else if (scalar_of_.count(arg.get())) {
        subst_[param.get()] = scalar_of_.at(arg.get());
      } else {
        return Unsupported("a scalar argument that is neither a PrimValue nor an R.Prim parameter");
      }
    }
    buffers_of_[vb->var.get()] = results;

    const auto* realize = callee->body.as<ir::SBlockRealizeNode>();
    if (realize != nullptr && realize->block->name == "root") {
      for (const Buffer& b : realize->block->alloc_buffers) allocs_.push_back(b);
      bodies_.push_back(realize->block->body);
    } else {
      bodies_.push_back(callee->body);
    }
    return absl::OkStatus();
  }

  std::string UniqueAllocName(const std::string& name) {
    std::unordered_set<std::string> names;
    for (const Buffer& b : allocs_) names.insert(b->name);
    std::string unique = name;
    for (int k = 1; names.count(unique); ++k) unique = absl::StrCat(name, "_", k);
    return unique;
  }

  const ir::IRModule& module_;
  std::vector<ir::Var> params_;
  ir::Map<ir::Var, Buffer> buffer_map_;
  std::unordered_map<const ir::Object*, std::vector<Buffer>> buffers_of_;  // relax value -> buffers
  std::unordered_set<const ir::Object*> param_buffers_;
  std::unordered_map<const ir::Object*, ir::Var> scalar_of_;  // R.Prim parameter -> scalar param
  std::vector<int64_t> inplace_indices_;
  std::vector<Buffer> allocs_;
  std::unordered_set<const ir::Object*> intermediates_;  // the allocs_ made for call results
  std::vector<ir::Stmt> bodies_;
  SubstMap subst_;  // callee buffers, data vars and symbolic vars -> fused ones
};

bool IsPrimitive(const ir::BaseFunc& f) {
  const auto* imm = f->attrs.Get(ir::String(kPrimitiveAttr)).as<ir::IntImmNode>();
  return f.as<FunctionNode>() != nullptr && imm != nullptr && imm->value != 0;
}

// call_tir(fused, (args with shape arguments spread into PrimValues), out_ty = the call's type), or
// call_tir_inplace when some result overwrites an argument.
Expr RewriteCall(const CallNode* call, const ir::GlobalVar& fused, const Function& primitive,
                 const std::vector<int64_t>& inplace_indices) {
  Array<Expr> args;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const Expr& arg = call->args[i];
    const auto* shape = arg.as<ShapeExprNode>();
    if (i < primitive->params.size() && primitive->params[i]->ty.as<ir::ShapeTypeNode>() && shape != nullptr) {
      for (const PrimExpr& v : shape->values) {
        PrimValue pv(v);
        pv.CopyOnWrite()->ty = ir::PrimType(v.dtype());
        args.push_back(pv);
      }
    } else {
      args.push_back(arg);
    }
  }
  Tuple tuple(args);
  tuple.CopyOnWrite()->ty = ExprType(tuple);
  bool inplace = std::any_of(inplace_indices.begin(), inplace_indices.end(), [](int64_t i) { return i >= 0; });
  ir::Map<ir::String, ObjectRef> attrs;
  if (inplace) {
    Array<ir::IntImm> indices;
    for (int64_t i : inplace_indices) indices.push_back(ir::IntImm(ir::DataType::Int(64), i));
    attrs.Set(ir::String("inplace_indices"), indices);
  }
  // out_ty as the parser writes it: one type, or one per result (out_ty=[a, b]).
  Array<ir::Type> out_ty{call->ty};
  if (const auto* tt = call->ty.as<ir::TupleTypeNode>()) out_ty = tt->fields;
  Call out(ir::Op(inplace ? "relax.call_tir_inplace" : "relax.call_tir"), Array<Expr>{fused, tuple}, attrs, out_ty,
           call->span);
  out.CopyOnWrite()->ty = call->ty;
  return out;
}

}  // namespace

absl::StatusOr<ir::IRModule> FuseTIR(const ir::IRModule& module) {
  ir::IRModule out = module;
  struct Replaced {
    Function primitive;
    std::vector<int64_t> inplace_indices;
  };
  std::unordered_map<std::string, Replaced> fused;  // Primitive functions replaced by PrimFuncs
  for (const auto& [gv, func] : module.Functions()) {
    if (!IsPrimitive(func)) continue;
    Function primitive = Downcast<Function>(func);
    FusedTIRBuilder builder(module);
    absl::StatusOr<ir::PrimFunc> prim = builder.Build(primitive);
    if (absl::IsUnimplemented(prim.status())) continue;  // stays a Relax function
    if (!prim.ok()) return prim.status();
    out.Add(ir::GlobalVar(gv->name), *prim);  // a fresh GlobalVar: the old one is typed as a Relax function
    fused.emplace(gv->name, Replaced{primitive, builder.inplace_indices()});
  }
  if (fused.empty()) return DeadCodeElimination(out);

  for (const auto& [gv, func] : out.Functions()) {
    if (!func.as<FunctionNode>()) continue;
    SubstMap calls;
    WalkIR(func, [&](const ObjectRef& n) {
      const auto* call = n.as<CallNode>();
      const auto* callee = call ? call->op.as<ir::GlobalVarNode>() : nullptr;
      if (callee != nullptr) {
        auto it = fused.find(callee->name);
        if (it != fused.end()) {
          calls[call] = RewriteCall(call, out.GetGlobalVar(callee->name), it->second.primitive, it->second.inplace_indices);
        }
      }
      return true;
    });
    if (!calls.empty()) out.Add(gv, Substitute(func, calls));
  }
  return DeadCodeElimination(out);
}

}  // namespace kiln::relax::transform
