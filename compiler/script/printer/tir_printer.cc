// TIR -> Doc: PrimFuncs, statements and expressions, in TVM v0.26's printed style (see printer.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/script/printer/docsifier.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::script::printer {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

bool IsZero(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm && imm->value == 0;
}

bool IsOne(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return imm && imm->value == 1;
}

bool IsConstTrue(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  return !e.defined() || (imm && imm->value != 0);
}

}  // namespace

bool ExprHasVar(const PrimExpr& e) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const VarNode*) override { found = true; }
    void VisitExpr_(const SizeVarNode*) override { found = true; }
  } finder;
  if (e.defined()) finder.VisitExpr(e);
  return finder.found;
}

namespace {

// Whether `e` uses one of `vars`.
bool UsesAny(const PrimExpr& e, const std::unordered_set<const Object*>& vars) {
  struct Finder : StmtExprVisitor {
    const std::unordered_set<const Object*>* vars;
    bool found = false;
    void VisitExpr_(const VarNode* v) override { found = found || vars->count(v); }
    void VisitExpr_(const SizeVarNode* v) override { found = found || vars->count(v); }
  } finder;
  finder.vars = &vars;
  finder.VisitExpr(e);
  return finder.found;
}

// Flattens the left spine of a chain of And (or Or) nodes: ((a and b) and c) -> [a, b, c].
template <typename Node>
void FlattenLeft(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (const auto* n = e.as<Node>()) {
    FlattenLeft<Node>(n->a, out);
    out->push_back(n->b);
  } else {
    out->push_back(e);
  }
}

// A simple buffer param prints as `A: T.Buffer(...)`; others as `a: T.handle` + T.match_buffer.
bool IsSimpleParamBuffer(const Buffer& b) {
  for (const PrimExpr& s : b->shape) if (ExprHasVar(s)) return false;
  for (const PrimExpr& s : b->strides) if (ExprHasVar(s)) return false;
  return !ExprHasVar(b->elem_offset);
}

bool ContainsBlock(const Stmt& s) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitStmt_(const SBlockRealizeNode*) override { found = true; }
  } finder;
  finder.VisitStmt(s);
  return finder.found;
}

const char* AxisKind(IterVarType t) {
  switch (t) {
    case IterVarType::kDataPar: return "spatial";
    case IterVarType::kCommReduce: return "reduce";
    case IterVarType::kOrdered: return "scan";
    default: return "opaque";
  }
}

}  // namespace

// ---------------------------------------------------------------- buffers

ExprPtr Docsifier::DtypeAnn(DataType dtype) { return T(dtype.ToString()); }

ExprPtr Docsifier::BufferRef(const Buffer& b) {
  if (ExprPtr d = Lookup(b.get())) return d;
  return Id(b->name.empty() ? "buffer" : b->name);
}

ExprPtr Docsifier::DefineBuffer(size_t scope, const Buffer& b) {
  ExprPtr id = DefineIn(scope, b.get(), b->name.empty() ? "buffer" : b->name);
  if (b->data.defined() && !Lookup(b->data.get())) Alias(scope, b->data.get(), Attr(id, "data"));
  return id;
}

ExprPtr Docsifier::BufferCall(ExprPtr callee, std::vector<ExprPtr> pre_args, const Buffer& b,
                              bool force_dtype, bool print_data, const std::string& implied_scope) {
  std::vector<ExprPtr> args = std::move(pre_args);
  std::vector<ExprPtr> shape;
  for (const PrimExpr& s : b->shape) shape.push_back(PrintExpr(s));
  args.push_back(TupleE(std::move(shape)));
  if (force_dtype || b->dtype != DataType::Float(32)) args.push_back(StrLit(b->dtype.ToString()));
  Kwargs kw;
  if (print_data) kw.emplace_back("data", PrintExpr(b->data));
  if (!b->strides.empty()) {
    std::vector<ExprPtr> strides;
    for (const PrimExpr& s : b->strides) strides.push_back(PrintExpr(s));
    kw.emplace_back("strides", TupleE(std::move(strides)));
  }
  if (b->elem_offset.defined() && !IsZero(b->elem_offset)) {
    kw.emplace_back("elem_offset", PrintExpr(b->elem_offset));
  }
  std::string scope = b->scope();
  if (scope != "global" && scope != implied_scope) kw.emplace_back("scope", StrLit(scope));
  if (b->data_alignment != 0) kw.emplace_back("align", IntLit(b->data_alignment));
  if (b->offset_factor != 0) kw.emplace_back("offset_factor", IntLit(b->offset_factor));
  if (b->buffer_type == BufferKind::kAutoBroadcast) kw.emplace_back("buffer_type", StrLit("auto"));
  if (!b->axis_separators.empty()) {
    std::vector<ExprPtr> seps;
    for (const IntImm& s : b->axis_separators) seps.push_back(IntLit(s->value));
    kw.emplace_back("axis_separators", ListE(std::move(seps)));
  }
  // The layout the parser gives a buffer without layout= is left out, as TVM's printer does;
  // layout=None is spelled out where it differs from that default.
  if (b->layout.defined()) kw.emplace_back("layout", PrintLayout(b->layout));
  else if (b->no_layout) kw.emplace_back("layout", NoneLit());
  if (b->allocated_addr.size() == 1) {
    kw.emplace_back("allocated_addr", PrintExpr(b->allocated_addr[0]));
  } else if (!b->allocated_addr.empty()) {
    std::vector<ExprPtr> addr;
    for (const PrimExpr& x : b->allocated_addr) addr.push_back(PrintExpr(x));
    kw.emplace_back("allocated_addr", ListE(std::move(addr)));
  }
  return CallE(std::move(callee), std::move(args), std::move(kw));
}

ExprPtr Docsifier::RangeEnd(const PrimExpr& min, const PrimExpr& extent) {
  const auto* a = min.as<IntImmNode>();
  const auto* b = extent.as<IntImmNode>();
  if (a && b) return PrintExpr(IntImm(min.dtype(), a->value + b->value));
  if (IsZero(min)) return PrintExpr(extent);
  return BinOp("+", PrintExpr(min), PrintExpr(extent));
}

ExprPtr Docsifier::PrintLanes(int lanes) {
  return lanes < -1 ? PrintExpr(tir::VScaleLanes(-lanes)) : IntLit(lanes);
}

// Buffer access indices as TVM writes them: a Ramp with a constant stride is the slice
// base:base + lanes * stride (with :stride when it is not 1), which the parser reads back as that
// Ramp; other indices print as expressions.
std::vector<ExprPtr> Docsifier::BufferIndices(const Array<PrimExpr>& indices) {
  std::vector<ExprPtr> out;
  for (const PrimExpr& i : indices) {
    const auto* ramp = i.as<RampNode>();
    const auto* stride = ramp ? ramp->stride.as<IntImmNode>() : nullptr;
    if (!stride) {
      out.push_back(PrintExpr(i));
      continue;
    }
    // A scalable Ramp's extent is TVM's base + lanes * stride, folded as its operators fold:
    // T.vscale() * k, times the stride where it is not 1.
    PrimExpr span;
    if (ramp->lanes < -1) {
      span = tir::VScaleLanes(-ramp->lanes);
      if (stride->value != 1) span = Mul(span, IntImm(ramp->base.dtype(), stride->value));
    } else {
      span = IntImm(ramp->base.dtype(), ramp->lanes * stride->value);
    }
    out.push_back(SliceE(PrintExpr(ramp->base), RangeEnd(ramp->base, span),
                         stride->value == 1 ? nullptr : PrintExpr(ramp->stride)));
  }
  return out;
}

ExprPtr Docsifier::PrintRegion(const BufferRegion& r, bool keep_region) {
  bool point = true;
  for (const Range& range : r->region) point = point && IsOne(range->extent);
  std::vector<ExprPtr> idx;
  for (const Range& range : r->region) {
    if (IsOne(range->extent) && !(keep_region && point)) {
      idx.push_back(PrintExpr(range->min));
    } else {
      idx.push_back(SliceE(PrintExpr(range->min), RangeEnd(range->min, range->extent)));
    }
  }
  return Index(BufferRef(r->buffer), std::move(idx));
}

// ---------------------------------------------------------------- functions

namespace {

// Thread variables that more than one thread_extent / virtual_thread attribute binds. No single
// launch_thread is an ancestor of all their uses, so, as TVM does, they are printed as
// `v = T.env_thread(tag)` before the first launch and each launch names `v`.
std::unordered_set<const Object*> SharedThreadVars(const Stmt& body) {
  struct Collector : StmtExprVisitor {
    std::unordered_map<const Object*, int> count;
    void VisitStmt_(const AttrStmtNode* op) override {
      const auto* iv = op->node.as<IterVarNode>();
      if (iv && (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) ++count[iv->var.get()];
      StmtExprVisitor::VisitStmt_(op);
    }
  } c;
  if (body.defined()) c.VisitStmt(body);
  std::unordered_set<const Object*> out;
  for (const auto& [var, n] : c.count) {
    if (n > 1) out.insert(var);
  }
  return out;
}

// The variables `body` uses: a handle parameter it names itself (`T.call_packed(..., A_ptr)`)
// must stay a parameter, its buffer matched in the body.
std::unordered_set<const Object*> UsedVars(const Stmt& body) {
  struct Collector : StmtExprVisitor {
    std::unordered_set<const Object*> vars;
    void VisitExpr_(const VarNode* v) override { vars.insert(v); }
  } c;
  if (body.defined()) c.VisitStmt(body);
  return std::move(c.vars);
}

// Buffers the body loads or stores that no statement of it declares (a body-level
// `A = T.Buffer(..., data=a)` alias makes no statement), in order of first use.
std::vector<Buffer> UndeclaredBuffers(const Stmt& body) {
  struct Collector : StmtExprVisitor {
    std::vector<Buffer> used;
    std::unordered_set<const Object*> seen, declared;
    void Use(const Buffer& b) {
      if (seen.insert(b.get()).second) used.push_back(b);
    }
    void VisitExpr_(const BufferLoadNode* op) override {
      Use(op->buffer);
      StmtExprVisitor::VisitExpr_(op);
    }
    void VisitStmt_(const BufferStoreNode* op) override {
      Use(op->buffer);
      StmtExprVisitor::VisitStmt_(op);
    }
    void VisitBufferDef(const Buffer& b) override { declared.insert(b.get()); }
  } c;
  if (body.defined()) c.VisitStmt(body);
  std::vector<Buffer> out;
  for (const Buffer& b : c.used) {
    if (!c.declared.count(b.get())) out.push_back(b);
  }
  return out;
}

}  // namespace

ExprPtr Docsifier::LaunchedThreadVar(const IterVarNode* iv, const std::string& attr_key, DataType extent_dtype) {
  if (ExprPtr existing = Lookup(iv->var.get())) return existing;
  // An IterVar without a domain comes from T.env_thread bound by a plain T.attr (launch_thread
  // would give it one), and launch_thread("tag", extent) would give the variable the extent's
  // dtype: both keep the env_thread form too.
  bool env = shared_thread_vars_.count(iv->var.get()) || !iv->dom.defined() || iv->var->dtype != extent_dtype;
  if (!env || func_stmts_ == nullptr) return nullptr;
  std::string tag = iv->thread_tag.empty() ? attr_key : iv->thread_tag;
  ExprPtr var = DefineIn(func_scope_, iv->var.get(), iv->var->name);
  func_stmts_->push_back(Assign(var, CallE(T("env_thread"), {StrLit(tag)})));
  return var;
}

ExprPtr Docsifier::ThreadAttrCall(const IterVarNode* iv, const std::string& attr_key, ExprPtr var, ExprPtr value) {
  if (iv->dom.defined()) return CallE(T("launch_thread"), {std::move(var), std::move(value)});
  return CallE(T("attr"), {std::move(var), StrLit(attr_key), std::move(value)});
}

StmtPtr Docsifier::PrintPrimFunc(const PrimFunc& f, const std::string& name) {
  std::vector<StmtPtr> stmts;
  std::vector<StmtPtr>* saved_stmts = func_stmts_;
  size_t saved_scope = func_scope_;
  bool saved_relax = relax_ctx_;
  relax_ctx_ = false;
  bool saved_s_tir = s_tir_;
  int64_t s_tir_at = f->attrs.Find(String("s_tir"));
  const auto* s_tir_attr = s_tir_at >= 0 ? f->attrs.value_at(s_tir_at).as<IntImmNode>() : nullptr;
  s_tir_ = s_tir_attr && s_tir_attr->value != 0;
  PushScope();
  func_stmts_ = &stmts;
  func_scope_ = scopes_.size() - 1;
  std::unordered_set<const Object*> saved_shared = std::move(shared_thread_vars_);
  shared_thread_vars_ = SharedThreadVars(f->body);

  // Params: simple buffers inline as annotations; the others bind a handle and match it below.
  std::vector<doc::Arg> args;
  std::vector<bool> inlined(f->params.size(), false);
  // A buffer whose data pointer an earlier param buffer already has (match_buffer(..., data=A.data))
  // is matched in the body, where it can name that pointer.
  std::unordered_set<const Object*> param_data;
  std::unordered_set<const Object*> body_vars = UsedVars(f->body);
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& p = f->params[i];
    int64_t bi = f->buffer_map.Find(p);
    bool shares_data = bi >= 0 && !param_data.insert(f->buffer_map.value_at(bi)->data.get()).second;
    if (bi >= 0 && !shares_data && !body_vars.count(p.get()) && IsSimpleParamBuffer(f->buffer_map.value_at(bi))) {
      Buffer b = f->buffer_map.value_at(bi);
      ExprPtr ann = BufferCall(T("Buffer"), {}, b, /*force_dtype=*/true, false, "");
      ExprPtr id = DefineBuffer(func_scope_, b);
      args.push_back(ArgOf(id->name, ann));
      inlined[i] = true;
      continue;
    }
    // A typed pointer keeps its element type and scope: `A_data: T.handle("float32", "shared")`.
    ExprPtr ann = p->ty.as<PointerTypeNode>() ? VarCreation(p.get())
                : p->dtype.is_handle() || p->dtype.is_void() ? T("handle") : DtypeAnn(p->dtype);
    ExprPtr id = Define(p.get(), p->name);
    args.push_back(ArgOf(id->name, ann));
  }

  bool s_tir = false;
  bool has_symbol = false;
  bool persistent = false;
  std::vector<std::string> skip = {"s_tir"};
  for (size_t i = 0; i < f->attrs.size(); ++i) {
    const std::string& key = f->attrs.key_at(i).str();
    if (key == "tirx.persistent_kernel") {
      // T.prim_func(persistent=True) sets it to True; any other value stays a func_attr.
      const auto* imm = f->attrs.value_at(i).as<IntImmNode>();
      persistent = imm && imm->dtype.is_bool() && imm->value != 0;
      if (persistent) skip.push_back(key);
    } else if (key == "s_tir") {
      const auto* imm = f->attrs.value_at(i).as<IntImmNode>();
      s_tir = imm && imm->value != 0;
    } else if (key == "global_symbol") {
      has_symbol = true;
      const auto* s = f->attrs.value_at(i).as<StringNode>();
      if (s && s->value == name) skip.push_back("global_symbol");
    }
  }
  size_t shown = 0;
  for (size_t i = 0; i < f->attrs.size(); ++i) {
    if (std::find(skip.begin(), skip.end(), f->attrs.key_at(i).str()) == skip.end()) ++shown;
  }
  if (shown > 0) stmts.push_back(ExprStmt(CallE(T("func_attr"), {PrintAttrMap(f->attrs, skip)})));

  for (size_t i = 0; i < f->params.size(); ++i) {
    if (inlined[i]) continue;
    const Var& p = f->params[i];
    int64_t bi = f->buffer_map.Find(p);
    if (bi < 0) continue;
    Buffer b = f->buffer_map.value_at(bi);
    bool data_known = b->data.defined() && Lookup(b->data.get());
    ExprPtr rhs = BufferCall(T("match_buffer"), {Lookup(p.get())}, b, false, data_known, "");
    stmts.push_back(Assign(DefineBuffer(func_scope_, b), rhs));
  }
  // Aliases over a pointer in scope (a handle parameter): `A = T.Buffer(16, "float64", data=a)`.
  std::unordered_set<const Object*> mapped;
  for (const auto& [param, b] : f->buffer_map.items()) mapped.insert(b.get());
  for (const Buffer& b : UndeclaredBuffers(f->body)) {
    if (mapped.count(b.get()) || !b->data.defined() || !Lookup(b->data.get())) continue;
    stmts.push_back(Assign(DefineBuffer(func_scope_, b), BufferCall(T("Buffer"), {}, b, true, true, "")));
  }

  const auto* root = f->body.as<SBlockRealizeNode>();
  if (s_tir && root && root->block->name == "root" && root->block->iter_vars.empty()) {
    size_t first = stmts.size();
    for (const Buffer& b : root->block->alloc_buffers) {
      ExprPtr rhs = BufferCall(T("sblock_alloc_buffer"), {}, b, false, false, "");
      stmts.push_back(Assign(DefineBuffer(func_scope_, b), rhs));
    }
    PrintFrameBody(root->block->body, &stmts);
    // As TVM does, the root block is worth a comment only when it holds something: buffers or
    // nested blocks. Either way the parser re-creates it from s_tir=True.
    if (first < stmts.size() && (!root->block->alloc_buffers.empty() || ContainsBlock(root->block->body))) {
      doc::Comment c;
      c.text = "with T.sblock(\"root\"):";
      stmts[first]->leading_comments.insert(stmts[first]->leading_comments.begin(), c);
    }
  } else if (f->body.defined()) {
    PrintFrameBody(f->body, &stmts);
  }

  Kwargs deco_kw;
  if (!has_symbol) deco_kw.emplace_back("private", BoolLit(true));
  if (s_tir) deco_kw.emplace_back("s_tir", BoolLit(true));
  if (persistent) deco_kw.emplace_back("persistent", BoolLit(true));
  ExprPtr deco = deco_kw.empty() ? T("prim_func") : CallE(T("prim_func"), {}, std::move(deco_kw));
  ExprPtr ret;
  if (const auto* pt = f->ret_type.as<PrimTypeNode>()) {
    if (!pt->dtype.is_void()) ret = DtypeAnn(pt->dtype);
  }
  PopScope();
  func_stmts_ = saved_stmts;
  func_scope_ = saved_scope;
  shared_thread_vars_ = std::move(saved_shared);
  relax_ctx_ = saved_relax;
  s_tir_ = saved_s_tir;
  return FunctionDefS(name, std::move(args), {deco}, ret, std::move(stmts));
}

// ---------------------------------------------------------------- statements

std::vector<StmtPtr> Docsifier::PrintScopedBody(const Stmt& s) {
  std::vector<StmtPtr> body;
  PushScope();
  if (s.defined()) PrintFrameBody(s, &body);
  PopScope();
  return body;
}

void Docsifier::PrintFrameBody(const Stmt& body, std::vector<StmtPtr>* out) {
  frame_body_ = body.get();
  PrintStmt(body, out);
}

bool Docsifier::IsLocalScalar(const AllocBufferNode* op) const {
  if (!op->buffer->shape.empty()) return false;
  const auto* flag = op->annotations.Get("tirx.local_scalar").as<IntImmNode>();
  return flag && flag->value != 0;
}

void Docsifier::PrintAllocBuffer(const AllocBufferNode* op, std::vector<StmtPtr>* out) {
  const Buffer& b = op->buffer;
  if (IsLocalScalar(op)) {
    local_scalars_.insert(b.get());
    std::string scope = b->scope();
    if (scope == "local") {
      out->push_back(AnnAssign(DefineBuffer(scopes_.size() - 1, b), DtypeAnn(b->dtype), nullptr));
    } else {  // `x: T.int32` is local; other scopes spell the scope out
      ExprPtr rhs = scope == "shared" ? CallE(T("shared_scalar"), {StrLit(b->dtype.ToString())})
                                      : CallE(T("alloc_scalar"), {StrLit(b->dtype.ToString()), StrLit(scope)});
      out->push_back(Assign(DefineBuffer(scopes_.size() - 1, b), rhs));
    }
  } else {
    std::string scope = b->scope();
    const char* fn = scope == "local" ? "alloc_local" : scope == "shared" ? "alloc_shared" : "alloc_buffer";
    ExprPtr rhs = BufferCall(T(fn), {}, b, false, false, scope == "local" || scope == "shared" ? scope : "");
    if (!op->annotations.empty()) rhs->keywords.push_back({"annotations", PrintAttrMap(op->annotations), {}});
    out->push_back(Assign(DefineBuffer(scopes_.size() - 1, b), rhs));
  }
  if (op->body.defined()) PrintStmt(op->body, out);
}

// A frame statement (attr, launch_thread, decl_buffer) whose body is not the rest of the enclosing
// block -- it is followed by more statements -- cannot use the implicit "rest of the block" form:
// it is printed as `with ...:` around exactly its body. Returns false for other statements.
bool Docsifier::PrintScopedFrame(const Stmt& s, std::vector<StmtPtr>* out) {
  std::vector<StmtPtr> body;
  if (const auto* op = s.as<AttrStmtNode>()) {
    if (!op->body.defined()) return false;
    PrintAttrStmt(op, out);  // an item of a sequence: printed as `with ...:` (see frame_body_)
    return true;
  }
  if (const auto* op = s.as<AllocBufferNode>()) {
    // `with T.alloc_buffer(...) as b:` (T.decl_buffer without data= reads the same).
    if (!op->body.defined() || IsLocalScalar(op)) return false;
    ExprPtr context = BufferCall(T("alloc_buffer"), {}, op->buffer, false, false, "");
    if (!op->annotations.empty()) context->keywords.push_back({"annotations", PrintAttrMap(op->annotations), {}});
    PushScope();
    ExprPtr as_var = DefineBuffer(scopes_.size() - 1, op->buffer);
    PrintFrameBody(op->body, &body);
    PopScope();
    out->push_back(WithS(context, as_var, std::move(body)));
    return true;
  }
  if (const auto* op = s.as<DeclBufferNode>()) {
    if (!op->body.defined()) return false;
    bool data_known = op->buffer->data.defined() && Lookup(op->buffer->data.get());
    ExprPtr context = BufferCall(T("decl_buffer"), {}, op->buffer, false, data_known, "");
    PushScope();
    ExprPtr as_var = DefineBuffer(scopes_.size() - 1, op->buffer);
    PrintFrameBody(op->body, &body);
    PopScope();
    out->push_back(WithS(context, as_var, std::move(body)));
    return true;
  }
  return false;
}

void Docsifier::PrintAttrStmt(const AttrStmtNode* op, std::vector<StmtPtr>* out) {
  // Node 0 (TVM's dict form; kiln's undefined node) prints as T.attr({key: value, ...}) gathering
  // the node-0 scopes nested directly in it.
  std::vector<const AttrStmtNode*> chain = {op};
  if (!op->node.defined()) {
    while (const auto* next = chain.back()->body.as<AttrStmtNode>()) {
      if (next->node.defined()) break;
      chain.push_back(next);
    }
  }
  const Stmt& body = chain.back()->body;
  // A scope without a body (the last statement of its block) has nothing to hold in a `with`.
  const bool concise = frame_body_ == op || !body.defined();
  frame_body_ = nullptr;
  ExprPtr context, as_var;
  const auto* iv = op->node.as<IterVarNode>();
  if (!concise) PushScope();
  if (iv && (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) {
    ExprPtr value = PrintExpr(op->value);
    if (ExprPtr existing = LaunchedThreadVar(iv, op->attr_key, op->value.dtype())) {
      context = ThreadAttrCall(iv, op->attr_key, existing, value);
    } else {
      std::string tag = iv->thread_tag.empty() ? op->attr_key : iv->thread_tag;
      context = CallE(T("launch_thread"), {StrLit(tag), value});
      as_var = Define(iv->var.get(), iv->var->name);
    }
  } else if (ExprPtr hint = PrintHint(op)) {
    context = hint;
  } else if (!op->node.defined()) {
    std::vector<ExprPtr> keys, values;
    for (const AttrStmtNode* a : chain) {
      keys.push_back(StrLit(a->attr_key));
      values.push_back(PrintExpr(a->value));
    }
    context = CallE(T("attr"), {DictE(std::move(keys), std::move(values))});
  } else {
    context = CallE(T("attr"), {PrintAttrValue(op->node, false), StrLit(op->attr_key), PrintExpr(op->value)});
  }
  if (concise) {
    out->push_back(as_var ? Assign(as_var, context) : ExprStmt(context));
    if (body.defined()) PrintFrameBody(body, out);
    return;
  }
  std::vector<StmtPtr> inner;
  PrintFrameBody(body, &inner);
  PopScope();
  out->push_back(WithS(context, as_var, std::move(inner)));
}

void Docsifier::PrintFor(const ForNode* loop, std::vector<StmtPtr>* out) {
  // Perfectly nested serial loops from 0 whose extents do not depend on each other: T.grid.
  std::vector<const ForNode*> grid;
  std::unordered_set<const Object*> grid_vars;
  for (const ForNode* l = loop; l; l = l->body.as<ForNode>()) {
    if (l->kind != ForKind::kSerial || !IsZero(l->min) || !l->annotations.empty() ||
        (l->step.defined() && !IsOne(l->step)) || UsesAny(l->extent, grid_vars)) {
      break;
    }
    grid.push_back(l);
    grid_vars.insert(l->loop_var.get());
  }
  if (grid.size() > 1) {
    std::vector<ExprPtr> extents;
    for (const ForNode* l : grid) extents.push_back(PrintExpr(l->extent));
    PushScope();
    std::vector<ExprPtr> vars;
    for (const ForNode* l : grid) {
      vars.push_back(Define(l->loop_var.get(), l->loop_var->name));
      loop_ranges_[l->loop_var.get()] = {l->min, l->extent};
    }
    std::vector<StmtPtr> body;
    PrintFrameBody(grid.back()->body, &body);
    for (const ForNode* l : grid) loop_ranges_.erase(l->loop_var.get());
    PopScope();
    ExprPtr target = TupleE(std::move(vars));
    target->parenthesized = false;
    out->push_back(ForS(target, CallE(T("grid"), std::move(extents)), std::move(body)));
    return;
  }

  std::vector<ExprPtr> args;
  if (IsZero(loop->min)) {
    args.push_back(PrintExpr(loop->extent));
  } else {
    args.push_back(PrintExpr(loop->min));
    args.push_back(RangeEnd(loop->min, loop->extent));
  }
  Kwargs kw;
  bool has_step = loop->step.defined() && !IsOne(loop->step);
  ExprPtr prefix;
  switch (loop->kind) {
    case ForKind::kSerial:
      prefix = loop->annotations.empty() && !has_step ? Id("range") : T("serial");
      break;
    case ForKind::kParallel: prefix = T("parallel"); break;
    case ForKind::kVectorized: prefix = T("vectorized"); break;
    case ForKind::kUnrolled: prefix = T("unroll"); break;
    case ForKind::kThreadBinding:
      prefix = T("thread_binding");
      kw.emplace_back("thread", StrLit(loop->thread_binding.defined() ? loop->thread_binding->thread_tag : ""));
      break;
  }
  if (!loop->annotations.empty()) kw.emplace_back("annotations", PrintAttrMap(loop->annotations));
  if (has_step) kw.emplace_back("step", PrintExpr(loop->step));
  ExprPtr iter = CallE(prefix, std::move(args), std::move(kw));
  PushScope();
  ExprPtr var = Define(loop->loop_var.get(), loop->loop_var->name);
  loop_ranges_[loop->loop_var.get()] = {loop->min, loop->extent};
  std::vector<StmtPtr> body;
  PrintFrameBody(loop->body, &body);
  loop_ranges_.erase(loop->loop_var.get());
  PopScope();
  out->push_back(ForS(var, iter, std::move(body)));
}

void Docsifier::PrintBlockRealize(const SBlockRealizeNode* realize, std::vector<StmtPtr>* out) {
  const SBlock& block = realize->block;
  std::vector<StmtPtr> body;
  PushScope();

  std::vector<size_t> group;  // consecutive remappable axes
  auto remappable = [&](size_t i) -> bool {
    if (i >= realize->iter_values.size()) return false;
    const IterVar& iv = block->iter_vars[i];
    if (iv->iter_type != IterVarType::kDataPar && iv->iter_type != IterVarType::kCommReduce) return false;
    const auto* v = realize->iter_values[i].as<VarNode>();
    if (!v || !Lookup(v) || !iv->dom.defined()) return false;
    auto it = loop_ranges_.find(v);
    if (it == loop_ranges_.end()) return false;
    return StructuralEqual(it->second.first, iv->dom->min) &&
           StructuralEqual(it->second.second, iv->dom->extent);
  };
  auto print_single = [&](size_t i) {
    const IterVar& iv = block->iter_vars[i];
    ExprPtr dom;
    if (!iv->dom.defined()) {
      dom = NoneLit();
    } else if (IsZero(iv->dom->min)) {
      dom = PrintExpr(iv->dom->extent);
    } else {
      dom = TupleE({PrintExpr(iv->dom->min), RangeEnd(iv->dom->min, iv->dom->extent)});
    }
    std::vector<ExprPtr> args = {dom};
    if (i < realize->iter_values.size()) args.push_back(PrintExpr(realize->iter_values[i]));
    ExprPtr rhs = CallE(Attr(T("axis"), AxisKind(iv->iter_type)), std::move(args));
    body.push_back(Assign(Define(iv->var.get(), iv->var->name), rhs));
  };
  auto flush = [&]() {
    if (group.size() == 1) {
      print_single(group[0]);
    } else if (group.size() > 1) {
      std::string kinds;
      std::vector<ExprPtr> values;
      for (size_t i : group) {
        kinds += block->iter_vars[i]->iter_type == IterVarType::kDataPar ? "S" : "R";
        values.push_back(PrintExpr(realize->iter_values[i]));
      }
      std::vector<ExprPtr> lhs;
      for (size_t i : group) lhs.push_back(Define(block->iter_vars[i]->var.get(), block->iter_vars[i]->var->name));
      ExprPtr target = TupleE(std::move(lhs));
      target->parenthesized = false;
      body.push_back(Assign(target, CallE(Attr(T("axis"), "remap"), {StrLit(kinds), ListE(std::move(values))})));
    }
    group.clear();
  };
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (remappable(i)) {
      group.push_back(i);
    } else {
      flush();
      print_single(i);
    }
  }
  flush();

  if (!IsConstTrue(realize->predicate)) body.push_back(ExprStmt(CallE(T("where"), {PrintExpr(realize->predicate)})));
  std::vector<ExprPtr> reads, writes;
  for (const BufferRegion& r : block->reads) reads.push_back(PrintRegion(r));
  for (const BufferRegion& r : block->writes) writes.push_back(PrintRegion(r));
  body.push_back(ExprStmt(CallE(T("reads"), std::move(reads))));
  body.push_back(ExprStmt(CallE(T("writes"), std::move(writes))));
  if (!block->annotations.empty()) body.push_back(ExprStmt(CallE(T("sblock_attr"), {PrintAttrMap(block->annotations)})));
  for (const Buffer& b : block->alloc_buffers) {
    ExprPtr rhs = BufferCall(T("sblock_alloc_buffer"), {}, b, false, false, "");
    body.push_back(Assign(DefineBuffer(scopes_.size() - 1, b), rhs));
  }
  for (const MatchBufferRegion& m : block->match_buffers) {
    ExprPtr rhs = BufferCall(T("match_buffer"), {PrintRegion(m->source)}, m->buffer, false, false, "");
    body.push_back(Assign(DefineBuffer(scopes_.size() - 1, m->buffer), rhs));
  }
  if (block->init.defined()) body.push_back(WithS(CallE(T("init"), {}), nullptr, PrintScopedBody(block->init)));
  if (block->body.defined()) PrintFrameBody(block->body, &body);
  PopScope();
  out->push_back(WithS(CallE(T("sblock"), {StrLit(block->name)}), nullptr, std::move(body)));
}

void Docsifier::PrintStmt(const Stmt& s, std::vector<StmtPtr>* out) {
  switch (s->kind()) {
    case NodeKind::kSeqStmt: {
      const Array<Stmt>& seq = static_cast<const SeqStmtNode*>(s.get())->seq;
      for (size_t i = 0; i < seq.size(); ++i) {
        if (i + 1 < seq.size() && PrintScopedFrame(seq[i], out)) continue;
        PrintStmt(seq[i], out);
      }
      return;
    }
    case NodeKind::kLetStmt: {
      const auto* op = static_cast<const LetStmtNode*>(s.get());
      ExprPtr value = PrintExpr(op->value);
      const auto* decl = op->body.as<DeclBufferNode>();
      const auto* ptr = op->var->ty.as<PointerTypeNode>();
      if (decl && decl->buffer->data.same_as(op->var) && !Lookup(op->var.get()) && ptr &&
          StructuralEqual(ptr->element_type, PrimType(decl->buffer->dtype)) && !op->value.as<VarNode>()) {
        // A let that only gives a declared buffer its (typed) data pointer prints as TVM writes
        // it: T.decl_buffer(..., data=<pointer expression>); later uses of the pointer are B.data.
        // (data=<variable> would use that variable itself, so a let of a variable stays.)
        PushScope();
        Alias(scopes_.size() - 1, op->var.get(), value);
        ExprPtr rhs = BufferCall(T("decl_buffer"), {}, decl->buffer, false, true, "");
        PopScope();
        out->push_back(Assign(DefineBuffer(scopes_.size() - 1, decl->buffer), rhs));
        if (decl->body.defined()) PrintStmt(decl->body, out);
        return;
      }
      if (ExprPtr bound = Lookup(op->var.get())) {
        // A second binding of a variable in scope (not SSA; check_well_formed=False): T.bind
        // rebinds that same variable where a T.let would define a new one.
        out->push_back(ExprStmt(CallE(T("bind"), {value}, {{"var", bound}})));
        if (op->body.defined()) PrintStmt(op->body, out);
        return;
      }
      ExprPtr var = Define(op->var.get(), op->var->name);
      ExprPtr ann = op->var->ty.as<PointerTypeNode>() ? VarCreation(op->var.get()) : DtypeAnn(op->var->dtype);
      out->push_back(AnnAssign(var, Index(T("let"), {ann}), value));
      if (op->body.defined()) PrintStmt(op->body, out);
      return;
    }
    case NodeKind::kAttrStmt:
      PrintAttrStmt(static_cast<const AttrStmtNode*>(s.get()), out);
      return;
    case NodeKind::kScopeIdDefStmt:
      PrintScopeIdDef(static_cast<const ScopeIdDefStmtNode*>(s.get()), out);
      return;
    case NodeKind::kTilePrimitiveCall:
      PrintTilePrimitiveCall(static_cast<const TilePrimitiveCallNode*>(s.get()), out);
      return;
    case NodeKind::kAssertStmt: {
      const auto* op = static_cast<const AssertStmtNode*>(s.get());
      std::vector<ExprPtr> parts;
      for (const String& p : op->message_parts) parts.push_back(StrLit(p.str()));
      out->push_back(AssertS(PrintExpr(op->condition), TupleE({StrLit(op->error_kind), ListE(std::move(parts))})));
      if (op->body.defined()) PrintStmt(op->body, out);
      return;
    }
    case NodeKind::kBufferStore: {
      const auto* op = static_cast<const BufferStoreNode*>(s.get());
      ExprPtr value = PrintExpr(op->value);
      if (local_scalars_.count(op->buffer.get())) {
        out->push_back(Assign(BufferRef(op->buffer), value));
        return;
      }
      if (op->predicate.defined()) {  // a masked store: A.vstore([indices], value, predicate=mask)
        std::vector<ExprPtr> idx;
        for (const PrimExpr& i : op->indices) idx.push_back(PrintExpr(i));
        out->push_back(ExprStmt(CallE(Attr(BufferRef(op->buffer), "vstore"), {ListE(std::move(idx)), value},
                                      {{"predicate", PrintExpr(op->predicate)}})));
        return;
      }
      out->push_back(Assign(Index(BufferRef(op->buffer), BufferIndices(op->indices)), value));
      return;
    }
    case NodeKind::kFor:
      PrintFor(static_cast<const ForNode*>(s.get()), out);
      return;
    case NodeKind::kWhile: {
      const auto* op = static_cast<const WhileNode*>(s.get());
      out->push_back(WhileS(PrintExpr(op->condition), PrintScopedBody(op->body)));
      return;
    }
    // TVM's parser reads `break` / `continue` as T.evaluate(T.break_loop()) /
    // T.evaluate(T.continue_loop()), which its printer writes as the bare call; kiln's Break and
    // Continue nodes are what those calls parse to, so they print the same way.
    case NodeKind::kBreak:
      out->push_back(ExprStmt(CallE(T("break_loop"), {})));
      return;
    case NodeKind::kContinue:
      out->push_back(ExprStmt(CallE(T("continue_loop"), {})));
      return;
    case NodeKind::kIfThenElse: {
      const auto* op = static_cast<const IfThenElseNode*>(s.get());
      ExprPtr cond = PrintExpr(op->condition);
      std::vector<StmtPtr> then_body = PrintScopedBody(op->then_case);
      std::vector<StmtPtr> else_body;
      if (op->else_case.defined()) else_body = PrintScopedBody(op->else_case);
      out->push_back(IfS(cond, std::move(then_body), std::move(else_body)));
      return;
    }
    case NodeKind::kEvaluate: {
      const auto* op = static_cast<const EvaluateNode*>(s.get());
      if (const auto* call = op->value.as<CallNode>()) {
        const auto* callee = call->op.as<OpNode>();
        if (callee && callee->name == "tirx.ret" && call->args.size() == 1) {
          out->push_back(ReturnS(PrintExpr(call->args[0])));
        } else {
          out->push_back(ExprStmt(PrintExpr(op->value)));
        }
        return;
      }
      out->push_back(ExprStmt(CallE(T("evaluate"), {PrintExpr(op->value)})));
      return;
    }
    case NodeKind::kAllocBuffer:
      PrintAllocBuffer(static_cast<const AllocBufferNode*>(s.get()), out);
      return;
    case NodeKind::kDeclBuffer: {
      const auto* op = static_cast<const DeclBufferNode*>(s.get());
      // The data pointer is always named: without data= the buffer would read back as an
      // allocation. A pointer defined nowhere (a check_well_formed=False function's free
      // variable) is defined at the top of the function, as TVM prints free variables.
      ExprPtr rhs = BufferCall(T("decl_buffer"), {}, op->buffer, false, op->buffer->data.defined(), "");
      out->push_back(Assign(DefineBuffer(scopes_.size() - 1, op->buffer), rhs));
      if (op->body.defined()) PrintStmt(op->body, out);
      return;
    }
    case NodeKind::kSBlockRealize:
      PrintBlockRealize(static_cast<const SBlockRealizeNode*>(s.get()), out);
      return;
    case NodeKind::kSBlock: {
      // A block outside a realize: print it as realized with no bindings.
      SBlockRealize realize({}, IntImm(DataType::Bool(), 1), Downcast<SBlock>(s));
      PrintBlockRealize(realize.get(), out);
      return;
    }
    default: {
      doc::Comment c;
      c.text = std::string("unsupported statement ") + s->type_key();
      StmtPtr pass = std::make_shared<doc::Stmt>(doc::StmtKind::kPass);
      pass->leading_comments.push_back(c);
      out->push_back(pass);
      return;
    }
  }
}

// ---------------------------------------------------------------- expressions

ExprPtr Docsifier::VarCreation(const VarNode* v) {
  if (v->dtype.is_handle()) {
    if (const auto* pt = v->ty.as<PointerTypeNode>()) {
      if (const auto* elem = pt->element_type.as<PrimTypeNode>()) {
        std::vector<ExprPtr> args = {StrLit(elem->dtype.ToString())};
        if (pt->storage_scope != "global" && !pt->storage_scope.empty()) args.push_back(StrLit(pt->storage_scope));
        return CallE(T("handle"), std::move(args));
      }
      if (pt->element_type.as<TensorMapTypeNode>()) return CallE(T("TensorMap"), {});
    }
    return CallE(T("handle"), {});
  }
  Kwargs kw;
  if (v->kind() == NodeKind::kSizeVar) kw.emplace_back("is_size_var", BoolLit(true));
  return CallE(DtypeAnn(v->dtype), {}, std::move(kw));
}

ExprPtr Docsifier::PrintVarUse(const VarNode* v) {
  if (ExprPtr d = Lookup(v)) return d;
  if (func_stmts_ == nullptr) return Id(v->name.empty() ? "v" : v->name);
  // A free variable (a symbolic shape var): define it at the top of the function.
  ExprPtr id = DefineIn(func_scope_, v, v->name);
  func_stmts_->push_back(Assign(id, VarCreation(v)));
  return id;
}

ExprPtr Docsifier::PrintIntImm(const IntImmNode* imm) {
  if (imm->dtype.is_bool()) return CallE(T("bool"), {BoolLit(imm->value != 0)});
  // A bare literal is int32 in TIR and int64 in Relax (R.prim_value(0), shape dims); other widths
  // spell their dtype (R.prim_value(T.int32(0))).
  if (imm->dtype == (relax_ctx_ ? DataType::Int(64) : DataType::Int(32))) return IntLit(imm->value);
  return CallE(DtypeAnn(imm->dtype), {IntLit(imm->value)});
}

ExprPtr Docsifier::PrintCall(const CallNode* call) {
  std::vector<ExprPtr> args;
  if (const auto* gv = call->op.as<GlobalVarNode>()) {
    for (const PrimExpr& a : call->args) args.push_back(PrintExpr(a));
    return CallE(Attr(Id("Module"), gv->name), std::move(args));
  }
  const auto* op = call->op.as<OpNode>();
  std::string op_name = op ? op->name : "";
  const tir::IntrinsicInfo* info = tir::IntrinsicRegistry::Global().FindByName(op_name);
  if (!info) {
    args.push_back(StrLit(call->dtype.ToString()));
    args.push_back(StrLit(op_name));
    for (const PrimExpr& a : call->args) args.push_back(PrintExpr(a));
    return CallE(T("call_intrin"), std::move(args));
  }
  using Rule = tir::IntrinsicInfo::DTypeRule;
  bool explicit_dtype = info->dtype_rule == Rule::kExplicit;
  // A call whose dtype is not the one its script form gives (T.Call(op, args, ret_ty="void") of
  // an int32 op) is printed as the node constructor so that it re-parses unchanged.
  DataType implied;
  switch (info->dtype_rule) {
    case Rule::kSameAsFirstArg: implied = call->args.empty() ? DataType::Int(32) : call->args[0].dtype(); break;
    case Rule::kBool: implied = DataType::Bool(); break;
    case Rule::kExplicit: implied = call->dtype; break;
    case Rule::kSecondArg:
    case Rule::kValueArg: implied = call->args.size() > 1 ? call->args[1].dtype() : call->dtype; break;
    case Rule::kUInt64: implied = DataType::UInt(64); break;
    case Rule::kFloat32: implied = DataType::Float(32); break;
    case Rule::kInt32: implied = DataType::Int(32); break;
    case Rule::kHandle: implied = DataType::Handle(); break;
    case Rule::kVoid: implied = DataType::Void(); break;
    case Rule::kUInt32: implied = DataType::UInt(32); break;
    case Rule::kBoolLanesOfFirstArg: implied = call->args.empty() ? call->dtype : DataType::Bool(call->args[0].dtype().lanes()); break;
    case Rule::kNamedByArg1:
    case Rule::kIntOfArg0Bits: implied = tir::DTypeFromArgs(*info, call->args).value_or(call->dtype); break;
  }
  if (implied != call->dtype) {
    std::vector<ExprPtr> list;
    for (const PrimExpr& a : call->args) list.push_back(PrintExpr(a));
    return CallE(T("Call"), {StrLit(op_name), ListE(std::move(list))}, {{"ret_ty", StrLit(call->dtype.ToString())}});
  }
  if (info->script_name == "cuda.func_call") {
    // The source (the last operand) and a non-void result type go by keyword, as TVM prints them.
    for (size_t i = 0; i + 1 < call->args.size(); ++i) args.push_back(PrintExpr(call->args[i]));
    Kwargs kw = {{"source_code", PrintExpr(call->args.back())}};
    if (!call->dtype.is_void()) kw.emplace_back("return_type", StrLit(call->dtype.ToString()));
    return CallE(T(info->script_name), std::move(args), std::move(kw));
  }
  bool dtype_last = info->script_name == "tvm_struct_get";
  if (explicit_dtype && !dtype_last) args.push_back(StrLit(call->dtype.ToString()));
  for (const PrimExpr& a : call->args) args.push_back(PrintExpr(a));
  if (explicit_dtype && dtype_last) args.push_back(StrLit(call->dtype.ToString()));
  Kwargs kw;
  if (info->script_name == "ptx_legacy.mma" && args.size() == 14) {
    // A 14th positional argument would be read as a leading dtype: the operator goes by name.
    kw.emplace_back("operator", args.back());
    args.pop_back();
  }
  return CallE(T(info->script_name), std::move(args), std::move(kw));
}

ExprPtr Docsifier::PrintExpr(const PrimExpr& e) {
  if (!e.defined()) return NoneLit();
  auto bin = [&](const char* op) {
    const auto* n = static_cast<const BinaryNode*>(e.get());
    return BinOp(op, PrintExpr(n->a), PrintExpr(n->b));
  };
  auto cmp = [&](const char* op) {
    const auto* n = static_cast<const BinaryNode*>(e.get());
    return Compare(PrintExpr(n->a), op, PrintExpr(n->b));
  };
  // A node the operator would fold when re-parsed (x + 0, 3 * 4, 1 < 2, ...) is printed with its
  // constructor, as TVM's printer does.
  auto folds = [&](tir::BinaryOpKind kind) {
    const auto* n = static_cast<const BinaryNode*>(e.get());
    return tir::OperatorFolds(kind, n->a, n->b);
  };
  auto fn2 = [&](const char* name) {
    const auto* n = static_cast<const BinaryNode*>(e.get());
    // The constructor reads a bare int as int32 even in Relax (T.FloorDiv(T.int64(32), 4)'s
    // operands are TIR's), so its operands are printed as in TIR.
    const bool relax = relax_ctx_;
    relax_ctx_ = false;
    ExprPtr a = PrintExpr(n->a), b = PrintExpr(n->b);
    relax_ctx_ = relax;
    return CallE(T(name), {a, b});
  };
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kSizeVar:
      return PrintVarUse(static_cast<const VarNode*>(e.get()));
    case NodeKind::kIntImm:
      return PrintIntImm(static_cast<const IntImmNode*>(e.get()));
    case NodeKind::kFloatImm: {
      const auto* f = static_cast<const FloatImmNode*>(e.get());
      ExprPtr lit = FloatLit(f->value);
      if (std::isnan(f->value)) lit = StrLit("nan");
      if (std::isinf(f->value)) lit = StrLit(f->value > 0 ? "inf" : "-inf");
      return CallE(DtypeAnn(f->dtype), {lit});
    }
    case NodeKind::kStringImm:
      return StrLit(static_cast<const StringImmNode*>(e.get())->value);
    case NodeKind::kCast: {
      const auto* n = static_cast<const CastNode*>(e.get());
      return CallE(T("Cast"), {StrLit(n->dtype.ToString()), PrintExpr(n->value)});
    }
    case NodeKind::kAdd: return folds(tir::BinaryOpKind::kAdd) ? fn2("Add") : bin("+");
    case NodeKind::kSub: return folds(tir::BinaryOpKind::kSub) ? fn2("Sub") : bin("-");
    case NodeKind::kMul: return folds(tir::BinaryOpKind::kMul) ? fn2("Mul") : bin("*");
    case NodeKind::kDiv:
      return folds(tir::BinaryOpKind::kDiv) ? fn2("Div") : e.dtype().is_floating() ? bin("/") : fn2("truncdiv");
    case NodeKind::kMod: return folds(tir::BinaryOpKind::kMod) ? fn2("Mod") : fn2("truncmod");
    case NodeKind::kFloorDiv: return folds(tir::BinaryOpKind::kFloorDiv) ? fn2("FloorDiv") : bin("//");
    case NodeKind::kFloorMod: return folds(tir::BinaryOpKind::kFloorMod) ? fn2("FloorMod") : bin("%");
    case NodeKind::kMin: return folds(tir::BinaryOpKind::kMin) ? fn2("Min") : fn2("min");
    case NodeKind::kMax: return folds(tir::BinaryOpKind::kMax) ? fn2("Max") : fn2("max");
    case NodeKind::kEQ: return folds(tir::BinaryOpKind::kEQ) ? fn2("EQ") : cmp("==");
    case NodeKind::kNE: return folds(tir::BinaryOpKind::kNE) ? fn2("NE") : cmp("!=");
    case NodeKind::kLT: return folds(tir::BinaryOpKind::kLT) ? fn2("LT") : cmp("<");
    case NodeKind::kLE: return folds(tir::BinaryOpKind::kLE) ? fn2("LE") : cmp("<=");
    case NodeKind::kGT: return folds(tir::BinaryOpKind::kGT) ? fn2("GT") : cmp(">");
    case NodeKind::kGE: return folds(tir::BinaryOpKind::kGE) ? fn2("GE") : cmp(">=");
    case NodeKind::kAnd:
    case NodeKind::kOr: {
      std::vector<PrimExpr> parts;
      if (e->kind() == NodeKind::kAnd) FlattenLeft<AndNode>(e, &parts); else FlattenLeft<OrNode>(e, &parts);
      std::vector<ExprPtr> values;
      for (const PrimExpr& p : parts) values.push_back(PrintExpr(p));
      return BoolOpE(e->kind() == NodeKind::kAnd ? "and" : "or", std::move(values));
    }
    case NodeKind::kNot:
      return UnaryOp("not", PrintExpr(static_cast<const NotNode*>(e.get())->a));
    case NodeKind::kSelect: {
      const auto* n = static_cast<const SelectNode*>(e.get());
      return CallE(T("Select"), {PrintExpr(n->condition), PrintExpr(n->true_value), PrintExpr(n->false_value)});
    }
    case NodeKind::kBufferLoad: {
      const auto* n = static_cast<const BufferLoadNode*>(e.get());
      if (local_scalars_.count(n->buffer.get()) && !n->predicate.defined()) return BufferRef(n->buffer);
      if (n->predicate.defined()) {  // a masked load: A.vload([indices], predicate=mask)
        std::vector<ExprPtr> idx;
        for (const PrimExpr& i : n->indices) idx.push_back(PrintExpr(i));
        return CallE(Attr(BufferRef(n->buffer), "vload"), {ListE(std::move(idx))}, {{"predicate", PrintExpr(n->predicate)}});
      }
      return Index(BufferRef(n->buffer), BufferIndices(n->indices));
    }
    case NodeKind::kRamp: {
      const auto* n = static_cast<const RampNode*>(e.get());
      return CallE(T("Ramp"), {PrintExpr(n->base), PrintExpr(n->stride), PrintLanes(n->lanes)});
    }
    case NodeKind::kBroadcast: {
      const auto* n = static_cast<const BroadcastNode*>(e.get());
      return CallE(T("Broadcast"), {PrintExpr(n->value), PrintLanes(n->lanes)});
    }
    case NodeKind::kShuffle: {
      const auto* n = static_cast<const ShuffleNode*>(e.get());
      std::vector<ExprPtr> vecs, idx;
      for (const PrimExpr& v : n->vectors) vecs.push_back(PrintExpr(v));
      for (const PrimExpr& i : n->indices) idx.push_back(PrintExpr(i));
      return CallE(T("Shuffle"), {ListE(std::move(vecs)), ListE(std::move(idx))});
    }
    case NodeKind::kLet: {
      const auto* n = static_cast<const LetNode*>(e.get());
      ExprPtr value = PrintExpr(n->value);
      PushScope();
      ExprPtr var = Define(n->var.get(), n->var->name);
      ExprPtr body = PrintExpr(n->body);
      PopScope();
      return CallE(T("Let"), {body}, {{"where", DictE({var}, {value})}});
    }
    case NodeKind::kCall:
      return PrintCall(static_cast<const CallNode*>(e.get()));
    default:
      // A Relax var reached through a PrimExpr slot (e.g. an attribute value).
      if (const auto* v = e.as<VarNode>()) return PrintVarUse(v);
      return StrLit(e->type_key());
  }
}

}  // namespace kiln::script::printer
