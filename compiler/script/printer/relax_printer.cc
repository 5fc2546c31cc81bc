// Relax -> Doc: functions, bindings, dataflow blocks, calls (with the op registry's spelling and
// attribute order), constants and types, in TVM v0.26's printed style (see printer.h).
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>

#include "compiler/ir/structural.h"
#include "compiler/relax/op/op.h"
#include "compiler/script/doc/writer.h"
#include "compiler/script/printer/docsifier.h"
#include "compiler/tir/functor.h"

namespace kiln::script::printer {

using namespace ir;  // NOLINT: this file is about IR node types only
namespace rx = ir::relax;

namespace {

// R.<a>.<b> for the script name "a.b".
ExprPtr Dotted(ExprPtr prefix, const std::string& path) {
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    prefix = Attr(prefix, path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return prefix;
    start = dot + 1;
  }
}

bool IsCallTirLike(const std::string& op) {
  return op == "relax.call_tir" || op == "relax.call_tir_inplace" || op == "relax.call_tir_with_grad" ||
         op == "relax.call_dps_packed" || op == "relax.dist.call_tir_local_view";
}

bool IsCallTirOrDpsPacked(const rx::CallNode* call) {
  const auto* op = call ? call->op.as<OpNode>() : nullptr;
  return op && (op->name == "relax.call_tir" || op->name == "relax.call_dps_packed");
}

// The type a binding's value gives its variable without an annotation, as TVM's TypeAsAnn works
// it out: an operator call's inferred type (call_tir and call_dps_packed: their out_ty), a tuple's
// or tuple item's from its fields, a variable's own. Undefined where there is none.
Type InferredValueType(const Expr& value) {
  if (const auto* call = value.as<rx::CallNode>()) {
    if (IsCallTirOrDpsPacked(call)) {
      if (call->ty_args.empty()) return Type();
      return call->ty_args.size() == 1 ? call->ty_args[0] : Type(TupleType(call->ty_args));
    }
    if (!call->op.as<OpNode>()) return Type();
    // The call's own type may be the annotation it was written with: infer it afresh.
    absl::StatusOr<Type> t = kiln::relax::InferCallType(GetRef<rx::Call>(call), IRModule());
    return t.ok() ? *t : Type();
  }
  if (value.as<rx::TupleNode>() || value.as<rx::TupleGetItemNode>()) return kiln::relax::ExprType(value);
  if (value.as<VarNode>()) return value->ty;
  return Type();
}

bool IsVoidType(const Type& t) {
  const auto* tuple = t.as<TupleTypeNode>();
  return tuple && tuple->fields.empty();
}

// The Relax variables an expression refers to (not those it binds). A dataflow block's output
// counts as used: its R.output(...) names it.
void CollectUses(const Expr& e, std::unordered_set<const Object*>* used) {
  if (!e.defined()) return;
  if (e.as<VarNode>()) {
    used->insert(e.get());
  } else if (const auto* call = e.as<rx::CallNode>()) {
    CollectUses(call->op, used);
    for (const Expr& a : call->args) CollectUses(a, used);
  } else if (const auto* tuple = e.as<rx::TupleNode>()) {
    for (const Expr& f : tuple->fields) CollectUses(f, used);
  } else if (const auto* item = e.as<rx::TupleGetItemNode>()) {
    CollectUses(item->tuple, used);
  } else if (const auto* cond = e.as<rx::IfNode>()) {
    CollectUses(cond->cond, used);
    CollectUses(cond->true_branch, used);
    CollectUses(cond->false_branch, used);
  } else if (const auto* seq = e.as<rx::SeqExprNode>()) {
    for (const rx::BindingBlock& block : seq->blocks) {
      bool dataflow = block.as<rx::DataflowBlockNode>() != nullptr;
      for (const rx::Binding& b : block->bindings) {
        if (dataflow && b->var.defined() && !b->var.as<rx::DataflowVarNode>()) used->insert(b->var.get());
        if (const auto* vb = b.as<rx::VarBindingNode>()) CollectUses(vb->value, used);
        if (const auto* mc = b.as<rx::MatchCastNode>()) CollectUses(mc->value, used);
      }
    }
    CollectUses(seq->body, used);
  } else if (const auto* f = e.as<rx::FunctionNode>()) {
    CollectUses(f->body, used);
  }
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

// Element i of a constant's little-endian data as a literal.
ExprPtr ConstElement(const rx::ConstantNode* c, int64_t i) {
  const DataType& t = c->dtype;
  size_t width = static_cast<size_t>(t.bytes());
  const char* p = c->data.data() + i * width;
  if (static_cast<size_t>((i + 1) * width) > c->data.size()) return IntLit(0);
  if (t.is_bool()) return BoolLit(*p != 0);
  if (t.is_int()) {
    int64_t v = 0;
    switch (width) {
      case 1: { int8_t x; std::memcpy(&x, p, 1); v = x; break; }
      case 2: { int16_t x; std::memcpy(&x, p, 2); v = x; break; }
      case 4: { int32_t x; std::memcpy(&x, p, 4); v = x; break; }
      default: std::memcpy(&v, p, 8);
    }
    return IntLit(v);
  }
  if (t.is_uint()) {
    uint64_t v = 0;
    std::memcpy(&v, p, width);
    return IntLit(static_cast<int64_t>(v));
  }
  double v = 0;
  if (t.is_float() && t.bits() == 16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    v = HalfToFloat(h);
  } else if (t.is_bfloat() && t.bits() == 16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    v = f;
  } else if (t.is_float() && t.bits() == 32) {
    float f;
    std::memcpy(&f, p, 4);
    v = f;
  } else if (t.is_float() && t.bits() == 64) {
    std::memcpy(&v, p, 8);
  }
  return FloatLit(v);
}

ExprPtr ConstNested(const rx::ConstantNode* c, size_t dim, int64_t* next) {
  if (dim == c->shape.size()) return ConstElement(c, (*next)++);
  std::vector<ExprPtr> elts;
  for (int64_t i = 0; i < c->shape[dim]->value; ++i) elts.push_back(ConstNested(c, dim + 1, next));
  return ListE(std::move(elts));
}

}  // namespace

// ---------------------------------------------------------------- types

// A tensor type's shape argument: a tuple of dims when they are known, else the shape expression.
ExprPtr Docsifier::PrintTensorShape(const Expr& shape) {
  if (const auto* s = shape.as<rx::ShapeExprNode>()) {
    std::vector<ExprPtr> dims;
    for (const PrimExpr& d : s->values) dims.push_back(PrintShapeDim(d));
    return TupleE(std::move(dims));
  }
  return PrintRelaxExpr(shape);
}

ExprPtr Docsifier::PrintShapeDim(const PrimExpr& e) {
  ExprPtr d = PrintExpr(e);
  // In the signature a dim that names variables is a string (`R.Tensor(("n", 4))`): the variables
  // are defined as `n = T.int64()` at the top of the body.
  if (signature_ && ExprHasVar(e)) return StrLit(doc::WriteExpr(*d));
  return d;
}

ExprPtr Docsifier::PrintType(const Type& t) {
  bool saved = relax_ctx_;
  relax_ctx_ = true;
  ExprPtr result;
  if (!t.defined()) {
    result = NoneLit();
  } else if (const auto* tt = t.as<TensorTypeNode>()) {
    std::vector<ExprPtr> args;
    Kwargs kw;
    if (tt->shape.defined()) args.push_back(PrintTensorShape(tt->shape));
    if (!tt->dtype.is_void()) kw.emplace_back("dtype", StrLit(tt->dtype.ToString()));
    if (!tt->shape.defined() && tt->ndim >= 0) kw.emplace_back("ndim", IntLit(tt->ndim));
    if (!tt->vdevice.empty()) kw.emplace_back("vdevice", StrLit(tt->vdevice));
    result = args.empty() && kw.empty() ? R("Tensor") : CallE(R("Tensor"), std::move(args), std::move(kw));
  } else if (const auto* dt = t.as<DTensorTypeNode>()) {
    // TVM's form: positional (shape, dtype, device_mesh, placement) while shape and dtype are
    // known, keywords from the first unknown one on.
    const TensorTypeNode* tt = dt->tensor_ty.get();
    std::vector<ExprPtr> args;
    Kwargs kw;
    bool keywords = !tt->shape.defined();
    if (tt->shape.defined()) args.push_back(PrintTensorShape(tt->shape));
    auto add = [&](const char* key, ExprPtr v) {
      if (keywords) kw.emplace_back(key, std::move(v));
      else args.push_back(std::move(v));
    };
    if (tt->dtype.is_void()) keywords = true;
    else add("dtype", StrLit(tt->dtype.ToString()));
    add("device_mesh", PrintDeviceMesh(dt->device_mesh.get()));
    add("placement", StrLit(dt->placement));
    if (!tt->shape.defined() && tt->ndim >= 0) kw.emplace_back("ndim", IntLit(tt->ndim));
    result = CallE(R("DTensor"), std::move(args), std::move(kw));
  } else if (const auto* st = t.as<ShapeTypeNode>()) {
    if (st->values_known) {
      std::vector<ExprPtr> dims;
      for (const PrimExpr& d : st->values) dims.push_back(PrintShapeDim(d));
      result = CallE(R("Shape"), {ListE(std::move(dims))});
    } else {  // TVM spells an unknown rank too: R.Shape(ndim=-1)
      result = CallE(R("Shape"), {}, {{"ndim", IntLit(st->ndim)}});
    }
  } else if (const auto* tup = t.as<TupleTypeNode>()) {
    std::vector<ExprPtr> fields;
    for (const Type& f : tup->fields) fields.push_back(PrintType(f));
    // TVM writes the empty tuple type as a bare R.Tuple.
    result = fields.empty() ? R("Tuple") : CallE(R("Tuple"), std::move(fields));
  } else if (const auto* pt = t.as<PrimTypeNode>()) {
    if (pt->value.defined()) {  // kiln's PrimType with a known value (TVM's has none)
      result = CallE(R("Prim"), {}, {{"value", PrintShapeDim(pt->value)}});
    } else {  // TVM prints R.Prim("int64") as the TIR type T.int64
      result = DtypeAnn(pt->dtype);
    }
  } else if (t.as<AnyTypeNode>()) {
    result = R("Any");
  } else if (t.as<PackedFuncTypeNode>()) {
    result = R("PackedFunc");
  } else if (const auto* ft = t.as<FuncTypeNode>(); ft && !ft->params_known) {
    // An opaque function type: bare R.Callable for the default (returns R.Any, impure), else the
    // keywords that differ from it.
    Kwargs kw;
    if (ft->ret.defined() && !ft->ret.as<AnyTypeNode>()) kw.emplace_back("ret", PrintType(ft->ret));
    if (ft->purity) kw.emplace_back("purity", BoolLit(true));
    result = kw.empty() ? R("Callable") : CallE(R("Callable"), {}, std::move(kw));
  } else if (const auto* ft = t.as<FuncTypeNode>()) {
    std::vector<ExprPtr> params;
    for (const Type& p : ft->params) params.push_back(PrintType(p));
    result = CallE(R("Callable"), {TupleE(std::move(params)), PrintType(ft->ret), BoolLit(ft->purity)});
  } else if (const auto* ptr = t.as<PointerTypeNode>()) {
    std::vector<ExprPtr> args;
    if (const auto* elem = ptr->element_type.as<PrimTypeNode>()) args.push_back(StrLit(elem->dtype.ToString()));
    if (!ptr->storage_scope.empty() && ptr->storage_scope != "global") args.push_back(StrLit(ptr->storage_scope));
    result = CallE(T("handle"), std::move(args));
  } else {
    result = StrLit(t->type_key());
  }
  relax_ctx_ = saved;
  return result;
}

// ---------------------------------------------------------------- expressions

ExprPtr Docsifier::PrintCallee(const Expr& e) {
  if (const auto* gv = e.as<GlobalVarNode>()) {
    // Outside a module a function is named by itself (TVM prints the bare name).
    if (!in_module_) return Id(gv->name);
    const std::string& alias = options_.module_alias;
    if (!alias.empty() && !cls_defined_ && func_stmts_) {
      func_stmts_->push_back(Assign(Id(alias), Id("Module")));
      cls_defined_ = true;
    }
    return Attr(Id(cls_defined_ ? alias : "Module"), gv->name);
  }
  if (const auto* ef = e.as<rx::ExternFuncNode>()) return StrLit(ef->global_symbol);
  return PrintRelaxExpr(e);
}

ExprPtr Docsifier::PrintExternFunc(const rx::ExternFuncNode* f) {
  std::vector<ExprPtr> args{StrLit(f->global_symbol)};
  // The type is written only when it is not the packed-function default R.ExternFunc gives.
  if (f->ty.defined() && !f->ty.as<PackedFuncTypeNode>()) args.push_back(PrintType(f->ty));
  return CallE(R("ExternFunc"), std::move(args));
}

ExprPtr Docsifier::PrintConstant(const rx::ConstantNode* c) {
  int64_t next = 0;
  ExprPtr value = ConstNested(c, 0, &next);
  // A constant typed as a DTensor is written with that type.
  if (c->ty.as<DTensorTypeNode>()) return CallE(R("dist.const"), {value, PrintType(c->ty)});
  return CallE(R("const"), {value, StrLit(c->dtype.ToString())});
}

ExprPtr Docsifier::PrintRelaxCall(const rx::CallNode* call) {
  std::vector<ExprPtr> args;
  const auto* op = call->op.as<OpNode>();
  if (!op) {
    for (const Expr& a : call->args) args.push_back(PrintRelaxExpr(a));
    // A called ExternFunc is written R.ExternFunc("symbol", type)(...): a bare string is not
    // callable, and R.call_packed reads back as kiln's call_packed operator.
    if (const auto* ef = call->op.as<rx::ExternFuncNode>()) return CallE(PrintExternFunc(ef), std::move(args));
    return CallE(PrintCallee(call->op), std::move(args));
  }
  const kiln::relax::OpSchema* schema = kiln::relax::OpRegistry::Global().FindByName(op->name);
  std::string script = schema ? schema->script_name
                              : (op->name.rfind("relax.", 0) == 0 ? op->name.substr(6) : op->name);
  if (op->name == "relax.hint_on_device" && schema && call->args.size() == 1) {
    // TVM's form: the device attributes gathered into R.device(...), the scope positional.
    Kwargs dev;
    ExprPtr scope;
    for (const auto& [name, value] : kiln::relax::AttrsInPrintOrder(*schema, call->attrs)) {
      if (name == "memory_scope") {
        scope = PrintAttrValue(value, /*bare_numbers=*/true);
      } else {
        dev.emplace_back(name, PrintAttrValue(value, /*bare_numbers=*/true));
      }
    }
    used_r_ = true;
    return CallE(Dotted(Id("R"), "hint_on_device"),
                 {PrintRelaxExpr(call->args[0]), CallE(R("device"), {}, std::move(dev)), scope});
  }
  if ((op->name == "relax.print" && !call->args.empty()) || (op->name == "relax.assert_op" && call->args.size() >= 2)) {
    // TVM's form: the format string (args[0] of print, args[1] of assert_op) as format=, the
    // values positional.
    // Several assert_op format args go in a list (TVM prints them positionally, which its own
    // parser would read as format_args and format).
    size_t fmt = op->name == "relax.print" ? 0 : 1;
    for (size_t i = 0; i < call->args.size(); ++i) {
      if (i != fmt) args.push_back(PrintRelaxExpr(call->args[i]));
    }
    if (fmt == 1 && args.size() > 2) {
      std::vector<ExprPtr> items(args.begin() + 1, args.end());
      args.resize(1);
      args.push_back(ListE(std::move(items)));
    }
    used_r_ = true;
    return CallE(Dotted(Id("R"), script), std::move(args), {{"format", PrintRelaxExpr(call->args[fmt])}});
  }
  // attention_var_len's arguments in the order of TVM's Python signature (seqstart_q,
  // max_seqlen_q, seqstart_k, max_seqlen_k), which is how the parser reads them.
  std::vector<size_t> order;
  for (size_t i = 0; i < call->args.size(); ++i) order.push_back(i);
  if (op->name == "relax.nn.attention_var_len" && order.size() == 7) std::swap(order[4], order[5]);
  bool tir_like = IsCallTirLike(op->name);
  for (size_t i : order) {
    const Expr& a = call->args[i];
    const auto* tuple = a.as<rx::TupleNode>();
    if (i == 0 && (a.as<GlobalVarNode>() || a.as<rx::ExternFuncNode>())) {
      args.push_back(PrintCallee(a));
    } else if (tir_like && i == 1 && tuple) {
      // Symbolic ints go inline in call_tir's argument tuple: (x, n), not R.prim_value(n).
      std::vector<ExprPtr> fields;
      for (const Expr& f : tuple->fields) {
        if (const auto* pv = f.as<rx::PrimValueNode>()) {
          fields.push_back(PrintShapeDim(pv->value));
        } else {
          fields.push_back(PrintRelaxExpr(f));
        }
      }
      args.push_back(TupleE(std::move(fields)));
    } else {
      args.push_back(PrintRelaxExpr(a));
    }
  }
  Kwargs kw;
  if (schema) {
    for (const auto& [name, value] : kiln::relax::AttrsInPrintOrder(*schema, call->attrs)) {
      kw.emplace_back(name, PrintAttrValue(value, /*bare_numbers=*/true));
    }
  } else {
    for (size_t i = 0; i < call->attrs.size(); ++i) {
      kw.emplace_back(call->attrs.key_at(i).str(), PrintAttrValue(call->attrs.value_at(i), true));
    }
  }
  if (!call->ty_args.empty()) {
    std::string key = schema && !schema->ty_args_keyword.empty() ? schema->ty_args_keyword
                                                                 : (tir_like ? "out_ty" : "ty_args");
    ExprPtr value;
    const auto* tuple_ty = call->ty_args[0].as<TupleTypeNode>();
    if (key == "out_ty" && call->ty_args.size() == 1 && tuple_ty) {
      // Several outputs: a list of their types.
      std::vector<ExprPtr> fields;
      for (const Type& f : tuple_ty->fields) fields.push_back(PrintType(f));
      value = ListE(std::move(fields));
    } else if (call->ty_args.size() == 1) {
      value = PrintType(call->ty_args[0]);
    } else {
      std::vector<ExprPtr> tys;
      for (const Type& t : call->ty_args) tys.push_back(PrintType(t));
      value = ListE(std::move(tys));
    }
    kw.emplace_back(key, value);
  }
  // call_tir with DTensor outputs is spelled R.dist.call_tir.
  if (op->name == "relax.call_tir" && call->ty_args.size() == 1) {
    const Type& out = call->ty_args[0];
    bool dtensor = out.as<DTensorTypeNode>() != nullptr;
    if (const auto* tu = out.as<TupleTypeNode>()) {
      for (const Type& f : tu->fields) dtensor |= f.as<DTensorTypeNode>() != nullptr;
    }
    if (dtensor) script = "dist.call_tir";
  }
  used_r_ = true;
  return CallE(Dotted(Id("R"), script), std::move(args), std::move(kw));
}

ExprPtr Docsifier::PrintRelaxExpr(const Expr& e) {
  if (!e.defined()) return NoneLit();
  bool saved = relax_ctx_;
  relax_ctx_ = true;
  ExprPtr result;
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar: {
      const auto* v = static_cast<const VarNode*>(e.get());
      if (ExprPtr d = Lookup(v)) {
        result = d;
      } else if (!v->dtype.is_void()) {
        result = PrintVarUse(v);  // a TIR variable
      } else {
        result = Id(v->name);
      }
      break;
    }
    case NodeKind::kGlobalVar:
      result = PrintCallee(e);
      break;
    case NodeKind::kExternFunc:
      // Outside a callee position a bare string would read back as a Python string.
      result = PrintExternFunc(static_cast<const rx::ExternFuncNode*>(e.get()));
      break;
    case NodeKind::kConstant:
      result = PrintConstant(static_cast<const rx::ConstantNode*>(e.get()));
      break;
    case NodeKind::kTuple: {
      std::vector<ExprPtr> fields;
      for (const Expr& f : static_cast<const rx::TupleNode*>(e.get())->fields) fields.push_back(PrintRelaxExpr(f));
      // TVM spells the empty tuple R.tuple().
      result = fields.empty() ? CallE(R("tuple"), {}) : TupleE(std::move(fields));
      break;
    }
    case NodeKind::kTupleGetItem: {
      const auto* n = static_cast<const rx::TupleGetItemNode*>(e.get());
      if (n->tuple.as<rx::TupleNode>()) {
        // `(a, b)[0]` would read back as Python indexing (the field itself): spell the node out.
        result = CallE(R("TupleGetItem"), {PrintRelaxExpr(n->tuple), IntLit(n->index)});
      } else {
        result = Index(PrintRelaxExpr(n->tuple), {IntLit(n->index)});
      }
      break;
    }
    case NodeKind::kShapeExpr: {
      std::vector<ExprPtr> dims;
      for (const PrimExpr& d : static_cast<const rx::ShapeExprNode*>(e.get())->values) dims.push_back(PrintShapeDim(d));
      result = CallE(R("shape"), {ListE(std::move(dims))});
      break;
    }
    case NodeKind::kPrimValue: {
      // TVM v0.26 has no R.prim_value node: a PrimExpr is a Relax value and prints as itself
      // (ints bare, True/False, T.float32(1.0), T.int32(5) for an int that is not int64).
      const PrimExpr& v = static_cast<const rx::PrimValueNode*>(e.get())->value;
      const auto* imm = v.as<IntImmNode>();
      result = imm && imm->dtype.is_bool() ? BoolLit(imm->value != 0) : PrintShapeDim(v);
      break;
    }
    case NodeKind::kRelaxStringImm:
      result = CallE(R("str"), {StrLit(static_cast<const rx::StringImmNode*>(e.get())->value)});
      break;
    case NodeKind::kDataTypeImm:
      result = CallE(R("dtype"), {StrLit(static_cast<const rx::DataTypeImmNode*>(e.get())->value.ToString())});
      break;
    case NodeKind::kRelaxCall:
      result = PrintRelaxCall(static_cast<const rx::CallNode*>(e.get()));
      break;
    default:
      if (e.as<PrimExprNode>()) {
        result = PrintExpr(Downcast<PrimExpr>(e));
      } else {
        result = StrLit(e->type_key());
      }
  }
  relax_ctx_ = saved;
  return result;
}

// ---------------------------------------------------------------- bindings and functions

void Docsifier::PrintSeqBody(const Expr& body, std::vector<StmtPtr>* out, ExprPtr* result) {
  const auto* seq = body.as<rx::SeqExprNode>();
  if (!seq) {
    *result = PrintRelaxExpr(body);
    return;
  }
  for (const rx::BindingBlock& block : seq->blocks) {
    if (!block.as<rx::DataflowBlockNode>()) {
      for (const rx::Binding& b : block->bindings) PrintBinding(b, out, scopes_.size() - 1);
      continue;
    }
    // Dataflow vars are local to the block; its outputs (plain Vars) outlive it.
    size_t outer = scopes_.size() - 1;
    PushScope();
    std::vector<StmtPtr> inner;
    std::vector<ExprPtr> outputs;
    for (const rx::Binding& b : block->bindings) {
      PrintBinding(b, &inner, outer);
      if (b->var.defined() && !b->var.as<rx::DataflowVarNode>()) outputs.push_back(Lookup(b->var.get()));
    }
    inner.push_back(ExprStmt(CallE(R("output"), std::move(outputs))));
    PopScope();
    out->push_back(WithS(CallE(R("dataflow"), {}), nullptr, std::move(inner)));
  }
  *result = PrintRelaxExpr(seq->body);
}

void Docsifier::PrintBinding(const rx::Binding& b, std::vector<StmtPtr>* out, size_t var_scope) {
  const Var& var = b->var;
  size_t scope = var.as<rx::DataflowVarNode>() ? scopes_.size() - 1 : var_scope;
  if (const auto* vb = b.as<rx::VarBindingNode>()) {
    if (const auto* if_node = vb->value.as<rx::IfNode>()) {
      out->push_back(PrintIfBinding(var, if_node, scope));
      return;
    }
    if (vb->value.as<rx::FunctionNode>()) {  // a local function: a nested def
      ExprPtr id = DefineIn(scope, var.get(), var->name);
      StmtPtr def = PrintRelaxFunc(Downcast<rx::Function>(vb->value), id->name);
      // TVM wraps every Relax function it prints in the header comments, a nested one too: the
      // dialects used so far, then an empty line.
      doc::Module header;
      AddHeader(&header, /*module_header=*/false);
      def->leading_comments = std::move(header.leading_comments);
      doc::Comment blank;
      blank.blank_line = true;
      def->leading_comments.push_back(std::move(blank));
      out->push_back(std::move(def));
      return;
    }
    ExprPtr value = PrintRelaxExpr(vb->value);
    // A call for its effect (R.print, R.assert_op, a function returning R.Tuple()) whose empty
    // tuple is not used prints as a bare expression statement, as TVM's syntax sugar does.
    if (IsVoidType(var->ty) && IsVoidType(kiln::relax::ExprType(vb->value)) && !used_relax_vars_.count(var.get())) {
      out->push_back(ExprStmt(value));
      return;
    }
    ExprPtr ann = BindingAnn(var, vb->value);
    ExprPtr id = DefineIn(scope, var.get(), var->name);
    out->push_back(ann ? AnnAssign(id, ann, value) : Assign(id, value));
    return;
  }
  if (const auto* mc = b.as<rx::MatchCastNode>()) {
    ExprPtr value = CallE(R("match_cast"), {PrintRelaxExpr(mc->value), PrintType(mc->cast_ty)});
    // The cast spells the type: without show_all_ty the annotation goes.
    ExprPtr ann = options_.show_all_ty ? BindingAnn(var, mc->value) : nullptr;
    ExprPtr id = DefineIn(scope, var.get(), var->name);
    out->push_back(ann ? AnnAssign(id, ann, value) : Assign(id, value));
  }
}

// TVM's TypeAsAnn: the variable's type, unless it is the type the value gives anyway and hiding
// is asked for (show_all_ty off, or always for call_tir and call_dps_packed). A scalar (PrimType)
// variable is always annotated.
ExprPtr Docsifier::BindingAnn(const Var& var, const Expr& value) {
  if (!var->ty.defined()) return nullptr;
  bool hide = !options_.show_all_ty || IsCallTirOrDpsPacked(value.as<rx::CallNode>());
  if (hide && !var->ty.as<PrimTypeNode>()) {
    Type inferred = InferredValueType(value);
    if (inferred.defined() && StructuralEqual(inferred, var->ty)) return nullptr;
  }
  return PrintType(var->ty);
}

StmtPtr Docsifier::PrintIfBinding(const Var& var, const rx::IfNode* op, size_t var_scope) {
  ExprPtr cond = PrintRelaxExpr(op->cond);
  ExprPtr id = DefineIn(var_scope, var.get(), var->name);
  ExprPtr ann = var->ty.defined() ? PrintType(var->ty) : nullptr;
  // Each branch ends by binding the if's variable to the branch's value.
  auto branch = [&](const Expr& e) {
    std::vector<StmtPtr> stmts;
    ExprPtr value;
    PushScope();
    PrintSeqBody(e, &stmts, &value);
    PopScope();
    stmts.push_back(ann ? AnnAssign(id, ann, value) : Assign(id, value));
    return stmts;
  };
  std::vector<StmtPtr> then_body = branch(op->true_branch);
  std::vector<StmtPtr> else_body = branch(op->false_branch);
  return IfS(cond, std::move(then_body), std::move(else_body));
}

StmtPtr Docsifier::PrintRelaxFunc(const rx::Function& f, const std::string& name) {
  std::vector<StmtPtr> stmts;
  std::vector<StmtPtr>* saved_stmts = func_stmts_;
  if (saved_stmts == nullptr) {  // a top-level function: its nested ones are inside it
    used_relax_vars_.clear();
    CollectUses(f->body, &used_relax_vars_);
  }
  size_t saved_scope = func_scope_;
  bool saved_cls = cls_defined_;
  PushScope();
  func_stmts_ = &stmts;
  func_scope_ = scopes_.size() - 1;
  cls_defined_ = false;

  signature_ = true;
  std::vector<doc::Arg> args;
  for (const Var& p : f->params) {
    ExprPtr ann = p->ty.defined() ? PrintType(p->ty) : nullptr;
    ExprPtr id = Define(p.get(), p->name);
    args.push_back(ArgOf(id->name, ann));
  }
  ExprPtr ret = f->ret_ty.defined() ? PrintType(f->ret_ty) : nullptr;
  signature_ = false;

  bool has_symbol = false;
  std::vector<std::string> skip;
  for (size_t i = 0; i < f->attrs.size(); ++i) {
    if (f->attrs.key_at(i).str() != "global_symbol") continue;
    has_symbol = true;
    const auto* s = f->attrs.value_at(i).as<StringNode>();
    if (s && s->value == name) skip.push_back("global_symbol");
  }
  if (f->attrs.size() > skip.size()) {
    stmts.push_back(ExprStmt(CallE(R("func_attr"), {PrintAttrMap(f->attrs, skip, /*bare_numbers=*/true)})));
  }

  std::vector<StmtPtr> body;
  ExprPtr result;
  PrintSeqBody(f->body, &body, &result);
  body.push_back(ReturnS(result));
  for (StmtPtr& s : body) stmts.push_back(std::move(s));

  Kwargs deco_kw;
  if (!f->is_pure) deco_kw.emplace_back("pure", BoolLit(false));
  if (!has_symbol && saved_stmts == nullptr) deco_kw.emplace_back("private", BoolLit(true));  // nested defs never have one
  ExprPtr deco = deco_kw.empty() ? R("function") : CallE(R("function"), {}, std::move(deco_kw));
  PopScope();
  func_stmts_ = saved_stmts;
  func_scope_ = saved_scope;
  cls_defined_ = saved_cls;
  return FunctionDefS(name, std::move(args), {deco}, ret, std::move(stmts));
}

}  // namespace kiln::script::printer
