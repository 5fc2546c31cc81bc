// Shape arithmetic, attribute access and broadcasting for Relax type inference (see infer_util.h).
#include "compiler/relax/op/infer_util.h"

#include <cstdint>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/structural.h"
#include "compiler/relax/op/op.h"
#include "compiler/tir/functor.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT: the IR vocabulary is used everywhere here.

namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// x * c with c constant, as (x, c); returns false for other shapes.
bool SplitConstFactor(const PrimExpr& e, PrimExpr* x, int64_t* c) {
  if (const auto* m = e.as<MulNode>()) {
    if (auto cb = AsConst(m->b)) { *x = m->a; *c = *cb; return true; }
    if (auto ca = AsConst(m->a)) { *x = m->b; *c = *ca; return true; }
  }
  return false;
}

class Substituter : public StmtExprMutator {
 public:
  explicit Substituter(const std::unordered_map<const VarNode*, PrimExpr>& vmap) : vmap_(vmap) {}
  using StmtExprMutator::VisitExpr;

 protected:
  PrimExpr VisitExprDefault_(const Object* op) override {
    if (op->kind() == NodeKind::kVar || op->kind() == NodeKind::kSizeVar) {
      auto it = vmap_.find(static_cast<const VarNode*>(op));
      if (it != vmap_.end()) return it->second;
    }
    return StmtExprMutator::VisitExprDefault_(op);
  }

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& vmap_;
};

class VarCollector : public StmtExprVisitor {
 public:
  explicit VarCollector(std::vector<Var>* out) : out_(out) {}
  using StmtExprVisitor::VisitExpr;

 protected:
  void VisitExprDefault_(const Object* op) override {
    if (op->kind() == NodeKind::kVar || op->kind() == NodeKind::kSizeVar) {
      Var v = GetRef<Var>(static_cast<const VarNode*>(op));
      for (const Var& seen : *out_) {
        if (seen.same_as(v)) return;
      }
      out_->push_back(v);
    }
  }

 private:
  std::vector<Var>* out_;
};

}  // namespace

// ---- dimensions ----

PrimExpr Dim(int64_t v) { return IntImm(DataType::Int(64), v); }

std::optional<int64_t> AsConst(const PrimExpr& e) {
  if (const auto* i = e.as<IntImmNode>()) return i->value;
  return std::nullopt;
}

// Constant folding of dims stops where int64 would overflow (a shape like (2, 2**63 - 1) reshaped):
// the dim is then kept as the unfolded expression instead of a wrapped, wrong constant.
namespace {
std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
}  // namespace

PrimExpr AddDim(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConst(a), cb = AsConst(b);
  if (ca && cb) {
    if (auto r = CheckedAdd(*ca, *cb)) return Dim(*r);
    return Add(a, b);
  }
  if (cb && *cb == 0) return a;
  if (ca && *ca == 0) return b;
  // (x + c1) + c2 -> x + (c1 + c2)
  if (cb) {
    if (const auto* add = a.as<AddNode>()) {
      if (auto c1 = AsConst(add->b)) {
        if (auto r = CheckedAdd(*c1, *cb)) return AddDim(add->a, Dim(*r));
      }
    }
    if (const auto* sub = a.as<SubNode>()) {
      if (auto c1 = AsConst(sub->b)) {
        if (auto r = CheckedSub(*cb, *c1)) return AddDim(sub->a, Dim(*r));
      }
    }
    if (*cb < 0 && *cb != INT64_MIN) return Sub(a, Dim(-*cb));
  }
  return Add(a, b);
}

PrimExpr SubDim(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConst(a), cb = AsConst(b);
  if (ca && cb) {
    if (auto r = CheckedSub(*ca, *cb)) return Dim(*r);
    return Sub(a, b);
  }
  if (cb && *cb != INT64_MIN) return AddDim(a, Dim(-*cb));
  if (StructuralEqual(a, b)) return Dim(0);
  // (x + y) - y -> x
  if (const auto* add = a.as<AddNode>()) {
    if (StructuralEqual(add->b, b)) return add->a;
    if (StructuralEqual(add->a, b)) return add->b;
  }
  return Sub(a, b);
}

PrimExpr MulDim(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConst(a), cb = AsConst(b);
  if (ca && cb) {
    if (auto r = CheckedMul(*ca, *cb)) return Dim(*r);
    return Mul(a, b);
  }
  if (ca && !cb) return MulDim(b, a);  // constants to the right
  if (cb && *cb == 1) return a;
  if (cb && *cb == 0) return Dim(0);
  PrimExpr x;
  int64_t c;
  if (cb && SplitConstFactor(a, &x, &c)) {
    if (auto r = CheckedMul(c, *cb)) return MulDim(x, Dim(*r));
  }
  return Mul(a, b);
}

PrimExpr FloorDivDim(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConst(a), cb = AsConst(b);
  if (ca && cb && *cb != 0) return Dim(FloorDivInt(*ca, *cb));
  if (cb && *cb == 1) return a;
  if (StructuralEqual(a, b)) return Dim(1);
  PrimExpr x;
  int64_t c;
  if (cb && *cb != 0 && SplitConstFactor(a, &x, &c) && c % *cb == 0) return MulDim(x, Dim(c / *cb));
  // (x * y) // y -> x
  if (const auto* m = a.as<MulNode>()) {
    if (StructuralEqual(m->b, b)) return m->a;
    if (StructuralEqual(m->a, b)) return m->b;
  }
  return FloorDiv(a, b);
}

PrimExpr Product(const std::vector<PrimExpr>& dims) {
  PrimExpr p = Dim(1);
  for (const PrimExpr& d : dims) p = MulDim(p, d);
  return p;
}

PrimExpr Simplify(const PrimExpr& e) {
  if (const auto* n = e.as<AddNode>()) return AddDim(Simplify(n->a), Simplify(n->b));
  if (const auto* n = e.as<SubNode>()) return SubDim(Simplify(n->a), Simplify(n->b));
  if (const auto* n = e.as<MulNode>()) return MulDim(Simplify(n->a), Simplify(n->b));
  if (const auto* n = e.as<FloorDivNode>()) return FloorDivDim(Simplify(n->a), Simplify(n->b));
  if (const auto* n = e.as<FloorModNode>()) {
    PrimExpr a = Simplify(n->a), b = Simplify(n->b);
    auto ca = AsConst(a), cb = AsConst(b);
    if (ca && cb && *cb != 0) return Dim(*ca - FloorDivInt(*ca, *cb) * *cb);
    return FloorMod(a, b);
  }
  if (const auto* n = e.as<MinNode>()) {
    PrimExpr a = Simplify(n->a), b = Simplify(n->b);
    auto ca = AsConst(a), cb = AsConst(b);
    if (ca && cb) return Dim(std::min(*ca, *cb));
    if (StructuralEqual(a, b)) return a;
    return Min(a, b);
  }
  if (const auto* n = e.as<MaxNode>()) {
    PrimExpr a = Simplify(n->a), b = Simplify(n->b);
    auto ca = AsConst(a), cb = AsConst(b);
    if (ca && cb) return Dim(std::max(*ca, *cb));
    if (StructuralEqual(a, b)) return a;
    return Max(a, b);
  }
  if (const auto* n = e.as<IntImmNode>()) {
    if (n->dtype != DataType::Int(64) && !n->dtype.is_bool()) return Dim(n->value);
  }
  return e;
}

bool ProveEqual(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr sa = Simplify(a), sb = Simplify(b);
  auto ca = AsConst(sa), cb = AsConst(sb);
  if (ca && cb) return *ca == *cb;
  if (ca || cb) return false;
  return StructuralEqual(sa, sb) || AsConst(Simplify(SubDim(sa, sb))) == std::optional<int64_t>(0);
}

bool ProveNotEqual(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConst(Simplify(a)), cb = AsConst(Simplify(b));
  return ca && cb && *ca != *cb;
}

PrimExpr Substitute(const PrimExpr& e, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  if (vmap.empty()) return e;
  Substituter s(vmap);
  return Simplify(s.VisitExpr(e));
}

Type SubstituteType(const Type& t, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  if (!t.defined() || vmap.empty()) return t;
  if (const auto* dt = t.as<DTensorTypeNode>()) {
    return DTensorType(Downcast<TensorType>(SubstituteType(dt->tensor_ty, vmap)), dt->device_mesh, dt->placement);
  }
  if (const auto* tt = t.as<TensorTypeNode>()) {
    std::vector<PrimExpr> values;
    int ndim = -1;
    auto n = CloneNode(*tt);
    if (tt->shape.defined() && GetShapeValues(tt->shape, &values, &ndim)) {
      Array<PrimExpr> out;
      for (const PrimExpr& v : values) out.push_back(Substitute(v, vmap));
      n->shape = ir::relax::ShapeExpr(out);
    }
    return Type(ObjectPtr<Object>(std::move(n)));
  }
  if (const auto* st = t.as<ShapeTypeNode>()) {
    if (!st->values_known) return t;
    Array<PrimExpr> out;
    for (const PrimExpr& v : st->values) out.push_back(Substitute(v, vmap));
    return ShapeType(out);
  }
  if (const auto* pt = t.as<PrimTypeNode>()) {
    if (!pt->value.defined()) return t;
    return PrimType(pt->dtype, Substitute(pt->value, vmap));
  }
  if (const auto* tu = t.as<TupleTypeNode>()) {
    Array<Type> fields;
    for (const Type& f : tu->fields) fields.push_back(SubstituteType(f, vmap));
    return TupleType(fields);
  }
  if (const auto* ft = t.as<FuncTypeNode>()) {
    auto n = CloneNode(*ft);
    Array<Type> params;
    for (const Type& p : ft->params) params.push_back(SubstituteType(p, vmap));
    n->params = params;
    n->ret = SubstituteType(ft->ret, vmap);
    return Type(ObjectPtr<Object>(std::move(n)));
  }
  return t;
}

void CollectVars(const PrimExpr& e, std::vector<Var>* out) {
  if (!e.defined()) return;
  VarCollector c(out);
  c.VisitExpr(e);
}

void CollectTypeVars(const Type& t, std::vector<Var>* out) {
  if (!t.defined()) return;
  if (const auto* tt = t.as<TensorTypeNode>()) {
    if (const auto* se = tt->shape.as<ir::relax::ShapeExprNode>()) {
      for (const PrimExpr& v : se->values) CollectVars(v, out);
    }
  } else if (const auto* st = t.as<ShapeTypeNode>()) {
    for (const PrimExpr& v : st->values) CollectVars(v, out);
  } else if (const auto* pt = t.as<PrimTypeNode>()) {
    CollectVars(pt->value, out);
  } else if (const auto* tu = t.as<TupleTypeNode>()) {
    for (const Type& f : tu->fields) CollectTypeVars(f, out);
  } else if (const auto* ft = t.as<FuncTypeNode>()) {
    for (const Type& p : ft->params) CollectTypeVars(p, out);
    CollectTypeVars(ft->ret, out);
  } else if (const auto* dt = t.as<DTensorTypeNode>()) {
    CollectTypeVars(dt->tensor_ty, out);
  }
}

// ---- types ----

absl::StatusOr<TensorInfo> GetTensorInfo(const Type& t, const std::string& op, const std::string& arg,
                                         bool allow_prim) {
  TensorInfo info;
  if (const auto* tt = t.as<TensorTypeNode>()) {
    info.dtype = tt->dtype;
    info.ndim = tt->ndim;
    int ndim = -1;
    if (tt->shape.defined() && GetShapeValues(tt->shape, &info.shape, &ndim)) {
      info.shape_known = true;
      info.ndim = static_cast<int>(info.shape.size());
    } else if (ndim >= 0) {
      info.ndim = ndim;
    }
    return info;
  }
  if (allow_prim) {
    if (const auto* pt = t.as<PrimTypeNode>()) {
      info.dtype = pt->dtype;
      info.ndim = 0;
      info.shape_known = true;
      return info;
    }
  }
  if (!t.defined() || t.as<AnyTypeNode>()) {
    // An untyped argument: nothing is known, but it may be a tensor at run time.
    return info;
  }
  return OpError(op, absl::StrCat("expects a tensor for argument '", arg, "', got ", TypeToString(t)));
}

Type MakeTensorType(const TensorInfo& info) {
  if (info.shape_known) return MakeTensorType(info.shape, info.dtype);
  return MakeTensorType(info.dtype, info.ndim);
}

Type MakeTensorType(std::vector<PrimExpr> shape, DataType dtype) {
  Array<PrimExpr> dims;
  for (const PrimExpr& d : shape) dims.push_back(Simplify(d));
  return TensorType(dims, dtype);
}

Type MakeTensorType(DataType dtype, int ndim) { return TensorType(dtype, ndim); }

bool GetShapeValues(const Expr& e, std::vector<PrimExpr>* values, int* ndim) {
  values->clear();
  *ndim = -1;
  if (!e.defined()) return false;
  if (const auto* se = e.as<ir::relax::ShapeExprNode>()) {
    for (const PrimExpr& v : se->values) values->push_back(v);
    *ndim = static_cast<int>(values->size());
    return true;
  }
  Type t = ExprType(e);
  if (const auto* st = t.as<ShapeTypeNode>()) {
    *ndim = st->ndim;
    if (st->values_known) {
      for (const PrimExpr& v : st->values) values->push_back(v);
      return true;
    }
  }
  return false;
}

Type VoidType() { return TupleType(Array<Type>{}); }

// ---- call arguments and attributes ----

Type ArgType(const ir::relax::Call& call, size_t i) { return ExprType(call->args[i]); }

namespace {
ObjectRef AttrValue(const ir::relax::Call& call, const std::string& name) {
  return call->attrs.Get(String(name));
}
}  // namespace

std::optional<int64_t> IntAttr(const ir::relax::Call& call, const std::string& name) {
  ObjectRef v = AttrValue(call, name);
  if (const auto* i = v.as<IntImmNode>()) return i->value;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> IntArrayAttr(const ir::relax::Call& call, const std::string& name) {
  ObjectRef v = AttrValue(call, name);
  if (!v.defined()) return std::nullopt;
  std::vector<int64_t> out;
  if (const auto* i = v.as<IntImmNode>()) {
    out.push_back(i->value);
    return out;
  }
  if (const auto* a = v.as<ArrayNode>()) {
    for (const ObjectRef& x : a->data) {
      if (const auto* xi = x.as<IntImmNode>()) out.push_back(xi->value);
    }
    return out;
  }
  return std::nullopt;
}

std::optional<double> FloatAttr(const ir::relax::Call& call, const std::string& name) {
  ObjectRef v = AttrValue(call, name);
  if (const auto* f = v.as<FloatImmNode>()) return f->value;
  if (const auto* i = v.as<IntImmNode>()) return static_cast<double>(i->value);
  return std::nullopt;
}

bool BoolAttr(const ir::relax::Call& call, const std::string& name, bool dflt) {
  ObjectRef v = AttrValue(call, name);
  if (const auto* i = v.as<IntImmNode>()) return i->value != 0;
  return dflt;
}

std::string StringAttr(const ir::relax::Call& call, const std::string& name, const std::string& dflt) {
  ObjectRef v = AttrValue(call, name);
  if (const auto* s = v.as<StringNode>()) return s->value;
  return dflt;
}

DataType DTypeAttr(const ir::relax::Call& call, const std::string& name) {
  ObjectRef v = AttrValue(call, name);
  if (const auto* d = v.as<ir::relax::DataTypeImmNode>()) return d->value;
  return DataType::Void();
}

PrimExpr PrimArgValue(const ir::relax::Call& call, size_t i) {
  if (i >= call->args.size()) return PrimExpr();
  if (const auto* p = call->args[i].as<ir::relax::PrimValueNode>()) return p->value;
  const Type ty = ArgType(call, i);
  if (const auto* pt = ty.as<PrimTypeNode>()) return pt->value;
  return PrimExpr();
}

absl::StatusOr<std::optional<std::vector<TensorInfo>>> GetTupleTensorInfos(const ir::relax::Call& call, size_t i,
                                                                          const std::string& op,
                                                                          const std::string& arg) {
  const Type t = ArgType(call, i);
  if (!t.defined() || t.as<AnyTypeNode>()) return std::optional<std::vector<TensorInfo>>();
  const auto* tup = t.as<TupleTypeNode>();
  if (tup == nullptr) return OpError(op, "expects a tuple of tensors for argument '" + arg + "', got " + TypeToString(t));
  std::vector<TensorInfo> out;
  for (size_t k = 0; k < tup->fields.size(); ++k) {
    absl::StatusOr<TensorInfo> x = GetTensorInfo(tup->fields[k], op, absl::StrCat(arg, "[", k, "]"));
    if (!x.ok()) return x.status();
    out.push_back(*x);
  }
  return std::optional<std::vector<TensorInfo>>(std::move(out));
}

absl::StatusOr<DataType> CommonDType(const std::string& op, const std::vector<TensorInfo>& ins) {
  DataType dtype = DataType::Void();
  for (const TensorInfo& x : ins) {
    if (x.dtype.is_void()) continue;
    if (!dtype.is_void() && dtype != x.dtype) {
      return OpError(op, "dtype mismatch: " + dtype.ToString() + " vs " + x.dtype.ToString());
    }
    dtype = x.dtype;
  }
  return dtype;
}

// ---- axes and broadcasting ----

absl::StatusOr<int> NormalizeAxis(const std::string& op, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    return OpError(op, absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

absl::StatusOr<std::vector<int>> NormalizeAxes(const std::string& op, const std::vector<int64_t>& axes,
                                               int ndim) {
  std::vector<int> out;
  std::set<int> seen;
  for (int64_t a : axes) {
    absl::StatusOr<int> n = NormalizeAxis(op, a, ndim);
    if (!n.ok()) return n.status();
    if (!seen.insert(*n).second) return OpError(op, absl::StrCat("axis ", a, " appears more than once"));
    out.push_back(*n);
  }
  return out;
}

absl::StatusOr<std::vector<PrimExpr>> BroadcastShapes(const std::string& op, const std::vector<PrimExpr>& a,
                                                      const std::vector<PrimExpr>& b, bool* unknown) {
  *unknown = false;
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right.
    bool has_a = i < a.size(), has_b = i < b.size();
    PrimExpr da = has_a ? a[a.size() - 1 - i] : PrimExpr();
    PrimExpr db = has_b ? b[b.size() - 1 - i] : PrimExpr();
    PrimExpr& r = out[n - 1 - i];
    if (!has_a) { r = db; continue; }
    if (!has_b) { r = da; continue; }
    auto ca = AsConst(Simplify(da)), cb = AsConst(Simplify(db));
    if (ca && *ca == 1) { r = db; continue; }
    if (cb && *cb == 1) { r = da; continue; }
    if (ProveEqual(da, db)) { r = da; continue; }
    if (ca && cb) {
      return OpError(op, absl::StrCat("cannot broadcast shapes ", ShapeToString(a), " and ", ShapeToString(b),
                                      ": dimension ", DimToString(da), " vs ", DimToString(db)));
    }
    *unknown = true;
    r = da;
  }
  return out;
}

absl::StatusOr<TensorInfo> BroadcastInfos(const std::string& op, const TensorInfo& a, const TensorInfo& b) {
  TensorInfo out;
  if (a.ndim < 0 || b.ndim < 0) return out;
  out.ndim = std::max(a.ndim, b.ndim);
  if (!a.shape_known || !b.shape_known) return out;
  bool unknown = false;
  absl::StatusOr<std::vector<PrimExpr>> s = BroadcastShapes(op, a.shape, b.shape, &unknown);
  if (!s.ok()) return s.status();
  if (!unknown) {
    out.shape = *s;
    out.shape_known = true;
  }
  return out;
}

// ---- spelling ----

namespace {
int Precedence(const PrimExpr& e) {
  if (e.as<AddNode>() || e.as<SubNode>()) return 1;
  if (e.as<MulNode>() || e.as<FloorDivNode>() || e.as<FloorModNode>() || e.as<DivNode>()) return 2;
  return 3;
}
std::string Operand(const PrimExpr& e, int parent, bool right) {
  std::string s = DimToString(e);
  int p = Precedence(e);
  return (p < parent || (right && p == parent)) ? "(" + s + ")" : s;
}
}  // namespace

std::string DimToString(const PrimExpr& e) {
  if (!e.defined()) return "?";
  if (const auto* i = e.as<IntImmNode>()) return std::to_string(i->value);
  if (const auto* v = e.as<VarNode>()) return v->name;
  auto bin = [&](const BinaryNode* n, const char* sym, int prec) {
    return Operand(n->a, prec, false) + sym + Operand(n->b, prec, true);
  };
  if (const auto* n = e.as<AddNode>()) return bin(n, " + ", 1);
  if (const auto* n = e.as<SubNode>()) return bin(n, " - ", 1);
  if (const auto* n = e.as<MulNode>()) return bin(n, " * ", 2);
  if (const auto* n = e.as<FloorDivNode>()) return bin(n, " // ", 2);
  if (const auto* n = e.as<FloorModNode>()) return bin(n, " % ", 2);
  if (const auto* n = e.as<MinNode>()) return "T.min(" + DimToString(n->a) + ", " + DimToString(n->b) + ")";
  if (const auto* n = e.as<MaxNode>()) return "T.max(" + DimToString(n->a) + ", " + DimToString(n->b) + ")";
  return std::string("<") + e->type_key() + ">";
}

std::string ShapeToString(const std::vector<PrimExpr>& shape) {
  std::vector<std::string> parts;
  for (const PrimExpr& d : shape) parts.push_back(DimToString(d));
  return "(" + absl::StrJoin(parts, ", ") + (shape.size() == 1 ? ",)" : ")");
}

std::string TypeToString(const Type& t) {
  if (!t.defined()) return "<untyped>";
  if (const auto* tt = t.as<TensorTypeNode>()) {
    std::vector<PrimExpr> values;
    int ndim = -1;
    std::vector<std::string> parts;
    if (tt->shape.defined() && GetShapeValues(tt->shape, &values, &ndim)) {
      parts.push_back(ShapeToString(values));
    } else if (tt->ndim >= 0) {
      parts.push_back(absl::StrCat("ndim=", tt->ndim));
    }
    if (!tt->dtype.is_void()) parts.push_back("dtype=\"" + tt->dtype.ToString() + "\"");
    return "R.Tensor(" + absl::StrJoin(parts, ", ") + ")";
  }
  if (const auto* st = t.as<ShapeTypeNode>()) {
    if (st->values_known) {
      std::vector<std::string> parts;
      for (const PrimExpr& v : st->values) parts.push_back(DimToString(v));
      return "R.Shape([" + absl::StrJoin(parts, ", ") + "])";
    }
    return st->ndim >= 0 ? absl::StrCat("R.Shape(ndim=", st->ndim, ")") : "R.Shape";
  }
  if (const auto* pt = t.as<PrimTypeNode>()) {
    if (pt->value.defined()) return "R.Prim(value=" + DimToString(pt->value) + ")";
    return "R.Prim(\"" + pt->dtype.ToString() + "\")";
  }
  if (const auto* tu = t.as<TupleTypeNode>()) {
    std::vector<std::string> parts;
    for (const Type& f : tu->fields) parts.push_back(TypeToString(f));
    return "R.Tuple(" + absl::StrJoin(parts, ", ") + ")";
  }
  if (const auto* ft = t.as<FuncTypeNode>()) {
    std::vector<std::string> parts;
    for (const Type& p : ft->params) parts.push_back(TypeToString(p));
    return "R.Callable((" + absl::StrJoin(parts, ", ") + "), " + TypeToString(ft->ret) + ")";
  }
  if (t.as<AnyTypeNode>()) return "R.Any";
  if (t.as<PackedFuncTypeNode>()) return "R.PackedFunc";
  if (const auto* dt = t.as<DTensorTypeNode>()) {
    return "R.DTensor(" + TypeToString(dt->tensor_ty) + ", \"" + dt->placement + "\")";
  }
  return t->type_key();
}

absl::Status OpError(const std::string& op, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat("R.", op, ": ", msg));
}

}  // namespace kiln::relax
