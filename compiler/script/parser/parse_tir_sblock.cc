// TVMScript parser, calls inside a `with T.sblock(...)`: the block axes (T.axis.spatial/reduce/
// scan/opaque and T.axis.remap), T.reads / T.writes, T.sblock_attr and T.where. The block frame
// itself is opened by the `with` statement (parse_tir_stmt.cc).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/script/parser/handlers.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

// T.axis.spatial / reduce / scan / opaque (dom, binding) and T.axis.remap(kinds, bindings): block
// iteration variables.
Value CallAxis(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  builder::BlockData* blk = c.Block();
  std::string kind = name.substr(5);
  if (kind == "remap") {
    c.Need(2, 2);
    std::string kinds = p.ToStr(a.args[0], SpanOr(a.args[0], span));
    // One loop variable may stand alone (what `for idx in T.grid(*shape)` binds for rank 1).
    std::vector<Value> bindings =
        a.args[1].kind == K::kPrim ? std::vector<Value>{a.args[1]} : p.ToSeq(a.args[1], SpanOr(a.args[1], span));
    if (kinds.size() != bindings.size()) {
      p.Fail(span, absl::StrCat("T.axis.remap: the kinds string \"", kinds, "\" has size ", kinds.size(), " but ",
                              bindings.size(), " bindings are given"));
    }
    std::vector<Value> out;
    for (size_t i = 0; i < kinds.size(); ++i) {
      PrimExpr bind = p.ToPrim(bindings[i], SpanOr(bindings[i], span));
      const auto* lv = bind.as<VarNode>();
      auto range = lv ? p.loop_ranges_.find(lv) : p.loop_ranges_.end();
      if (range == p.loop_ranges_.end()) p.Fail(span, "T.axis.remap binds loop variables only");
      IterVarType t = kinds[i] == 'S' ? IterVarType::kDataPar : kinds[i] == 'R' ? IterVarType::kCommReduce
                    : IterVarType::kOpaque;
      if (kinds[i] != 'S' && kinds[i] != 'R') p.Fail(span, "T.axis.remap kinds are 'S' (spatial) or 'R' (reduce)");
      std::string vname = i < p.name_hints_.size() ? p.name_hints_[i] : (kinds.size() == 1 ? c.FreshName() : "v");
      Var var(vname, bind.dtype(), span);
      blk->iter_vars.push_back(IterVar(range->second, var, t, "", span));
      blk->iter_values.push_back(bind);
      Value v = Value::Obj(K::kPrim, var);
      v.fresh_var = true;
      out.push_back(v);
    }
    if (out.size() == 1 && p.name_hints_.empty()) return out[0];
    return Value::Seq(K::kTuple, std::move(out));
  }
  IterVarType t;
  if (kind == "spatial" || kind == "S") t = IterVarType::kDataPar;
  else if (kind == "reduce" || kind == "R") t = IterVarType::kCommReduce;
  else if (kind == "scan") t = IterVarType::kOrdered;
  else if (kind == "opaque") t = IterVarType::kOpaque;
  else p.Fail(a.func_span, absl::StrCat("T.", name, " is not a TVMScript function"));
  c.Need(1, 2);
  const Value& dom = a.args[0];
  Range r;
  if (dom.kind == K::kTuple || dom.kind == K::kList) {
    if (dom.items.size() != 2) p.Fail(SpanOr(dom, span), "an axis domain is an extent or a (min, max) pair");
    PrimExpr lo = p.ToPrim(dom.items[0], span), hi = p.ToPrim(dom.items[1], span);
    const auto* l = lo.as<IntImmNode>();
    const auto* h = hi.as<IntImmNode>();
    const auto* add = hi.as<AddNode>();
    PrimExpr ext = l && h ? PrimExpr(IntImm(hi.dtype(), h->value - l->value))
                 : add && StructuralEqual(add->a, lo) ? add->b
                 : *tir::BinaryOp(tir::BinaryOpKind::kSub, tir::Operand(hi), tir::Operand(lo), span);
    r = Range(lo, ext);
  } else if (dom.kind != K::kNone) {
    PrimExpr ext = p.ToPrim(dom, SpanOr(dom, span));
    r = Range(IntImm(ext.dtype(), 0), ext);
  }
  PrimExpr bind = a.args.size() > 1 ? c.Prim(1) : PrimExpr();
  DataType vt = bind.defined() ? bind.dtype() : r.defined() ? r->extent.dtype() : DataType::Int(32);
  if (const Value* d = Kwarg(a, "dtype")) vt = p.ToDType(*d, span);
  if (r.defined() && r->extent.dtype() != vt && r->min.as<IntImmNode>() && r->extent.as<IntImmNode>()) {
    r = Range(IntImm(vt, r->min.as<IntImmNode>()->value), IntImm(vt, r->extent.as<IntImmNode>()->value));
  }
  Var var(c.FreshName(), vt, span);
  blk->iter_vars.push_back(IterVar(r, var, t, "", span));
  if (bind.defined()) blk->iter_values.push_back(bind);
  Value v = Value::Obj(K::kPrim, var);
  v.fresh_var = true;
  return v;
}

// T.reads(*regions) / T.writes(*regions): the block's declared buffer regions.
Value CallReadsWrites(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  builder::BlockData* blk = c.Block();
  Array<BufferRegion> regions;
  std::vector<Value> flat;
  // A block declares each of its region lists once, as TVM's IRBuilder requires.
  bool& declared = name == "reads" ? blk->reads_set : blk->writes_set;
  if (declared) {
    p.Fail(span, absl::StrCat("T.", name, " is given twice in sblock \"", blk->name, "\": declare its ",
                              name == "reads" ? "read" : "write", " regions in one T.", name, "(...)"));
  }
  declared = true;
  for (const Value& v : a.args) {
    if (v.is_seq()) flat.insert(flat.end(), v.items.begin(), v.items.end()); else flat.push_back(v);
  }
  for (const Value& v : flat) {
    if (v.kind == K::kRegion) {
      regions.push_back(Downcast<BufferRegion>(v.obj));
    } else if (v.kind == K::kPrim && v.obj.as<BufferLoadNode>()) {
      const auto* load = v.obj.as<BufferLoadNode>();
      Array<Range> r;
      for (const PrimExpr& i : load->indices) r.push_back(Range(i, IntImm(i.dtype(), 1)));
      regions.push_back(BufferRegion(load->buffer, r));
    } else if (v.kind == K::kBuffer) {
      Buffer b = Downcast<Buffer>(v.obj);
      Array<Range> r;
      for (const PrimExpr& d : b->shape) r.push_back(Range(IntImm(d.dtype(), 0), d));
      regions.push_back(BufferRegion(b, r));
    } else {
      p.Fail(span, absl::StrCat("T.", name, " takes buffer regions, e.g. A[vi, 0:16]"));
    }
  }
  (name == "reads" ? blk->reads : blk->writes) = regions;
  return Value::None();
}

// Merges `add` into `into` as TVM's builder merges repeated T.sblock_attr calls: dict values merge
// key by key, any other value may only repeat itself.
void MergeBlockAttrs(Parser& p, const Map<String, ObjectRef>& add, Map<String, ObjectRef>* into, const Span& span) {
  for (const auto& [k, v] : add.items()) {
    if (!into->count(k)) {
      into->Set(k, v);
      continue;
    }
    const ObjectRef prev = into->Get(k);
    if (prev.as<MapNode>() && v.as<MapNode>()) {
      Map<String, ObjectRef> merged(prev.ptr());
      MergeBlockAttrs(p, Map<String, ObjectRef>(v.ptr()), &merged, span);
      into->Set(k, merged);
      continue;
    }
    if (!StructuralEqual(prev, v)) {
      p.Fail(span, absl::StrCat("T.sblock_attr sets key \"", std::string(k), "\" again with another value"));
    }
  }
}

// T.sblock_attr({...}): annotations of the enclosing block.
Value CallSBlockAttr(Parser& p, CallArgs& a, const TirCall& c) {
  builder::BlockData* blk = c.Block();
  c.Need(1, 1);
  MergeBlockAttrs(p, p.ToAttrMap(a.args[0], c.span), &blk->annotations, c.span);
  return Value::None();
}

// T.block_attr, the spelling before TVM v0.26.
Value CallBlockAttr(Parser& p, CallArgs& a, const TirCall& c) {
  p.Warn(a.func_span, "T.block_attr is spelled T.sblock_attr in TVM v0.26");
  const std::string name = "sblock_attr";
  TirCall renamed{p, name, c.name_in, a, c.span};
  return CallSBlockAttr(p, a, renamed);
}

// T.where(cond): the enclosing block's predicate.
Value CallWhere(Parser& p, CallArgs& a, const TirCall& c) {
  builder::BlockData* blk = c.Block();
  c.Need(1, 1);
  if (blk->predicate.defined()) {
    p.Fail(c.span, absl::StrCat("T.where is given twice in sblock \"", blk->name, "\": a block has one predicate"));
  }
  const Value& cond = a.args[0];
  if (cond.kind == K::kInt && cond.i != 0 && cond.i != 1) {
    p.Fail(SpanOr(cond, c.span), absl::StrCat("T.where(", cond.i, "): an integer predicate is 0 or 1"));
  }
  // A Python literal is a bool constant; an expression must be bool, which the `with T.sblock`
  // statement checks when it builds the block (where TVM reports it).
  blk->predicate = cond.kind == K::kInt || cond.kind == K::kBool
                       ? PrimExpr(IntImm(DataType::Bool(), cond.kind == K::kInt ? cond.i : cond.b, SpanOr(cond, c.span)))
                       : c.Prim(0);
  return Value::None();
}

// T.sblock() / T.block() / T.init() are with contexts, not calls.
Value CallBlockAsCall(Parser& p, CallArgs& a, const TirCall& c) {
  const Span& span = c.span;
  const std::string& name = c.name;
  p.Fail(span, absl::StrCat("T.", name, "() is used as `with T.", name, "(...):`"));
}

}  // namespace

void AddTirSBlockCalls(TirCallTable* t) {
  for (const char* n : {"reads", "writes"}) t->by_name.emplace(n, &CallReadsWrites);
  t->by_name.emplace("sblock_attr", &CallSBlockAttr);
  t->by_name.emplace("block_attr", &CallBlockAttr);
  t->by_name.emplace("where", &CallWhere);
  for (const char* n : {"sblock", "block", "init"}) t->by_name.emplace(n, &CallBlockAsCall);
  t->by_prefix.emplace_back("axis.", &CallAxis);
}

}  // namespace kiln::script::parser
