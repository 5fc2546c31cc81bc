#include "compiler/relax/legalize/loops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/relax/legalize/kernel_call.h"

namespace kiln::relax::legalize {

using namespace ir;  // NOLINT: this file is about IR node types only

namespace {

const IntImmNode* AsInt(const PrimExpr& e) { return e.defined() ? e.as<IntImmNode>() : nullptr; }

int64_t FloorDivInt(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

int64_t ConstOr(const PrimExpr& e, int64_t fallback) {
  const IntImmNode* c = AsInt(e);
  return c != nullptr ? c->value : fallback;
}
bool IsConst(const PrimExpr& e, int64_t v) {
  const IntImmNode* c = AsInt(e);
  return c != nullptr && c->value == v;
}

PrimExpr AsIndex(const PrimExpr& e) {
  if (e.dtype() == DataType::Int(64)) return e;
  if (const IntImmNode* c = AsInt(e)) return Int64(c->value);
  return Cast(DataType::Int(64), e);
}

PrimExpr Plus(const PrimExpr& a, const PrimExpr& b) {
  const IntImmNode *x = AsInt(a), *y = AsInt(b);
  if (x != nullptr && y != nullptr) return Int64(x->value + y->value);
  if (x != nullptr && x->value == 0) return b;
  if (y != nullptr && y->value == 0) return a;
  return Add(a, b);
}
PrimExpr Minus(const PrimExpr& a, const PrimExpr& b) {
  const IntImmNode *x = AsInt(a), *y = AsInt(b);
  if (x != nullptr && y != nullptr) return Int64(x->value - y->value);
  if (y != nullptr && y->value == 0) return a;
  if (a.same_as(b)) return Int64(0);
  return Sub(a, b);
}
PrimExpr Times(const PrimExpr& a, const PrimExpr& b) {
  const IntImmNode *x = AsInt(a), *y = AsInt(b);
  if (x != nullptr && y != nullptr) return Int64(x->value * y->value);
  if ((x != nullptr && x->value == 0) || (y != nullptr && y->value == 0)) return Int64(0);
  if (x != nullptr && x->value == 1) return b;
  if (y != nullptr && y->value == 1) return a;
  return Mul(a, b);
}
PrimExpr FloorDivBy(const PrimExpr& a, int64_t k) {
  if (k == 1) return a;
  if (const IntImmNode* x = AsInt(a)) return Int64(FloorDivInt(x->value, k));
  return FloorDiv(a, Int64(k));
}
PrimExpr CeilDivBy(const PrimExpr& a, int64_t k) {
  if (k == 1) return a;
  return FloorDivBy(Plus(a, Int64(k - 1)), k);
}
PrimExpr MinOf(const PrimExpr& a, const PrimExpr& b) {
  const IntImmNode *x = AsInt(a), *y = AsInt(b);
  if (x != nullptr && y != nullptr) return Int64(std::min(x->value, y->value));
  if (a.same_as(b)) return a;
  return Min(a, b);
}
PrimExpr MaxOf(const PrimExpr& a, const PrimExpr& b) {
  const IntImmNode *x = AsInt(a), *y = AsInt(b);
  if (x != nullptr && y != nullptr) return Int64(std::max(x->value, y->value));
  if (a.same_as(b)) return a;
  return Max(a, b);
}

PrimExpr Load(const Buffer& b, std::vector<PrimExpr> indices) { return BufferLoad(b, Array<PrimExpr>(indices)); }
Stmt Store(const Buffer& b, const PrimExpr& value, std::vector<PrimExpr> indices) {
  return BufferStore(b, value, Array<PrimExpr>(indices));
}
PrimExpr MulAdd(const PrimExpr& a, const PrimExpr& b, const PrimExpr& c) {
  if (a.dtype().is_bool()) return Or(And(a, b), c);
  return Add(Mul(a, b), c);
}
PrimExpr FusedMulAdd(const PrimExpr& a, const PrimExpr& b, const PrimExpr& c) {
  if (!a.dtype().is_floating()) return MulAdd(a, b, c);
  return Call(c.dtype(), Op("tirx.fma"), {a, b, c});
}
PrimExpr IfThenElse(const PrimExpr& cond, const PrimExpr& t, const PrimExpr& f) {
  return Call(t.dtype(), Op("tirx.if_then_else"), {cond, t, f});
}

bool IsNoOp(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  return e != nullptr && e->value.as<IntImmNode>() != nullptr;
}

Stmt LoopFrom(const std::string& name, const PrimExpr& min, const PrimExpr& extent, ForKind kind, const LoopBody& body) {
  if (IsConst(extent, 0) || ConstOr(extent, 1) < 0) return Evaluate(IntImm(DataType::Int(32), 0));
  Var v(name, DataType::Int(64));
  Stmt b = body(v);
  if (IsNoOp(b)) return b;
  return For(v, min, extent, kind, b);
}
Stmt Loop(const std::string& name, const PrimExpr& extent, ForKind kind, const LoopBody& body) {
  return LoopFrom(name, Int64(0), extent, kind, body);
}

Stmt VectorLoop(const std::string& name, const PrimExpr& n, int lanes, const LoopBody& body) {
  PrimExpr blocks = FloorDivBy(n, lanes);
  PrimExpr done = Times(blocks, Int64(lanes));
  Stmt main = Loop(name + "_o", blocks, ForKind::kSerial, [&](const PrimExpr& o) {
    return Loop(name + "_v", Int64(lanes), ForKind::kVectorized,
                [&](const PrimExpr& v) { return body(Plus(Times(o, Int64(lanes)), v)); });
  });
  Stmt tail = LoopFrom(name + "_t", done, Minus(n, done), ForKind::kSerial, body);
  return Seq({main, tail});
}

Stmt Seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> kept;
  for (Stmt& s : stmts) {
    if (!IsNoOp(s)) kept.push_back(std::move(s));
  }
  if (kept.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
  if (kept.size() == 1) return kept[0];
  return SeqStmt::Flatten(kept);
}

Stmt Allocate(const Buffer& buffer, Stmt body) { return AllocBuffer(buffer, std::move(body)); }

Param MakeParam(const std::string& name, std::vector<PrimExpr> shape, DataType dtype) {
  return {Var(name, DataType::Handle()), Buffer::Make(name, Array<PrimExpr>(shape), dtype)};
}

PrimFunc MakeKernel(const std::vector<Param>& params, Stmt body, OpPatternKind pattern, bool scheduled) {
  Array<Var> vars;
  Map<Var, Buffer> buffer_map;
  for (const Param& p : params) {
    vars.push_back(p.handle);
    buffer_map.Set(p.handle, p.buffer);
  }
  Map<String, ObjectRef> attrs;
  attrs.Set(String(transform::kOpPatternAttr), transform::MakeOpPatternAttr(pattern));
  attrs.Set(String("tirx.noalias"), IntImm(DataType::Bool(), 1));
  if (scheduled) attrs.Set(String(kScheduledAttr), IntImm(DataType::Bool(), 1));
  return PrimFunc(vars, std::move(body), Type(), buffer_map, attrs);
}

absl::StatusOr<std::vector<TensorSpec>> KernelInputs(const ir::relax::Call& call, const std::vector<int>& args) {
  FuncBuilder b("kernel");  // only translates the Relax dims into one function's variables
  std::vector<TensorSpec> specs;
  for (int i : args) {
    if (i >= static_cast<int>(call->args.size())) return absl::InvalidArgumentError("missing tensor argument");
    absl::StatusOr<Tensor> t = b.Input(call->args[i]);
    if (!t.ok()) return t.status();
    TensorSpec spec{{}, t->dtype()};
    for (const PrimExpr& d : t->shape()) {
      if (d.as<IntImmNode>() == nullptr && d.as<VarNode>() == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", i, " has a dim that is an expression of symbolic vars; only constants and plain "
                         "vars are supported here"));
      }
      spec.shape.push_back(d);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

absl::StatusOr<Expr> EmitKernel(const std::string& name, const absl::StatusOr<PrimFunc>& kernel,
                                const ir::relax::Call& call, const std::vector<int>& args, LegalizeContext* ctx) {
  if (!kernel.ok()) return kernel.status();
  Array<Expr> call_args;
  for (int i : args) call_args.push_back(call->args[i]);
  return ctx->CallTIR(BuiltFunc{name, *kernel, call_args}, call->ty);
}

PrimFunc WithRootBody(const PrimFunc& f, const SBlockRealizeNode* root_realize, Stmt body,
                      Map<String, ObjectRef> attrs) {
  const SBlockNode* root = root_realize->block.get();
  auto n = make_object<SBlockNode>();
  n->iter_vars = root->iter_vars;
  n->reads = root->reads;
  n->writes = root->writes;
  n->name = root->name;
  n->body = std::move(body);
  n->init = root->init;
  n->alloc_buffers = root->alloc_buffers;
  n->match_buffers = root->match_buffers;
  n->annotations = root->annotations;
  Stmt new_root = SBlockRealize(root_realize->iter_values, root_realize->predicate, SBlock(ObjectPtr<Object>(std::move(n))));
  return PrimFunc(f->params, new_root, f->ret_type, f->buffer_map, attrs, f->span);
}

IRModule ScheduleEachPrimFunc(const IRModule& module,
                              const std::function<std::optional<PrimFunc>(const PrimFunc&)>& schedule) {
  IRModule out = IRModule::Make();
  out.CopyOnWrite()->attrs = module->attrs;
  out.CopyOnWrite()->global_infos = module->global_infos;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<PrimFuncNode>();
    std::optional<PrimFunc> scheduled = pf != nullptr ? schedule(Downcast<PrimFunc>(func)) : std::nullopt;
    out.Add(gv, scheduled ? BaseFunc(*scheduled) : func);
  }
  return out;
}

}  // namespace kiln::relax::legalize
