#include "compiler/relax/legalize/te.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/arith.h"

namespace kiln::relax::legalize {

using namespace ::kiln::ir;  // NOLINT

PrimExpr Tensor::operator()(const std::vector<PrimExpr>& indices) const {
  return BufferLoad(buffer, Array<PrimExpr>(indices));
}

PrimExpr Int64(int64_t v) { return IntImm(DataType::Int(64), v); }

PrimExpr Const(DataType dtype, double v) {
  if (dtype.is_floating()) return FloatImm(dtype, v);
  if (dtype.is_bool()) return IntImm(dtype, v != 0 ? 1 : 0);
  return IntImm(dtype, static_cast<int64_t>(v));
}

PrimExpr CastTo(DataType dtype, const PrimExpr& e) {
  if (e.dtype() == dtype) return e;
  absl::StatusOr<PrimExpr> r = tir::CastTo(dtype, e);
  return r.ok() ? *r : PrimExpr(Cast(dtype, e));
}

PrimExpr MinValue(DataType dtype) {
  absl::StatusOr<PrimExpr> r = tir::LimitValue("min_value", dtype);
  return r.ok() ? *r : Const(dtype, 0);
}

PrimExpr MaxValue(DataType dtype) {
  absl::StatusOr<PrimExpr> r = tir::LimitValue("max_value", dtype);
  return r.ok() ? *r : Const(dtype, 0);
}

PrimExpr Intrin(const std::string& name, DataType dtype, const std::vector<PrimExpr>& args) {
  return ir::Call(dtype, Op("tirx." + name), Array<PrimExpr>(args));
}

namespace {

// The buffer regions a block body reads: per buffer, a point region where every access uses the
// same load-free index for a dimension, the whole dimension otherwise (data-dependent or varying
// indices), as TVM's region detection approximates them.
class ReadCollector : public StmtExprVisitor {
 public:
  explicit ReadCollector(const BufferNode* skip) : skip_(skip) {}

  std::vector<std::pair<Buffer, std::vector<std::vector<PrimExpr>>>> accesses;

 protected:
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const BufferLoadNode* op) override {
    StmtExprVisitor::VisitExpr_(op);
    if (op->buffer.get() == skip_) return;
    auto it = std::find_if(accesses.begin(), accesses.end(),
                           [&](const auto& a) { return a.first.get() == op->buffer.get(); });
    if (it == accesses.end()) {
      accesses.emplace_back(op->buffer, std::vector<std::vector<PrimExpr>>{});
      it = accesses.end() - 1;
    }
    it->second.push_back(op->indices.ToVector());
  }

 private:
  const BufferNode* skip_;
};

class HasLoad : public StmtExprVisitor {
 public:
  bool found = false;

 protected:
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const BufferLoadNode*) override { found = true; }
};

bool ContainsLoad(const PrimExpr& e) {
  HasLoad v;
  v.VisitExpr(e);
  return v.found;
}

BufferRegion PointRegion(const Buffer& buffer, const Indices& indices) {
  Array<Range> region;
  for (const PrimExpr& i : indices) region.push_back(Range(i, Int64(1)));
  return BufferRegion(buffer, region);
}

Array<BufferRegion> ReadRegions(const std::vector<PrimExpr>& exprs, const BufferNode* skip) {
  ReadCollector c(skip);
  for (const PrimExpr& e : exprs) c.VisitExpr(e);
  Array<BufferRegion> out;
  for (const auto& [buffer, uses] : c.accesses) {
    Array<Range> region;
    for (size_t d = 0; d < buffer->shape.size(); ++d) {
      const PrimExpr& first = uses[0][d];
      bool point = !ContainsLoad(first);
      for (size_t u = 1; point && u < uses.size(); ++u) point = StructuralEqual(first, uses[u][d]);
      region.push_back(point ? Range(first, Int64(1)) : Range(Int64(0), buffer->shape[d]));
    }
    out.push_back(BufferRegion(buffer, region));
  }
  return out;
}

struct LoopNest {
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> extents;
  Array<IterVar> iter_vars;
  Indices spatial, reduce;
};

// Loop and block variables for `shape` ("S", named ax<d>) and `reduce_extents` ("R", k<d>).
LoopNest MakeNest(const std::vector<PrimExpr>& shape, const std::vector<PrimExpr>& reduce_extents) {
  LoopNest n;
  auto add = [&](const std::string& name, const PrimExpr& extent, IterVarType type, Indices* out) {
    Var loop(name, DataType::Int(64));
    Var v("v_" + name, DataType::Int(64));
    n.loop_vars.push_back(loop);
    n.extents.push_back(extent);
    n.iter_vars.push_back(IterVar(Range(Int64(0), extent), v, type));
    out->push_back(v);
  };
  for (size_t d = 0; d < shape.size(); ++d) add(absl::StrCat("ax", d), shape[d], IterVarType::kDataPar, &n.spatial);
  for (size_t d = 0; d < reduce_extents.size(); ++d) {
    add(absl::StrCat("k", d), reduce_extents[d], IterVarType::kCommReduce, &n.reduce);
  }
  return n;
}

Stmt Realize(const LoopNest& n, const std::string& name, Array<BufferRegion> reads, Array<BufferRegion> writes,
             Stmt body, Stmt init) {
  auto block = make_object<SBlockNode>();
  block->iter_vars = n.iter_vars;
  block->reads = std::move(reads);
  block->writes = std::move(writes);
  block->name = name;
  block->body = std::move(body);
  block->init = std::move(init);
  Array<PrimExpr> values;
  for (const Var& v : n.loop_vars) values.push_back(v);
  Stmt s = SBlockRealize(values, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(block))));
  for (size_t i = n.loop_vars.size(); i-- > 0;) {
    s = For(n.loop_vars[i], Int64(0), n.extents[i], ForKind::kSerial, s);
  }
  return s;
}

// Every Var a statement or expression uses (by identity).
class VarUses : public StmtExprVisitor {
 public:
  std::unordered_set<const VarNode*> used;
  void AddShape(const Array<PrimExpr>& shape) {
    for (const PrimExpr& e : shape) VisitExpr(e);
  }

 protected:
  using StmtExprVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { used.insert(op); }
  void VisitExpr_(const SizeVarNode* op) override { used.insert(op); }
  void VisitBufferDef(const Buffer& b) override { AddShape(b->shape); }
  void VisitStmt_(const SBlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) AddShape(b->shape);
    StmtExprVisitor::VisitStmt_(op);
  }
};

// Replaces variables, and the buffers whose shapes use them, throughout a stage tree. Each buffer
// maps to one new buffer (same data var), so identities stay consistent.
class Rebinder : public StmtExprMutator {
 public:
  explicit Rebinder(std::unordered_map<const VarNode*, PrimExpr> vmap) : vmap_(std::move(vmap)) {}

  Buffer Map(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    Array<PrimExpr> shape = VisitExprs(b->shape);
    Buffer out = b;
    if (!shape.same_as(b->shape)) out.CopyOnWrite()->shape = shape;
    buffers_.emplace(b.get(), out);
    return out;
  }

 protected:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it != vmap_.end() ? it->second : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    BufferLoad load = Downcast<BufferLoad>(StmtExprMutator::VisitExpr_(op));
    Buffer b = Map(op->buffer);
    if (!b.same_as(load->buffer)) load.CopyOnWrite()->buffer = b;
    return load;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    BufferStore store = Downcast<BufferStore>(StmtExprMutator::VisitStmt_(op));
    Buffer b = Map(op->buffer);
    if (!b.same_as(store->buffer)) store.CopyOnWrite()->buffer = b;
    return store;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlock>(StmtExprMutator::VisitStmt_(op));
    SBlockNode* n = block.CopyOnWrite();
    Array<IterVar> iters;
    for (const IterVar& iv : n->iter_vars) {
      iters.push_back(IterVar(VisitRange(iv->dom), iv->var, iv->iter_type, iv->thread_tag));
    }
    n->iter_vars = iters;
    auto regions = [&](const Array<BufferRegion>& in) {
      Array<BufferRegion> out;
      for (const BufferRegion& r : in) out.push_back(BufferRegion(Map(r->buffer), r->region));
      return out;
    };
    n->reads = regions(n->reads);
    n->writes = regions(n->writes);
    Array<Buffer> allocs;
    for (const Buffer& b : n->alloc_buffers) allocs.push_back(Map(b));
    n->alloc_buffers = allocs;
    return block;
  }

 private:
  std::unordered_map<const VarNode*, PrimExpr> vmap_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
};

}  // namespace

FuncBuilder::FuncBuilder(std::string name) : name_(std::move(name)) {}

Var FuncBuilder::LocalVar(const Var& relax_var) {
  auto it = var_map_.find(relax_var.get());
  if (it != var_map_.end()) return it->second;
  Var local(relax_var->name, relax_var->dtype.is_void() ? DataType::Int(64) : relax_var->dtype);
  var_map_.emplace(relax_var.get(), local);
  vars_.emplace_back(relax_var, local);
  return local;
}

PrimExpr FuncBuilder::Local(const PrimExpr& relax_expr) {
  std::vector<Var> vars;
  CollectVars(relax_expr, &vars);
  if (vars.empty()) return relax_expr;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  for (const Var& v : vars) vmap[v.get()] = LocalVar(v);
  return Substitute(relax_expr, vmap);
}

std::vector<PrimExpr> FuncBuilder::Local(const std::vector<PrimExpr>& relax_exprs) {
  std::vector<PrimExpr> out;
  out.reserve(relax_exprs.size());
  for (const PrimExpr& e : relax_exprs) out.push_back(Local(e));
  return out;
}

absl::StatusOr<std::vector<PrimExpr>> FuncBuilder::LocalShape(const Type& relax_tensor_type) {
  const auto* tt = relax_tensor_type.as<TensorTypeNode>();
  if (tt == nullptr) return absl::InvalidArgumentError("expected a tensor, got " + TypeToString(relax_tensor_type));
  std::vector<PrimExpr> shape;
  int ndim = -1;
  if (!tt->shape.defined() || !GetShapeValues(tt->shape, &shape, &ndim)) {
    return absl::InvalidArgumentError("needs tensors of known shape, got " + TypeToString(relax_tensor_type));
  }
  return Local(shape);
}

bool FuncBuilder::IsScalar(const Expr& arg) { return ExprType(arg).as<PrimTypeNode>() != nullptr; }

absl::StatusOr<PrimExpr> FuncBuilder::Scalar(const Expr& arg) {
  PrimExpr value;
  if (const auto* pv = arg.as<ir::relax::PrimValueNode>()) {
    value = pv->value;
  } else if (const auto* pt = ExprType(arg).as<PrimTypeNode>()) {
    value = pt->value;
  }
  if (value.defined()) return Local(value);
  // A prim value known only at run time: a scalar parameter of its own.
  const auto* pt = ExprType(arg).as<PrimTypeNode>();
  if (pt == nullptr || pt->dtype.is_void()) return absl::InvalidArgumentError("expected a prim value argument");
  std::string name = "s";
  if (const auto* v = arg.as<VarNode>()) name = v->name;
  // Annotated like a parsed `k: T.float32` parameter.
  Var local(name, PrimType(pt->dtype));
  scalar_inputs_.emplace_back(local, arg);
  return PrimExpr(local);
}

absl::StatusOr<Tensor> FuncBuilder::Input(const Expr& arg) {
  Type ty = ExprType(arg);
  if (!ty.defined()) {
    if (const auto* c = arg.as<ir::relax::ConstantNode>()) {
      std::vector<PrimExpr> shape;
      for (const IntImm& d : c->shape) shape.push_back(Int64(d->value));
      ty = MakeTensorType(shape, c->dtype);
    }
  }
  DataType dtype;
  if (const auto* tt = ty.as<TensorTypeNode>()) {
    dtype = tt->dtype;
  } else {
    return absl::InvalidArgumentError("expected a tensor argument, got " +
                                      (ty.defined() ? TypeToString(ty) : std::string("an untyped value")));
  }
  if (dtype.is_void()) return absl::InvalidArgumentError("needs tensors of known dtype, got " + TypeToString(ty));
  absl::StatusOr<std::vector<PrimExpr>> shape = LocalShape(ty);
  if (!shape.ok()) return shape.status();
  std::string name;
  if (const auto* v = arg.as<VarNode>()) name = v->name;
  if (name.empty()) name = std::string(1, static_cast<char>('A' + std::min<size_t>(inputs_.size(), 25)));
  for (const Tensor& t : inputs_) {
    if (t.buffer->name == name) name = absl::StrCat(name, "_", inputs_.size());
  }
  Tensor t{Buffer::Make(name, Array<PrimExpr>(*shape), dtype)};
  inputs_.push_back(t);
  input_args_.push_back(arg);
  return t;
}

absl::StatusOr<std::vector<Tensor>> FuncBuilder::InputTuple(const Expr& arg) {
  std::vector<Expr> fields;
  if (const auto* tuple = arg.as<ir::relax::TupleNode>()) {
    fields = tuple->fields.ToVector();
  } else {
    const auto* tt = ExprType(arg).as<TupleTypeNode>();
    if (tt == nullptr) return absl::InvalidArgumentError("expected a tuple of tensors");
    for (size_t i = 0; i < tt->fields.size(); ++i) {
      ir::relax::TupleGetItem item(arg, static_cast<int>(i));
      item.CopyOnWrite()->ty = tt->fields[i];
      fields.push_back(item);
    }
  }
  std::vector<Tensor> out;
  for (const Expr& f : fields) {
    absl::StatusOr<Tensor> t = Input(f);
    if (!t.ok()) return t.status();
    out.push_back(*t);
  }
  return out;
}

Tensor FuncBuilder::Alloc(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype) {
  Tensor t{Buffer::Make(name, Array<PrimExpr>(shape), dtype)};
  stage_buffers_.push_back(t);
  return t;
}

void FuncBuilder::AddStmt(Stmt stmt) { stmts_.push_back(std::move(stmt)); }

Tensor FuncBuilder::Compute(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype,
                            const std::function<PrimExpr(const Indices&)>& f) {
  Tensor out = Alloc(name, shape, dtype);
  LoopNest n = MakeNest(shape, {});
  PrimExpr value = CastTo(dtype, f(n.spatial));
  Stmt body = BufferStore(out.buffer, value, Array<PrimExpr>(n.spatial));
  AddStmt(Realize(n, name, ReadRegions({value}, nullptr), {PointRegion(out.buffer, n.spatial)}, body, Stmt()));
  return out;
}

Tensor FuncBuilder::Reduce(const std::string& name, const std::vector<PrimExpr>& shape, DataType dtype,
                           const std::vector<PrimExpr>& reduce_extents, const PrimExpr& init,
                           const std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>& combine,
                           const std::function<PrimExpr(const Indices&, const Indices&)>& f) {
  Tensor out = Alloc(name, shape, dtype);
  LoopNest n = MakeNest(shape, reduce_extents);
  PrimExpr value = CastTo(dtype, f(n.spatial, n.reduce));
  PrimExpr acc = out(n.spatial);
  Stmt body = BufferStore(out.buffer, CastTo(dtype, combine(acc, value)), Array<PrimExpr>(n.spatial));
  Stmt init_stmt = BufferStore(out.buffer, CastTo(dtype, init), Array<PrimExpr>(n.spatial));
  AddStmt(Realize(n, name, ReadRegions({value}, out.buffer.get()), {PointRegion(out.buffer, n.spatial)}, body,
                  init_stmt));
  return out;
}

std::vector<Tensor> FuncBuilder::ReduceN(
    const std::string& name, const std::vector<PrimExpr>& shape, const std::vector<DataType>& dtypes,
    const std::vector<PrimExpr>& reduce_extents, const std::vector<PrimExpr>& inits,
    const std::function<std::vector<PrimExpr>(const Indices&, const Indices&, const std::vector<PrimExpr>&)>&
        update) {
  std::vector<Tensor> outs;
  for (size_t j = 0; j < dtypes.size(); ++j) outs.push_back(Alloc(absl::StrCat(name, "_v", j), shape, dtypes[j]));
  LoopNest n = MakeNest(shape, reduce_extents);
  std::vector<PrimExpr> current;
  for (const Tensor& t : outs) current.push_back(t(n.spatial));
  std::vector<PrimExpr> next = update(n.spatial, n.reduce, current);
  // Bind every new value before storing any: each depends on the old values of all buffers.
  std::vector<Var> temps;
  std::vector<Stmt> stores, inits_s;
  Array<BufferRegion> writes;
  for (size_t j = 0; j < outs.size(); ++j) {
    temps.push_back(Var(absl::StrCat("v_", outs[j].buffer->name), dtypes[j]));
    stores.push_back(BufferStore(outs[j].buffer, temps[j], Array<PrimExpr>(n.spatial)));
    inits_s.push_back(BufferStore(outs[j].buffer, CastTo(dtypes[j], inits[j]), Array<PrimExpr>(n.spatial)));
    writes.push_back(PointRegion(outs[j].buffer, n.spatial));
  }
  Stmt body = SeqStmt::Flatten(stores);
  for (size_t j = outs.size(); j-- > 0;) body = LetStmt(temps[j], CastTo(dtypes[j], next[j]), body);
  // Reads: everything the update reads except the outputs themselves.
  Array<BufferRegion> reads;
  for (const BufferRegion& r : ReadRegions(next, nullptr)) {
    bool is_out = std::any_of(outs.begin(), outs.end(), [&](const Tensor& t) { return t.buffer.same_as(r->buffer); });
    if (!is_out) reads.push_back(r);
  }
  AddStmt(Realize(n, name, reads, writes, body, SeqStmt::Flatten(inits_s)));
  return outs;
}

std::vector<Tensor> FuncBuilder::Opaque(const std::string& name, const std::vector<Tensor>& reads,
                                        const std::vector<std::pair<std::string, DataType>>& writes,
                                        const std::vector<PrimExpr>& shape,
                                        const std::function<Stmt(const std::vector<Tensor>&)>& body) {
  std::vector<Tensor> outs;
  for (const auto& [n, dt] : writes) outs.push_back(Alloc(n, shape, dt));
  auto whole = [](const Tensor& t) {
    Array<Range> region;
    for (const PrimExpr& d : t.shape()) region.push_back(Range(Int64(0), d));
    return BufferRegion(t.buffer, region);
  };
  auto block = make_object<SBlockNode>();
  for (const Tensor& t : reads) block->reads.push_back(whole(t));
  for (const Tensor& t : outs) block->writes.push_back(whole(t));
  block->name = name;
  block->body = body(outs);
  AddStmt(SBlockRealize({}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(block)))));
  return outs;
}

Stmt Loops(const std::vector<PrimExpr>& extents, const std::string& prefix,
           const std::function<Stmt(const Indices&)>& body) {
  std::vector<Var> vars;
  Indices idx;
  for (size_t d = 0; d < extents.size(); ++d) {
    vars.push_back(Var(absl::StrCat(prefix, d), DataType::Int(64)));
    idx.push_back(vars.back());
  }
  Stmt s = body(idx);
  for (size_t d = extents.size(); d-- > 0;) s = For(vars[d], Int64(0), extents[d], ForKind::kSerial, s);
  return s;
}

Indices Unravel(const PrimExpr& flat, const std::vector<PrimExpr>& shape) {
  Indices out(shape.size());
  PrimExpr rest = flat;
  for (size_t d = shape.size(); d-- > 0;) {
    if (d == 0) {
      out[d] = rest;
    } else {
      out[d] = FloorMod(rest, shape[d]);
      rest = FloorDiv(rest, shape[d]);
    }
  }
  return out;
}

PrimExpr NumElements(const std::vector<PrimExpr>& shape) { return Product(shape); }

absl::StatusOr<BuiltFunc> FuncBuilder::Build(const std::vector<Tensor>& outputs, OpPatternKind pattern) const {
  std::vector<Buffer> param_buffers;
  for (const Tensor& t : inputs_) param_buffers.push_back(t.buffer);
  for (const Tensor& t : outputs) {
    bool staged = std::any_of(stage_buffers_.begin(), stage_buffers_.end(),
                              [&](const Tensor& s) { return s.buffer.same_as(t.buffer); });
    if (!staged) return absl::InternalError("legalize: an output of " + name_ + " is not computed by it");
    param_buffers.push_back(t.buffer);
  }
  std::vector<Buffer> allocs;
  for (const Tensor& t : stage_buffers_) {
    bool is_out = std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.buffer.same_as(t.buffer); });
    if (!is_out) allocs.push_back(t.buffer);
  }
  Stmt body = SeqStmt::Flatten(stmts_);

  // Symbolic dims a parameter buffer's shape binds (a bare dim) need no parameter of their own;
  // the others used anywhere become trailing int64 parameters, passed as call_tir prim args.
  std::unordered_set<const VarNode*> bound;
  for (const Buffer& b : param_buffers) {
    for (const PrimExpr& d : b->shape) {
      if (const auto* v = d.as<VarNode>()) bound.insert(v);
    }
  }
  VarUses uses;
  uses.VisitStmt(body);
  for (const Buffer& b : param_buffers) uses.AddShape(b->shape);
  for (const Buffer& b : allocs) uses.AddShape(b->shape);
  Array<Var> scalar_params;
  Array<Expr> args = input_args_;
  for (const auto& [local, arg] : scalar_inputs_) {
    scalar_params.push_back(local);
    args.push_back(arg);
  }
  // A parameter is annotated with its type (as the parser reads `n: T.int64`), unlike a dim var
  // that a buffer binds, so such dims are rebound to annotated vars everywhere they occur.
  std::unordered_map<const VarNode*, PrimExpr> rebind;
  for (const auto& [relax_var, local] : vars_) {
    if (bound.count(local.get()) || !uses.used.count(local.get())) continue;
    Var param(local->name, PrimType(local->dtype));
    rebind[local.get()] = param;
    scalar_params.push_back(param);
    args.push_back(ir::relax::PrimValue(relax_var));
  }
  Rebinder rebinder(rebind);
  if (!rebind.empty()) {
    body = rebinder.VisitStmt(body);
    for (Buffer& b : param_buffers) b = rebinder.Map(b);
    for (Buffer& b : allocs) b = rebinder.Map(b);
  }

  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  for (const Buffer& b : param_buffers) {
    Var p(b->name, DataType::Handle());
    params.push_back(p);
    buffer_map.Set(p, b);
  }
  for (const Var& v : scalar_params) params.push_back(v);

  auto root = make_object<SBlockNode>();
  root->name = "root";
  root->body = body;
  root->alloc_buffers = Array<Buffer>(allocs);
  Stmt func_body = SBlockRealize({}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(root))));

  Map<String, ObjectRef> attrs;
  attrs.Set(String(transform::kOpPatternAttr), transform::MakeOpPatternAttr(pattern));
  attrs.Set(String("tirx.noalias"), IntImm(DataType::Bool(), 1));
  attrs.Set(String("s_tir"), IntImm(DataType::Bool(), 1));
  return BuiltFunc{name_, PrimFunc(params, func_body, Type(), buffer_map, attrs), args};
}

}  // namespace kiln::relax::legalize
