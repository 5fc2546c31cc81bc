// FuseOps: groups the call_tir bindings of each dataflow block by their callees' op_pattern
// (AnnotateTIROpPattern) and moves every group of two or more into a new private Relax function
// marked "Primitive", called once in the group's place. FuseTIR then turns each such function into
// one PrimFunc.
//
// Why: each call_tir is a separate kernel that writes its whole output to memory; fusing an
// elementwise consumer into its producer (matmul + bias + relu, exp + divide) removes those
// round trips, and is what makes the CPU pipeline competitive.
//
// The grouping is TVM's (src/relax/analysis/graph_partitioner.cc): a dataflow graph over the block's
// bindings, its post-dominator tree, and three phases that fuse a node into its immediate
// post-dominator when every node on the paths between them has a fusable pattern:
//   phase 0: an out-elementwise-fusable node (matmul, conv) takes an elementwise post-dominator
//            when the path is elementwise/broadcast;
//   phases 0-2: an elementwise/broadcast node fuses into an injective or reduction post-dominator
//            through injective paths (the sink may be any fusable kind);
//   phase 1: an injective node fuses through injective paths into an injective post-dominator.
// Opaque nodes (other calls, PrimFuncs without a pattern, match_cast) never fuse; outputs of the
// block (non-dataflow vars) end groups but may be produced by them. A group's function returns
// every value used outside it, as a tuple when there are several; a field of a tuple made outside
// the group is read in the caller and passed as a tensor (FuseTIR takes no tuple parameters).
// Groups are named after their callees ("fused_matmul_add_relu"); identical groups share one
// function.
#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/ir/type_registry.h"
#include "compiler/relax/transform/ir_rewrite.h"
#include "compiler/relax/transform/op_pattern.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {
namespace {

using namespace ir::relax;  // NOLINT
using ir::Array;
using ir::Downcast;
using ir::Expr;
using ir::ObjectRef;

constexpr int kMaxFusedOps = 256;

bool IsCallTIR(const CallNode* call) {
  const auto* op = call->op.as<ir::OpNode>();
  return op != nullptr && (op->name == "relax.call_tir" || op->name == "relax.call_tir_inplace");
}

// The dataflow graph of one block: one node per binding, in binding order (a topological order).
struct Graph {
  struct Edge {
    int node;
    OpPatternKind pattern;
  };
  struct Node {
    OpPatternKind pattern = kOpaque;
    bool extern_ref = false;  // a block output: may end a group, never sit inside one
    std::vector<Edge> outputs;
  };
  std::vector<Node> nodes;
};

Graph BuildGraph(const Array<Binding>& bindings, const ir::IRModule& module) {
  Graph g;
  g.nodes.resize(bindings.size());
  std::unordered_map<const ir::Object*, int> def;
  for (size_t i = 0; i < bindings.size(); ++i) def[bindings[i]->var.get()] = static_cast<int>(i);

  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    Graph::Node& node = g.nodes[i];
    node.extern_ref = b->var.as<DataflowVarNode>() == nullptr;
    std::vector<Expr> leaves;
    const auto* vb = b.as<VarBindingNode>();
    const auto* call = vb ? vb->value.as<CallNode>() : nullptr;
    if (call != nullptr && IsCallTIR(call) && call->args.size() >= 2) {
      const auto* gv = call->args[0].as<ir::GlobalVarNode>();
      ir::BaseFunc callee = gv ? module.Lookup(gv->name) : ir::BaseFunc();
      node.pattern = callee.as<ir::PrimFuncNode>() ? GetOpPattern(callee) : kOpaque;
      if (const auto* tuple = call->args[1].as<TupleNode>()) {
        for (const Expr& f : tuple->fields) leaves.push_back(f);
      } else {
        leaves.push_back(call->args[1]);
      }
    } else if (vb != nullptr && vb->value.as<TupleGetItemNode>()) {
      node.pattern = kInjective;
      leaves.push_back(vb->value.as<TupleGetItemNode>()->tuple);
    } else if (vb != nullptr) {
      node.pattern = kOpaque;
      WalkIR(vb->value, [&](const ObjectRef& n) {
        if (n.as<ir::VarNode>()) leaves.push_back(Downcast<Expr>(n));
        return n.as<FunctionNode>() == nullptr;
      });
    }
    // A match_cast is an opaque node without incoming edges, as in TVM: what it reads may still be
    // fused, and is then returned by its group.
    for (const Expr& leaf : leaves) {
      auto it = def.find(leaf.get());
      if (it != def.end()) g.nodes[it->second].outputs.push_back({static_cast<int>(i), node.pattern});
    }
  }
  return g;
}

// The post-dominator tree of a DAG given in topological order, by least common ancestors.
struct PostDomTree {
  struct Node {
    int parent = -1;
    int depth = 1;
    OpPatternKind pattern = kOpaque;  // the worst edge pattern on the way to the parent
  };
  std::vector<Node> nodes;

  explicit PostDomTree(const Graph& g) : nodes(g.nodes.size()) {
    for (size_t i = g.nodes.size(); i-- > 0;) {
      const Graph::Node& gn = g.nodes[i];
      Node& n = nodes[i];
      if (gn.extern_ref) continue;  // parent -1, depth 1, opaque
      n.pattern = kElemWise;
      if (gn.outputs.empty()) continue;
      int parent = gn.outputs[0].node;
      n.pattern = std::max(n.pattern, gn.outputs[0].pattern);
      for (size_t k = 1; k < gn.outputs.size(); ++k) {
        parent = Lca(parent, gn.outputs[k].node, &n.pattern);
        n.pattern = std::max(n.pattern, gn.outputs[k].pattern);
      }
      n.parent = parent;
      n.depth = parent >= 0 ? nodes[parent].depth + 1 : 1;
    }
  }

 private:
  int Lca(int a, int b, OpPatternKind* pattern) const {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (nodes[a].depth < nodes[b].depth) {
        *pattern = std::max(*pattern, nodes[b].pattern);
        b = nodes[b].parent;
      } else if (nodes[b].depth < nodes[a].depth) {
        *pattern = std::max(*pattern, nodes[a].pattern);
        a = nodes[a].parent;
      } else {
        *pattern = std::max({*pattern, nodes[a].pattern, nodes[b].pattern});
        a = nodes[a].parent;
        b = nodes[b].parent;
      }
    }
    return a;
  }
};

// Union-find over graph nodes, with TVM's fusion phases.
class Partitioner {
 public:
  struct Group {
    int parent = -1;
    OpPatternKind pattern = kOpaque;
    bool has_anchor = false;  // holds an out-elementwise-fusable node
    int num_nodes = 1;
  };

  Partitioner(const Graph& graph, const PostDomTree& dom) : graph_(graph), dom_(dom), groups_(graph.nodes.size()) {
    for (size_t i = 0; i < groups_.size(); ++i) {
      groups_[i].pattern = graph.nodes[i].pattern;
      groups_[i].has_anchor = groups_[i].pattern == kOutEWiseFusable;
    }
    for (int phase = 0; phase < 3; ++phase) RunFuse(phase);
  }

  int Find(int i) {
    int root = i;
    while (groups_[root].parent >= 0) root = groups_[root].parent;
    while (groups_[i].parent >= 0) {
      int next = groups_[i].parent;
      groups_[i].parent = root;
      i = next;
    }
    return root;
  }
  const Group& group(int i) const { return groups_[i]; }

 private:
  using Cond = std::function<bool(OpPatternKind, bool)>;

  bool CheckPathFrom(int node, int sink, const Cond& cond) {
    if (!visited_.insert(node).second) return true;
    if (!cond(groups_[Find(node)].pattern, node == sink)) return false;
    if (node == sink) return true;
    for (const Graph::Edge& e : graph_.nodes[node].outputs) {
      if (!CheckPathFrom(e.node, sink, cond)) return false;
    }
    return true;
  }
  bool CheckPath(int src, int sink, const Cond& cond) {
    visited_.clear();
    for (const Graph::Edge& e : graph_.nodes[src].outputs) {
      if (!CheckPathFrom(e.node, sink, cond)) return false;
    }
    return true;
  }

  void MergeFromTo(int child, int parent) {
    child = Find(child);
    parent = Find(parent);
    if (child == parent) return;
    groups_[parent].num_nodes += groups_[child].num_nodes;
    groups_[child].parent = parent;
    if (groups_[child].has_anchor) {
      groups_[parent].has_anchor = true;
      groups_[parent].pattern = std::max(groups_[parent].pattern, groups_[child].pattern);
    }
  }
  void CommitFuseFrom(int node, int sink) {
    if (node == sink || !visited_.insert(node).second) return;
    MergeFromTo(node, sink);
    for (const Graph::Edge& e : graph_.nodes[node].outputs) CommitFuseFrom(e.node, sink);
  }
  void CommitFuse(int src, int sink) {
    visited_.clear();
    CommitFuseFrom(src, sink);
  }

  int CountNodesUpToSink(int node, int sink) {
    if (node == sink || !visited_.insert(node).second) return 0;
    int sum = groups_[node].num_nodes;
    for (const Graph::Edge& e : graph_.nodes[node].outputs) sum += CountNodesUpToSink(e.node, sink);
    return sum;
  }

  void RunFuse(int phase) {
    for (size_t i = 0; i < groups_.size(); ++i) {
      int nid = static_cast<int>(i);
      OpPatternKind pattern = groups_[nid].pattern;
      int dom_parent = dom_.nodes[nid].parent;
      if (pattern == kOpaque || dom_parent < 0) continue;
      visited_.clear();
      if (groups_[Find(dom_parent)].num_nodes + CountNodesUpToSink(nid, dom_parent) > kMaxFusedOps) continue;
      if (phase == 2) {
        // Injective ops into an intermediate tuple that was fused into injective consumers.
        if (pattern > kInjective) continue;
        const Group& root = groups_[Find(dom_parent)];
        if (root.pattern == kTuple) continue;
        if (groups_[dom_parent].pattern == kTuple && root.pattern <= kInjective &&
            CheckPath(nid, dom_parent, [](OpPatternKind k, bool) { return k <= kInjective; })) {
          CommitFuse(nid, dom_parent);
        }
        continue;
      }
      if (Find(nid) == Find(dom_parent)) continue;
      if (groups_[dom_parent].pattern == kTuple) continue;
      OpPatternKind dom_pattern = dom_.nodes[nid].pattern;
      if (pattern == kOutEWiseFusable) {
        if (phase != 0 || dom_pattern != kElemWise) continue;
        if (CheckPath(nid, dom_parent, [](OpPatternKind k, bool) { return k <= kBroadcast; })) {
          CommitFuse(nid, dom_parent);
        }
      } else if (pattern <= kBroadcast) {
        if (dom_pattern > kInjective && dom_pattern != kCommReduce) continue;
        auto cond = [](OpPatternKind k, bool is_sink) {
          return is_sink ? (k <= kInjective || k == kCommReduce || k == kOutEWiseFusable) : k <= kInjective;
        };
        if (CheckPath(nid, dom_parent, cond)) CommitFuse(nid, dom_parent);
      } else if (pattern == kInjective || pattern == kTuple) {
        if (phase != 1) continue;
        if (CheckPath(nid, dom_parent, [](OpPatternKind k, bool) { return k <= kInjective; })) {
          CommitFuse(nid, dom_parent);
        }
      }
    }
  }

  const Graph& graph_;
  const PostDomTree& dom_;
  std::vector<Group> groups_;
  std::unordered_set<int> visited_;
};

// Symbolic (TIR) variables: Vars with a dtype that are not Relax values (an R.Prim value also has
// a dtype, so the function's own Relax variables are excluded by identity).
bool IsSymbolicVar(const ObjectRef& n, const std::unordered_set<const ir::Object*>& relax_vars) {
  const auto* v = n.as<ir::VarNode>();
  return v != nullptr && !v->dtype.is_void() && !relax_vars.count(v);
}

// One group's new function: parameters for what it uses from outside, the values it returns.
struct GroupFunc {
  std::vector<int> bindings;      // indices into the block, in order
  std::vector<int> caller_bindings;  // tuple items of outside tuples, kept in the caller
  std::vector<Expr> arguments;    // caller-side values, one per param
  std::vector<ir::Var> params;
  std::vector<ir::Var> outputs;   // caller-side vars the call defines
  std::string name = "fused";
  int const_params = 0;  // lifted constants, named param_<n>
  Function func;
  ir::GlobalVar gv;
};

class Fuser {
 public:
  explicit Fuser(ir::IRModule module) : module_(std::move(module)) {}

  absl::StatusOr<ir::IRModule> Run() {
    for (const auto& [gv, func] : module_.Functions()) {
      const auto* f = func.as<FunctionNode>();
      if (f == nullptr || f->attrs.count(ir::String(kPrimitiveAttr)) || f->attrs.count(ir::String("Codegen"))) {
        continue;
      }
      Expr body = RewriteExpr(f->body);
      if (body.same_as(f->body)) continue;
      Function nf = Downcast<Function>(func);
      nf.CopyOnWrite()->body = body;
      updated_.emplace_back(gv, nf);
    }
    ir::IRModule out = module_;
    for (const auto& [gv, f] : updated_) out.Add(gv, f);
    for (const auto& [gv, f] : added_) out.Add(gv, f);
    return out;
  }

 private:
  Expr RewriteExpr(const Expr& e) {
    if (const auto* seq = e.as<SeqExprNode>()) {
      Array<BindingBlock> blocks;
      bool changed = false;
      for (const BindingBlock& block : seq->blocks) {
        BindingBlock nb = block.as<DataflowBlockNode>() ? RewriteBlock(block) : RewriteNested(block);
        changed = changed || !nb.same_as(block);
        blocks.push_back(nb);
      }
      if (!changed) return e;
      SeqExpr out(blocks, seq->body, seq->span);
      out.CopyOnWrite()->ty = seq->ty;
      return out;
    }
    if (const auto* if_node = e.as<IfNode>()) {
      Expr t = RewriteExpr(if_node->true_branch), f = RewriteExpr(if_node->false_branch);
      if (t.same_as(if_node->true_branch) && f.same_as(if_node->false_branch)) return e;
      If out = Downcast<If>(e);
      out.CopyOnWrite()->true_branch = t;
      out.CopyOnWrite()->false_branch = f;
      return out;
    }
    return e;
  }

  // Dataflow blocks inside If branches of ordinary blocks.
  BindingBlock RewriteNested(const BindingBlock& block) {
    Array<Binding> bindings;
    bool changed = false;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      Expr v = vb ? RewriteExpr(vb->value) : Expr();
      if (vb && !v.same_as(vb->value)) {
        bindings.push_back(VarBinding(vb->var, v, vb->span));
        changed = true;
      } else {
        bindings.push_back(b);
      }
    }
    return changed ? BindingBlock(bindings, block->span) : block;
  }

  BindingBlock RewriteBlock(const BindingBlock& block) {
    const Array<Binding>& bindings = block->bindings;
    Graph graph = BuildGraph(bindings, module_);
    PostDomTree dom(graph);
    Partitioner part(graph, dom);

    std::vector<int> group_of(bindings.size());
    std::unordered_map<const ir::Object*, int> def;
    std::unordered_map<int, GroupFunc> funcs;  // by group root, for groups of 2+
    std::vector<int> group_order;
    for (size_t i = 0; i < bindings.size(); ++i) {
      int root = part.Find(static_cast<int>(i));
      group_of[i] = root;
      def[bindings[i]->var.get()] = static_cast<int>(i);
      if (part.group(root).num_nodes > 1) {
        if (!funcs.count(root)) group_order.push_back(root);
        funcs[root].bindings.push_back(static_cast<int>(i));
      }
    }
    if (funcs.empty()) return block;

    // Outputs: the block outputs a group defines, then the values other groups read.
    std::unordered_map<int, std::vector<int>> deps;  // group -> producer groups
    for (int root : group_order) {
      for (int i : funcs[root].bindings) {
        if (!bindings[i]->var.as<DataflowVarNode>()) AddOutput(&funcs[root], bindings[i]->var);
      }
    }
    for (size_t i = 0; i < bindings.size(); ++i) {
      int g = group_of[i];
      WalkIR(BindingValue(bindings[i]), [&](const ObjectRef& n) {
        auto it = def.find(n.get());
        if (it != def.end() && group_of[it->second] != g) {
          int producer = group_of[it->second];
          if (std::find(deps[g].begin(), deps[g].end(), producer) == deps[g].end()) deps[g].push_back(producer);
          if (funcs.count(producer)) AddOutput(&funcs[producer], bindings[it->second]->var);
        }
        return n.as<FunctionNode>() == nullptr;
      });
    }
    // Groups in dependency order (a group's call comes after every producer it reads), closest to
    // the original binding order. The partition never makes two groups read each other; should it,
    // the block is left unfused rather than emitted out of order.
    std::vector<int> order;
    std::unordered_set<int> done, on_path;
    bool cycle = false;
    std::function<void(int)> visit = [&](int g) {
      if (done.count(g)) return;
      if (!on_path.insert(g).second) {
        cycle = true;
        return;
      }
      for (int dep : deps[g]) visit(dep);
      on_path.erase(g);
      done.insert(g);
      order.push_back(g);
    };
    for (size_t i = 0; i < bindings.size(); ++i) visit(group_of[i]);
    if (cycle) return block;

    for (int root : group_order) BuildFunction(bindings, &funcs[root]);
    std::vector<Binding> out;
    for (int g : order) {
      auto it = funcs.find(g);
      if (it == funcs.end()) {
        out.push_back(bindings[g]);
      } else {
        EmitCall(it->second, bindings, &out);
      }
    }
    return DataflowBlock(Array<Binding>(out), block->span);
  }

  static ObjectRef BindingValue(const Binding& b) {
    if (const auto* vb = b.as<VarBindingNode>()) return vb->value;
    return b.as<MatchCastNode>()->value;
  }

  static void AddOutput(GroupFunc* gf, const ir::Var& var) {
    for (const ir::Var& v : gf->outputs) {
      if (v.same_as(var)) return;
    }
    gf->outputs.push_back(var);
  }

  // Makes `e` (a caller-side value used by the group) a parameter unless the group defines it or
  // it is a constant shape that can stay inline.
  void AddParam(GroupFunc* gf, const std::unordered_set<const ir::Object*>& defined, const Expr& e) {
    if (defined.count(e.get())) return;
    for (const Expr& a : gf->arguments) {
      if (a.same_as(e)) return;
    }
    if (const auto* shape = e.as<ShapeExprNode>()) {
      bool constant = true;
      for (const ir::PrimExpr& v : shape->values) constant = constant && v.as<ir::IntImmNode>();
      if (constant) return;
    }
    if (const auto* pv = e.as<PrimValueNode>()) {
      if (pv->value.as<ir::IntImmNode>() || pv->value.as<ir::FloatImmNode>()) return;
    }
    if (!e.as<ir::VarNode>() && !e.as<ConstantNode>()) return;  // other leaves stay inline
    std::string name = e.as<ir::VarNode>() ? e.as<ir::VarNode>()->name : absl::StrCat("param_", gf->const_params++);
    gf->arguments.push_back(e);
    gf->params.push_back(ir::Var(name, e->ty));
  }

  void BuildFunction(const Array<Binding>& bindings, GroupFunc* gf) {
    std::unordered_set<const ir::Object*> defined;
    for (int i : gf->bindings) {
      const auto* vb = bindings[i].as<VarBindingNode>();
      const auto* call = vb->value.as<CallNode>();
      if (call != nullptr) {
        gf->name += "_" + call->args[0].as<ir::GlobalVarNode>()->name;
        if (const auto* tuple = call->args[1].as<TupleNode>()) {
          for (const Expr& f : tuple->fields) AddParam(gf, defined, f);
        } else {
          AddParam(gf, defined, call->args[1]);
        }
      } else if (!defined.count(vb->value.as<TupleGetItemNode>()->tuple.get())) {
        // One field of a tuple made outside the group: the caller takes the field (this binding
        // moves out, before the call) and the function gets a tensor parameter, not the tuple.
        gf->caller_bindings.push_back(i);
        gf->arguments.push_back(vb->var);
        gf->params.push_back(ir::Var(vb->var->name, vb->var->ty));
        auto out = std::find_if(gf->outputs.begin(), gf->outputs.end(),
                                [&](const ir::Var& v) { return v.same_as(vb->var); });
        if (out != gf->outputs.end()) gf->outputs.erase(out);
      } else {
        AddParam(gf, defined, vb->value.as<TupleGetItemNode>()->tuple);
      }
      defined.insert(bindings[i]->var.get());
    }
    if (gf->outputs.empty()) return;  // dead group: nothing reads it; dropped

    SubstMap map;
    for (size_t k = 0; k < gf->arguments.size(); ++k) map[gf->arguments[k].get()] = gf->params[k];
    std::vector<Binding> body_bindings;
    std::vector<Expr> results(gf->outputs.size());
    for (int i : gf->bindings) {
      if (std::find(gf->caller_bindings.begin(), gf->caller_bindings.end(), i) != gf->caller_bindings.end()) continue;
      const auto* vb = bindings[i].as<VarBindingNode>();
      Expr value = Substitute(vb->value, map);
      ir::Var var = vb->var;
      auto out = std::find_if(gf->outputs.begin(), gf->outputs.end(), [&](const ir::Var& v) { return v.same_as(var); });
      if (out != gf->outputs.end()) {
        ir::Var result(var->name, var->ty);
        map[var.get()] = result;
        results[out - gf->outputs.begin()] = result;
        var = result;
      }
      body_bindings.push_back(VarBinding(var, value, vb->span));
    }
    Expr body_value;
    ir::Type ret_ty;
    if (results.size() == 1) {
      body_value = results[0];
      ret_ty = results[0]->ty;
    } else {
      Array<ir::Type> fields;
      for (const Expr& r : results) fields.push_back(r->ty);
      ret_ty = ir::TupleType(fields);
      Tuple tuple{Array<Expr>(results)};
      tuple.CopyOnWrite()->ty = ret_ty;
      body_value = tuple;
    }
    SeqExpr seq(Array<BindingBlock>{DataflowBlock(Array<Binding>(body_bindings))}, body_value);
    seq.CopyOnWrite()->ty = ret_ty;

    // Symbolic variables the body uses but no parameter type defines come in as a shape.
    std::unordered_set<const ir::Object*> relax_vars;
    for (const ir::Var& p : gf->params) relax_vars.insert(p.get());
    for (const Binding& b : body_bindings) relax_vars.insert(b->var.get());
    std::unordered_set<const ir::Object*> sym_defined;
    for (const ir::Var& p : gf->params) {
      WalkIR(p->ty, [&](const ObjectRef& n) {
        if (IsSymbolicVar(n, relax_vars)) sym_defined.insert(n.get());
        return true;
      });
    }
    std::vector<ir::Var> free_syms;
    WalkIR(seq, [&](const ObjectRef& n) {
      if (IsSymbolicVar(n, relax_vars) && !sym_defined.count(n.get())) free_syms.push_back(Downcast<ir::Var>(n));
      return true;
    });
    std::vector<ir::Var> params = gf->params;
    if (!free_syms.empty()) {
      Array<ir::PrimExpr> values(free_syms.begin(), free_syms.end());
      params.push_back(ir::Var("tir_vars", ir::ShapeType(values)));
      ShapeExpr arg(values);
      arg.CopyOnWrite()->ty = ir::ShapeType(values);
      gf->arguments.push_back(arg);
    }
    Array<ir::Type> param_tys;
    for (const ir::Var& p : params) param_tys.push_back(p->ty);
    ir::Map<ir::String, ObjectRef> attrs;
    attrs.Set(ir::String(kPrimitiveAttr), ir::IntImm(ir::DataType::Bool(), 1));
    Function func(Array<ir::Var>(params), seq, ret_ty, /*is_pure=*/true, attrs);
    func.CopyOnWrite()->ty = ir::FuncType(param_tys, ret_ty);

    // The function gets its own copies of the symbolic variables (each function defines its own).
    SubstMap renew;
    WalkIR(func, [&](const ObjectRef& n) {
      if (IsSymbolicVar(n, relax_vars) && !renew.count(n.get())) {
        ir::ObjectPtr<ir::Object> copy = ir::TypeRegistry::Global().Find(n->kind())->create();
        ir::CopyFields(*n.get(), copy.get());
        renew[n.get()] = ObjectRef(copy);
      }
      return true;
    });
    gf->func = renew.empty() ? func : Substitute(func, renew);
    gf->gv = AddFunction(gf->name, gf->func);
  }

  // Adds `func` under `name` (made unique), or returns the existing identical function.
  ir::GlobalVar AddFunction(const std::string& name, const Function& func) {
    for (const auto& [gv, f] : added_) {
      if (ir::StructuralEqual(f, func)) return gv;
    }
    std::string unique = name;
    for (int k = 1; module_.Lookup(unique).defined() || Added(unique); ++k) unique = absl::StrCat(name, k);
    ir::GlobalVar gv(unique);
    gv.CopyOnWrite()->ty = func->ty;
    added_.emplace_back(gv, func);
    return gv;
  }
  bool Added(const std::string& name) const {
    for (const auto& [gv, f] : added_) {
      if (gv->name == name) return true;
    }
    return false;
  }

  void EmitCall(const GroupFunc& gf, const Array<Binding>& bindings, std::vector<Binding>* out) {
    for (int i : gf.caller_bindings) out->push_back(bindings[i]);
    if (!gf.func.defined()) return;
    Call call(gf.gv, Array<Expr>(gf.arguments));
    if (gf.outputs.size() == 1) {
      call.CopyOnWrite()->ty = gf.outputs[0]->ty;
      out->push_back(VarBinding(gf.outputs[0], call));
      return;
    }
    Array<ir::Type> fields;
    for (const ir::Var& v : gf.outputs) fields.push_back(v->ty);
    call.CopyOnWrite()->ty = ir::TupleType(fields);
    DataflowVar tuple_var("lv", call->ty);
    out->push_back(VarBinding(tuple_var, call));
    for (size_t k = 0; k < gf.outputs.size(); ++k) {
      TupleGetItem item(tuple_var, static_cast<int>(k));
      item.CopyOnWrite()->ty = gf.outputs[k]->ty;
      out->push_back(VarBinding(gf.outputs[k], item));
    }
  }

  ir::IRModule module_;
  std::vector<std::pair<ir::GlobalVar, ir::BaseFunc>> updated_;
  std::vector<std::pair<ir::GlobalVar, Function>> added_;
};

}  // namespace

absl::StatusOr<ir::IRModule> FuseOps(const ir::IRModule& module) { return Fuser(module).Run(); }

}  // namespace kiln::relax::transform
