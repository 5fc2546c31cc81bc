#include "compiler/script/builder/relax_builder.h"

#include <utility>

namespace kiln::script::builder {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

void RelaxBuilder::BeginFunction(std::string name) {
  Frame f{Kind::kFunc, {}, {}, std::make_unique<FunctionData>()};
  f.func->name = std::move(name);
  frames_.push_back(std::move(f));
}

FunctionData* RelaxBuilder::func() {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->kind == Kind::kFunc) return it->func.get();
  }
  return nullptr;
}

void RelaxBuilder::FlushBindings(Frame* f) {
  if (f->bindings.empty()) return;
  f->blocks.push_back(rx::BindingBlock(Array<rx::Binding>(f->bindings)));
  f->bindings.clear();
}

rx::SeqExpr RelaxBuilder::Finish(Frame* f, Expr body, Span span) {
  FlushBindings(f);
  return rx::SeqExpr(Array<rx::BindingBlock>(f->blocks), std::move(body), span);
}

absl::StatusOr<rx::Function> RelaxBuilder::EndFunction(Expr result, bool top_level, Span span) {
  if (frames_.empty() || frames_.back().kind != Kind::kFunc) {
    return absl::InternalError("EndFunction without a matching BeginFunction");
  }
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  FunctionData& d = *f.func;
  rx::SeqExpr body = Finish(&f, std::move(result), span);
  Map<String, ObjectRef> attrs;
  if (top_level && !d.is_private && !d.attrs.count(String("global_symbol"))) {
    attrs.Set(String("global_symbol"), String(d.name));
  }
  // global_symbol always comes first, wherever a func_attr wrote it, so that the attribute order
  // does not depend on how the function was spelled.
  if (d.attrs.count(String("global_symbol"))) attrs.Set(String("global_symbol"), d.attrs.Get(String("global_symbol")));
  for (const auto& [k, v] : d.attrs.items()) attrs.Set(k, v);
  return rx::Function(d.params, body, d.ret_ty, d.is_pure, attrs, span);
}

void RelaxBuilder::BeginSeq() { frames_.push_back(Frame{Kind::kSeq, {}, {}, nullptr}); }

rx::SeqExpr RelaxBuilder::EndSeq(Expr body, Span span) {
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  return Finish(&f, std::move(body), span);
}

void RelaxBuilder::BeginDataflow() {
  FlushBindings(&frames_.back());
  frames_.push_back(Frame{Kind::kDataflow, {}, {}, nullptr});
}

bool RelaxBuilder::in_dataflow() const { return !frames_.empty() && frames_.back().kind == Kind::kDataflow; }

void RelaxBuilder::EndDataflowOutputs() {
  if (in_dataflow()) frames_.back().ended = true;
}

bool RelaxBuilder::dataflow_ended() const { return in_dataflow() && frames_.back().ended; }

bool RelaxBuilder::BoundInDataflow(const ir::Var& var) const {
  if (!in_dataflow()) return false;
  for (const rx::Binding& b : frames_.back().bindings) {
    if (b->var.same_as(var)) return true;
  }
  return false;
}

void RelaxBuilder::EndDataflow(Span span) {
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  frames_.back().blocks.push_back(rx::DataflowBlock(Array<rx::Binding>(f.bindings), span));
}

void RelaxBuilder::Emit(rx::Binding binding) { frames_.back().bindings.push_back(std::move(binding)); }

rx::Binding RelaxBuilder::LastBinding() const {
  if (frames_.empty()) return rx::Binding();
  const Frame& f = frames_.back();
  if (!f.bindings.empty()) return f.bindings.back();
  if (!f.blocks.empty() && !f.blocks.back()->bindings.empty()) return f.blocks.back()->bindings.back();
  return rx::Binding();
}

}  // namespace kiln::script::builder
