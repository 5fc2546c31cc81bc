#include "compiler/script/builder/tir_builder.h"

#include <utility>

namespace kiln::script::builder {

using namespace ir;  // NOLINT: this file is about IR node types only

Stmt MakeBody(std::vector<Stmt> stmts) {
  if (stmts.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
  if (stmts.size() == 1) return stmts[0];
  return SeqStmt::Flatten(stmts);
}

void TIRBuilder::BeginPrimFunc(std::string name) {
  Frame f{Kind::kFunc, {}, nullptr, nullptr, std::make_unique<PrimFuncData>()};
  f.func->name = std::move(name);
  frames_.push_back(std::move(f));
}

PrimFuncData* TIRBuilder::func() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->kind == Kind::kFunc) return it->func.get();
  }
  return nullptr;
}

void TIRBuilder::CloseImplicit() {
  while (!frames_.empty() && frames_.back().kind == Kind::kImplicit) {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    Stmt s = f.wrap(MakeBody(std::move(f.stmts)));
    frames_.back().stmts.push_back(std::move(s));
  }
}

Stmt TIRBuilder::TakeBody(Frame* f) { return MakeBody(std::move(f->stmts)); }

absl::StatusOr<PrimFunc> TIRBuilder::EndPrimFunc(Span span) {
  CloseImplicit();
  if (frames_.empty() || frames_.back().kind != Kind::kFunc) {
    return absl::InternalError("EndPrimFunc without a matching BeginPrimFunc");
  }
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  PrimFuncData& d = *f.func;
  Stmt body = TakeBody(&f);
  Map<String, ObjectRef> attrs;
  if (!d.is_private && !d.attrs.count(String("global_symbol"))) attrs.Set(String("global_symbol"), String(d.name));
  // global_symbol always comes first, wherever a func_attr wrote it, so that the attribute order
  // does not depend on how the function was spelled.
  if (d.attrs.count(String("global_symbol"))) attrs.Set(String("global_symbol"), d.attrs.Get(String("global_symbol")));
  for (const auto& [k, v] : d.attrs.items()) attrs.Set(k, v);
  if (d.s_tir) {
    attrs.Set(String("s_tir"), IntImm(DataType::Bool(), 1));
    auto root = make_object<SBlockNode>();
    root->name = "root";
    root->body = body;
    root->alloc_buffers = d.root_alloc_buffers;
    body = SBlockRealize({}, IntImm(DataType::Bool(), 1), SBlock(ObjectPtr<Object>(std::move(root))));
  }
  // The buffer map in parameter order, however the buffers were declared (T.Buffer annotation or a
  // T.match_buffer statement): the printer may move one to the other.
  Map<Var, Buffer> buffer_map;
  for (const Var& p : d.params) {
    if (d.buffer_map.count(p)) buffer_map.Set(p, d.buffer_map.Get(p));
  }
  return PrimFunc(d.params, body, d.ret_type, buffer_map, attrs, span);
}

void TIRBuilder::BeginScope() { frames_.push_back(Frame{Kind::kScope, {}, nullptr, nullptr, nullptr}); }

Stmt TIRBuilder::EndScope() {
  CloseImplicit();
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  return TakeBody(&f);
}

void TIRBuilder::BeginImplicit(Wrap wrap) {
  frames_.push_back(Frame{Kind::kImplicit, {}, std::move(wrap), nullptr, nullptr});
}

void TIRBuilder::BeginBlock(std::string name) {
  Frame f{Kind::kBlock, {}, nullptr, std::make_unique<BlockData>(), nullptr};
  f.block->name = std::move(name);
  frames_.push_back(std::move(f));
}

BlockData* TIRBuilder::block() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->kind == Kind::kBlock) return it->block.get();
    if (it->kind == Kind::kFunc) return nullptr;
  }
  return nullptr;
}

BlockData* TIRBuilder::top_block() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->kind == Kind::kImplicit) continue;
    return it->kind == Kind::kBlock ? it->block.get() : nullptr;
  }
  return nullptr;
}

Stmt TIRBuilder::EndBlock(Span span) {
  CloseImplicit();
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  BlockData& d = *f.block;
  auto n = make_object<SBlockNode>();
  n->name = d.name;
  n->iter_vars = d.iter_vars;
  n->reads = d.reads;
  n->writes = d.writes;
  n->init = d.init;
  n->alloc_buffers = d.alloc_buffers;
  n->match_buffers = d.match_buffers;
  n->annotations = d.annotations;
  n->body = TakeBody(&f);
  n->span = span;
  PrimExpr pred = d.predicate.defined() ? d.predicate : IntImm(DataType::Bool(), 1);
  Stmt realize = SBlockRealize(d.iter_values, pred, SBlock(ObjectPtr<Object>(std::move(n))), span);
  Emit(realize);
  return realize;
}

void TIRBuilder::Emit(Stmt s) { frames_.back().stmts.push_back(std::move(s)); }

void TIRBuilder::For(Var var, PrimExpr min, PrimExpr extent, ForKind kind, const std::function<void()>& body) {
  BeginScope();
  body();
  Emit(ir::For(std::move(var), std::move(min), std::move(extent), kind, EndScope()));
}

void TIRBuilder::Let(Var var, PrimExpr value) {
  BeginImplicit([var, value](Stmt body) { return LetStmt(var, value, body); });
}

void TIRBuilder::AllocBuffer(Buffer buffer, Map<String, ObjectRef> annotations) {
  BeginImplicit([buffer, annotations](Stmt body) { return ir::AllocBuffer(buffer, body, annotations); });
}

}  // namespace kiln::script::builder
