// VMShapeLower: symbolic shapes become explicit run-time work on a per-function "shape heap".
//
// Every symbolic value a function needs (each TIR variable of its shapes, and each compound
// expression such as n * 4 that a shape or a kernel argument uses) gets a slot of an int64 heap
// allocated on entry (vm.builtin.alloc_shape_heap through call_builtin_with_ctx; null_value when
// no slot is needed). Then:
//   * parameters are checked against their annotations (check_tensor_info / check_shape_info /
//     check_prim_value_info / check_tuple_info / check_func_info; parameters at or past the
//     "num_input" attribute only when their shapes are symbolic) and their symbolic dims are
//     matched into the heap: vm.builtin.match_shape(value, heap, ndim, (code, v)...) with codes
//     0 assert == immediate, 1 store to slot v, 2 no-op (matched later), 3 assert == slot v;
//     vm.builtin.match_prim_value does the same for an R.Prim value;
//   * match_cast does the same checks and matches on its value, and a call whose result type binds
//     new symbolic vars (a function returning R.Tensor(("m",))) matches its result;
//   * compound expressions are computed, once all their variables are known, by a generated host
//     PrimFunc `shape_func(H)` that reads and writes heap slots;
//   * every ShapeExpr with a symbolic dim becomes vm.builtin.make_shape(heap, n, (code, v)...)
//     (0 immediate, 1 load slot v), and every symbolic PrimValue (e.g. the `n` passed to a kernel)
//     vm.builtin.make_prim_value(heap, code, v), each bound to a var so that call arguments stay
//     leaves; match_cast bindings become plain bindings.
//
// Why: the VM has no symbolic arithmetic. Shapes only exist at run time as values; this pass is
// what makes them values, with TVM's builtins and codes (../shared/notes/tvm-reference.md §3.1),
// and it is where wrong inputs are rejected with a message naming the parameter.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op.h"
#include "compiler/relax/transform/binding_rewriter.h"
#include "compiler/relax/transform/passes.h"

namespace kiln::relax::transform {

using namespace ::kiln::ir;  // NOLINT
namespace rx = ::kiln::ir::relax;

namespace {

// match_shape / match_prim_value codes (TVM's MatchShapeCode) and make_shape codes (MakeShapeCode).
enum MatchCode : int64_t { kAssertEqualToImm = 0, kStoreToHeap = 1, kNoOp = 2, kAssertEqualToLoad = 3 };
enum MakeCode : int64_t { kUseImm = 0, kLoadShape = 1 };

struct MatchItem {
  Expr value;
  std::vector<PrimExpr> pattern;
  bool prim = false;  // an R.Prim value (match_prim_value) rather than a tensor or shape
  std::string err;
};

bool IsStatic(const PrimExpr& e) { return e.as<IntImmNode>() != nullptr; }

// A value the heap holds: an integer expression that is not a constant.
bool IsSymbolicInt(const PrimExpr& e) { return !IsStatic(e) && e.dtype().is_int(); }

bool AllStatic(const Array<PrimExpr>& values) {
  return std::all_of(values.begin(), values.end(), IsStatic);
}

// Whether a value of static type `known` passes the run-time check for `wanted` (the tensor
// rank and dtype; shapes are matched separately), so that match_cast need not check again.
bool ProvenByType(const Type& wanted, const Type& known) {
  const auto* w = wanted.as<TensorTypeNode>();
  const auto* k = known.as<TensorTypeNode>();
  return w && k && (w->ndim < 0 || w->ndim == k->ndim) && (w->dtype.is_void() || w->dtype == k->dtype);
}

class VMShapeLowerRewriter : public BindingRewriter {
 public:
  using BindingRewriter::BindingRewriter;

 protected:
  absl::StatusOr<rx::Function> RewriteFunction(const rx::Function& func) override {
    if (in_function_) {
      return absl::InvalidArgumentError("VMShapeLower does not handle nested functions; lift them to the module first");
    }
    in_function_ = true;
    absl::StatusOr<rx::Function> out = Lower(func);
    in_function_ = false;
    return out;
  }

  absl::Status RewriteBinding(const rx::Binding& binding, BlockBuilder* bb) override {
    if (const auto* mc = binding.as<rx::MatchCastNode>()) {
      absl::StatusOr<Expr> value = Leaf(Remap(mc->value), bb);
      if (!value.ok()) return value.status();
      std::string err = absl::StrCat("ErrorContext(match_cast, ty=", TypeToString(mc->cast_ty), ") ");
      absl::Status st = MatchPoint(mc->cast_ty, *value, /*checks=*/!ProvenByType(mc->cast_ty, ExprType(*value)),
                                   /*dynamic_only=*/false, err, bb);
      if (!st.ok()) return st;
      bb->EmitBinding(rx::VarBinding(mc->var, *value, mc->span));
      return absl::OkStatus();
    }
    const auto* vb = binding.as<rx::VarBindingNode>();
    absl::StatusOr<Expr> value = RewriteValue(vb->value, bb);
    if (!value.ok()) return value.status();
    bb->EmitBinding(rx::VarBinding(vb->var, *value, vb->span));
    // A call whose result type names variables not known yet defines them.
    if (vb->value.as<rx::CallNode>() && HasUndefinedVars(vb->var->ty)) {
      std::string err = absl::StrCat("ErrorContext(fn=", current_function(), ", loc=binding ", vb->var->name, ") ");
      return MatchPoint(vb->var->ty, vb->var, /*checks=*/false, /*dynamic_only=*/false, err, bb);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Expr> RewriteValue(const Expr& value, BlockBuilder* bb) override {
    if (const auto* i = value.as<rx::IfNode>()) {
      // What a branch computes is not known after the If.
      std::vector<bool> before = computed_;
      absl::StatusOr<Expr> t = RewriteSeq(Downcast<rx::SeqExpr>(i->true_branch));
      computed_ = before;
      if (!t.ok()) return t.status();
      absl::StatusOr<Expr> f = RewriteSeq(Downcast<rx::SeqExpr>(i->false_branch));
      computed_ = before;
      if (!f.ok()) return f.status();
      rx::If out = Downcast<rx::If>(value);
      rx::IfNode* n = out.CopyOnWrite();
      n->cond = Remap(i->cond);
      n->true_branch = *t;
      n->false_branch = *f;
      return Expr(out);
    }
    if (value.as<rx::FunctionNode>()) return BindingRewriter::RewriteValue(value, bb);
    Expr e = Remap(value);
    if (const auto* s = e.as<rx::ShapeExprNode>()) return MakeShapeCall(s->values, bb);
    if (const auto* p = e.as<rx::PrimValueNode>()) {
      return IsSymbolicInt(p->value) ? MakePrimValueCall(p->value, bb) : absl::StatusOr<Expr>(e);
    }
    if (const auto* c = e.as<rx::CallNode>()) {
      Array<Expr> args;
      bool changed = false;
      for (const Expr& a : c->args) {
        absl::StatusOr<Expr> arg = LowerArg(a, bb);
        if (!arg.ok()) return arg.status();
        changed |= !arg->same_as(a);
        args.push_back(*arg);
      }
      if (!changed) return e;
      rx::Call out = Downcast<rx::Call>(e);
      out.CopyOnWrite()->args = args;
      return Expr(out);
    }
    if (const auto* t = e.as<rx::TupleNode>()) {
      Array<Expr> fields;
      bool changed = false;
      for (const Expr& f : t->fields) {
        absl::StatusOr<Expr> field = LowerArg(f, bb);
        if (!field.ok()) return field.status();
        changed |= !field->same_as(f);
        fields.push_back(*field);
      }
      if (!changed) return e;
      rx::Tuple out = Downcast<rx::Tuple>(e);
      out.CopyOnWrite()->fields = fields;
      return Expr(out);
    }
    return e;
  }

  absl::StatusOr<Expr> RewriteBody(const Expr& body, BlockBuilder* bb) override {
    // The result is bound to a var, as every other value of the lowered form.
    Expr e = Remap(body);
    if (e.as<VarNode>() || e.as<rx::ConstantNode>()) return e;
    absl::StatusOr<Expr> lowered = RewriteValue(e, bb);
    if (!lowered.ok()) return lowered;
    return Leaf(*lowered, bb);
  }

 private:
  absl::StatusOr<rx::Function> Lower(const rx::Function& func) {
    slots_.clear();
    computed_.clear();
    for (const Var& p : func->params) CollectType(p->ty);
    CollectSeq(func->body);
    computed_.assign(slots_.size(), false);

    BlockBuilder pre(module_);
    Type heap_ty = TensorType(DataType::Int(64), 1);
    rx::Call heap_call;
    if (slots_.empty()) {
      heap_call = rx::Call(Op("relax.null_value"), {});
      heap_ty = AnyType::Make();
    } else {
      absl::StatusOr<Expr> size = Typed(rx::Tuple({MakeInt64(static_cast<int64_t>(slots_.size()))}), module_);
      if (!size.ok()) return size.status();
      heap_call = rx::Call(Op("relax.call_builtin_with_ctx"), {ExternFn("vm.builtin.alloc_shape_heap"), *size}, {},
                           {heap_ty});
    }
    heap_call.CopyOnWrite()->ty = heap_ty;
    heap_ = Var("shape_heap", heap_ty);
    pre.EmitBinding(rx::VarBinding(heap_, heap_call));

    size_t num_input = func->params.size();
    if (const auto* n = func->attrs.Get(String("num_input")).as<IntImmNode>()) {
      num_input = static_cast<size_t>(std::max<int64_t>(0, n->value));
    }
    std::vector<MatchItem> todos;
    for (size_t i = 0; i < func->params.size(); ++i) {
      const Var& p = func->params[i];
      std::string err = absl::StrCat("ErrorContext(fn=", current_function(), ", loc=param[", i, "], param=", p->name,
                                     ", annotation=", TypeToString(p->ty), ") ");
      absl::Status st = Collect(p->ty, p, /*checks=*/true, /*dynamic_only=*/i >= num_input, err, &todos, &pre);
      if (!st.ok()) return st;
    }
    absl::Status st = RunMatches(todos, &pre);
    if (!st.ok()) return st;

    absl::StatusOr<Expr> body = RewriteSeq(Downcast<rx::SeqExpr>(func->body));
    if (!body.ok()) return body.status();
    rx::SeqExpr seq = Downcast<rx::SeqExpr>(*body);
    Array<rx::BindingBlock> blocks{rx::BindingBlock(pre.TakeBindings())};
    for (const rx::BindingBlock& b : seq->blocks) blocks.push_back(b);
    seq.CopyOnWrite()->blocks = blocks;
    rx::Function out = func;
    out.CopyOnWrite()->body = seq;
    return out;
  }

  static Expr ExternFn(const std::string& name) {
    rx::ExternFunc f(name);
    f.CopyOnWrite()->ty = PackedFuncType::Make();
    return f;
  }

  // ---- slots ----

  int SlotOf(const PrimExpr& e) const {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].same_as(e) || StructuralEqual(slots_[i], e)) return static_cast<int>(i);
    }
    return -1;
  }

  void AddSlot(const PrimExpr& e) {
    if (IsStatic(e) || e.as<FloatImmNode>() || SlotOf(e) >= 0) return;
    if (!e.as<VarNode>()) {
      std::vector<Var> vars;
      CollectVars(e, &vars);
      for (const Var& v : vars) AddSlot(v);
    }
    slots_.push_back(e);
  }

  void CollectType(const Type& t) {
    if (const auto* tt = t.as<TensorTypeNode>()) {
      if (const auto* s = tt->shape.as<rx::ShapeExprNode>()) for (const PrimExpr& v : s->values) AddSlot(v);
    } else if (const auto* st = t.as<ShapeTypeNode>()) {
      for (const PrimExpr& v : st->values) AddSlot(v);
    } else if (const auto* pt = t.as<PrimTypeNode>()) {
      if (pt->value.defined() && pt->dtype.is_int()) AddSlot(pt->value);
    } else if (const auto* tu = t.as<TupleTypeNode>()) {
      for (const Type& f : tu->fields) CollectType(f);
    }
  }

  void CollectExpr(const Expr& e) {
    if (const auto* s = e.as<rx::ShapeExprNode>()) {
      for (const PrimExpr& v : s->values) AddSlot(v);
    } else if (const auto* p = e.as<rx::PrimValueNode>()) {
      if (IsSymbolicInt(p->value)) AddSlot(p->value);
    } else if (const auto* c = e.as<rx::CallNode>()) {
      for (const Expr& a : c->args) CollectExpr(a);
    } else if (const auto* t = e.as<rx::TupleNode>()) {
      for (const Expr& f : t->fields) CollectExpr(f);
    } else if (const auto* i = e.as<rx::IfNode>()) {
      CollectSeq(i->true_branch);
      CollectSeq(i->false_branch);
    } else if (e.as<rx::SeqExprNode>()) {
      CollectSeq(e);
    }
  }

  void CollectSeq(const Expr& e) {
    const auto* seq = e.as<rx::SeqExprNode>();
    if (seq == nullptr) return CollectExpr(e);
    for (const rx::BindingBlock& block : seq->blocks) {
      for (const rx::Binding& b : block->bindings) {
        if (const auto* mc = b.as<rx::MatchCastNode>()) {
          CollectType(mc->cast_ty);
          CollectExpr(mc->value);
        } else {
          CollectType(b->var->ty);
          CollectExpr(b.as<rx::VarBindingNode>()->value);
        }
      }
    }
    CollectExpr(seq->body);
  }

  bool HasUndefinedVars(const Type& t) const {
    std::vector<Var> vars;
    CollectTypeVars(t, &vars);
    for (const Var& v : vars) {
      int s = SlotOf(v);
      if (s >= 0 && !computed_[s]) return true;
    }
    return false;
  }

  // ---- match points ----

  absl::Status MatchPoint(const Type& ty, const Expr& value, bool checks, bool dynamic_only, const std::string& err,
                          BlockBuilder* bb) {
    std::vector<MatchItem> todos;
    absl::Status st = Collect(ty, value, checks, dynamic_only, err, &todos, bb);
    if (!st.ok()) return st;
    return RunMatches(todos, bb);
  }

  // Emits the static checks of `value` against `ty` and gathers the symbolic matches.
  absl::Status Collect(const Type& ty, const Expr& value, bool checks, bool dynamic_only, const std::string& err,
                       std::vector<MatchItem>* todos, BlockBuilder* bb) {
    if (const auto* tt = ty.as<TensorTypeNode>()) {
      const auto* shape = tt->shape.as<rx::ShapeExprNode>();
      if (dynamic_only && (shape == nullptr || AllStatic(shape->values))) return absl::OkStatus();
      if (checks) {
        Expr dtype = MakeDType(tt->dtype);
        if (tt->dtype.is_void()) {
          absl::StatusOr<Var> null = bb->Emit(rx::Call(Op("relax.null_value"), {}), "null");
          if (!null.ok()) return null.status();
          dtype = *null;
        }
        absl::Status st = EmitCheck("vm.builtin.check_tensor_info", {value, MakeInt64(tt->ndim), dtype, MakeString(err)}, bb);
        if (!st.ok()) return st;
      }
      if (shape != nullptr) todos->push_back({value, shape->values.ToVector(), false, err});
      return absl::OkStatus();
    }
    if (const auto* st = ty.as<ShapeTypeNode>()) {
      if (dynamic_only && (!st->values_known || AllStatic(st->values))) return absl::OkStatus();
      if (checks) {
        absl::Status s = EmitCheck("vm.builtin.check_shape_info", {value, MakeInt64(st->ndim), MakeString(err)}, bb);
        if (!s.ok()) return s;
      }
      if (st->values_known) todos->push_back({value, st->values.ToVector(), false, err});
      return absl::OkStatus();
    }
    if (const auto* pt = ty.as<PrimTypeNode>()) {
      bool symbolic = pt->value.defined() && !IsStatic(pt->value) && pt->dtype.is_int();
      if (dynamic_only && !symbolic) return absl::OkStatus();
      if (checks) {
        absl::Status s = EmitCheck("vm.builtin.check_prim_value_info", {value, MakeDType(pt->dtype), MakeString(err)}, bb);
        if (!s.ok()) return s;
      }
      if (pt->value.defined() && pt->dtype.is_int()) todos->push_back({value, {pt->value}, true, err});
      return absl::OkStatus();
    }
    if (const auto* tu = ty.as<TupleTypeNode>()) {
      if (checks && !dynamic_only) {
        absl::Status s = EmitCheck("vm.builtin.check_tuple_info",
                                   {value, MakeInt64(static_cast<int64_t>(tu->fields.size())), MakeString(err)}, bb);
        if (!s.ok()) return s;
      }
      for (size_t i = 0; i < tu->fields.size(); ++i) {
        if (tu->fields[i].as<AnyTypeNode>()) continue;
        absl::StatusOr<Var> field = bb->Emit(rx::TupleGetItem(value, static_cast<int>(i)), "field");
        if (!field.ok()) return field.status();
        absl::Status s = Collect(tu->fields[i], *field, checks, dynamic_only, err, todos, bb);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    if (ty.as<FuncTypeNode>() && checks && !dynamic_only) {
      return EmitCheck("vm.builtin.check_func_info", {value, MakeString(err)}, bb);
    }
    return absl::OkStatus();
  }

  absl::Status EmitCheck(const std::string& name, Array<Expr> args, BlockBuilder* bb) {
    return bb->Emit(MakePackedCall(name, std::move(args), VoidType()), "_").status();
  }

  // Two rounds: the first stores new variables (and checks what it can), shape_func computes what
  // they make computable, the second checks the compound dims the first skipped.
  absl::Status RunMatches(const std::vector<MatchItem>& todos, BlockBuilder* bb) {
    std::vector<MatchItem> outstanding;
    absl::Status st = RunMatch(todos, /*require_computed=*/false, &outstanding, bb);
    if (!st.ok()) return st;
    st = EmitCompute(bb);
    if (!st.ok()) return st;
    return RunMatch(outstanding, /*require_computed=*/true, nullptr, bb);
  }

  absl::Status RunMatch(const std::vector<MatchItem>& todos, bool require_computed, std::vector<MatchItem>* outstanding,
                        BlockBuilder* bb) {
    for (const MatchItem& item : todos) {
      Array<Expr> args{item.value, heap_};
      if (!item.prim) args.push_back(MakeInt64(static_cast<int64_t>(item.pattern.size())));
      bool all_noop = true, any_noop = false;
      for (const PrimExpr& e : item.pattern) {
        int64_t code = kAssertEqualToImm, v = 0;
        if (const auto* imm = e.as<IntImmNode>()) {
          v = imm->value;
        } else {
          int s = SlotOf(e);
          if (s < 0) return absl::InternalError("a symbolic value has no heap slot");
          v = s;
          if (computed_[s]) {
            code = kAssertEqualToLoad;
          } else if (e.as<VarNode>()) {
            code = kStoreToHeap;
            computed_[s] = true;
          } else if (require_computed) {
            return absl::InvalidArgumentError(absl::StrCat("cannot compute the symbolic value ", TypeToString(ShapeType(Array<PrimExpr>{e})),
                                                           " from the variables known here"));
          } else {
            code = kNoOp;
            v = 0;
          }
        }
        all_noop &= code == kNoOp;
        any_noop |= code == kNoOp;
        args.push_back(MakeInt64(code));
        args.push_back(MakeInt64(v));
      }
      if (any_noop && outstanding) outstanding->push_back(item);
      if (all_noop) continue;
      args.push_back(MakeString(item.err));
      absl::Status st =
          EmitCheck(item.prim ? "vm.builtin.match_prim_value" : "vm.builtin.match_shape", std::move(args), bb);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }

  // Computes, with one generated PrimFunc, every compound slot whose variables are all known.
  absl::Status EmitCompute(BlockBuilder* bb) {
    std::vector<int> ready;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (computed_[i] || slots_[i].as<VarNode>()) continue;
      std::vector<Var> vars;
      CollectVars(slots_[i], &vars);
      bool known = std::all_of(vars.begin(), vars.end(), [this](const Var& v) {
        int s = SlotOf(v);
        return s >= 0 && computed_[s];
      });
      if (known) ready.push_back(static_cast<int>(i));
    }
    if (ready.empty()) return absl::OkStatus();
    Buffer heap = Buffer::Make("H", {IntImm(DataType::Int(64), static_cast<int64_t>(slots_.size()))}, DataType::Int(64));
    std::unordered_map<const VarNode*, PrimExpr> loads;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (const auto* v = slots_[i].as<VarNode>()) {
        loads[v] = BufferLoad(heap, {IntImm(DataType::Int(64), static_cast<int64_t>(i))});
      }
    }
    std::vector<Stmt> stores;
    for (int i : ready) {
      PrimExpr value = kiln::relax::Substitute(slots_[i], loads);
      if (value.dtype() != DataType::Int(64)) value = Cast(DataType::Int(64), value);
      stores.push_back(BufferStore(heap, value, {IntImm(DataType::Int(64), i)}));
      computed_[i] = true;
    }
    Var h("H", DataType::Handle());
    std::string name = ShapeFuncName();
    PrimFunc f({h}, SeqStmt::Flatten(stores), Type(), {{h, heap}},
               {{String("global_symbol"), String(name)}, {String("tir.is_host_func"), IntImm(DataType::Bool(), 1)}});
    GlobalVar gv(name);
    IRModule next = module_;
    next.CopyOnWrite()->functions.Set(gv, f);
    module_ = next;
    rx::Call call(gv, {heap_});
    call.CopyOnWrite()->ty = VoidType();
    return bb->Emit(call, "_").status();
  }

  // "shape_func", then "shape_func1", ...: the first name the module does not use.
  std::string ShapeFuncName() {
    for (;; ++shape_funcs_) {
      std::string name = shape_funcs_ == 0 ? "shape_func" : absl::StrCat("shape_func", shape_funcs_);
      if (!module_.GetGlobalVar(name).defined()) return name;
    }
  }

  // ---- values ----

  absl::StatusOr<std::pair<int64_t, int64_t>> MakeArgs(const PrimExpr& e, BlockBuilder* bb) {
    if (const auto* imm = e.as<IntImmNode>()) return std::make_pair<int64_t, int64_t>(kUseImm, int64_t{imm->value});
    int s = SlotOf(e);
    if (s < 0) return absl::InternalError("a symbolic value has no heap slot");
    if (!computed_[s]) {
      absl::Status st = EmitCompute(bb);
      if (!st.ok()) return st;
    }
    if (!computed_[s]) {
      return absl::InvalidArgumentError(absl::StrCat("the symbolic value ", TypeToString(ShapeType(Array<PrimExpr>{e})),
                                                     " is used before its variables are known"));
    }
    return std::make_pair<int64_t, int64_t>(kLoadShape, int64_t{s});
  }

  absl::StatusOr<Expr> MakeShapeCall(const Array<PrimExpr>& values, BlockBuilder* bb) {
    if (AllStatic(values)) return Expr(MakeShape(values));
    Array<Expr> args{heap_, MakeInt64(static_cast<int64_t>(values.size()))};
    for (const PrimExpr& v : values) {
      absl::StatusOr<std::pair<int64_t, int64_t>> a = MakeArgs(v, bb);
      if (!a.ok()) return a.status();
      args.push_back(MakeInt64(a->first));
      args.push_back(MakeInt64(a->second));
    }
    return Expr(MakePackedCall("vm.builtin.make_shape", args, ShapeType(values)));
  }

  absl::StatusOr<Expr> MakePrimValueCall(const PrimExpr& value, BlockBuilder* bb) {
    absl::StatusOr<std::pair<int64_t, int64_t>> a = MakeArgs(value, bb);
    if (!a.ok()) return a.status();
    return Expr(MakePackedCall("vm.builtin.make_prim_value", {heap_, MakeInt64(a->first), MakeInt64(a->second)},
                               PrimType(value.dtype(), value)));
  }

  // A call argument or tuple field: symbolic shapes and prim values are computed into a var.
  absl::StatusOr<Expr> LowerArg(const Expr& arg, BlockBuilder* bb) {
    absl::StatusOr<Expr> value;
    if (const auto* s = arg.as<rx::ShapeExprNode>()) {
      if (AllStatic(s->values)) return arg;
      value = MakeShapeCall(s->values, bb);
    } else if (const auto* p = arg.as<rx::PrimValueNode>()) {
      if (!IsSymbolicInt(p->value)) return arg;
      value = MakePrimValueCall(p->value, bb);
    } else if (arg.as<rx::TupleNode>()) {
      // call_builtin_with_ctx's argument tuple stays inline.
      return RewriteValue(arg, bb);
    } else {
      return arg;
    }
    if (!value.ok()) return value.status();
    return Leaf(*value, bb);
  }

  absl::StatusOr<Expr> Leaf(const Expr& e, BlockBuilder* bb) {
    if (e.as<VarNode>() || e.as<rx::ConstantNode>()) return e;
    absl::StatusOr<Var> v = bb->Emit(e, e.as<rx::CallNode>() ? "lv" : "tup");
    if (!v.ok()) return v.status();
    return Expr(*v);
  }

  bool in_function_ = false;
  Var heap_;
  std::vector<PrimExpr> slots_;
  std::vector<bool> computed_;
  int shape_funcs_ = 0;
};

}  // namespace

absl::StatusOr<IRModule> VMShapeLower(const IRModule& module) { return VMShapeLowerRewriter(module).Run(); }

}  // namespace kiln::relax::transform
