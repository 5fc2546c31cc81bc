// Linear algebra: R.matmul (numpy semantics: 1-D operands get a unit dim that is dropped again,
// batch dims broadcast, the reduction dims must agree), R.outer, R.einsum (subscripts with
// optional "->" and "..."), and the script function R.linear (matmul by the transposed weight,
// plus a bias), which TVM's Python builds from those ops rather than as an operator of its own.
#include <cctype>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

absl::StatusOr<Type> InferMatmul(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> a = GetTensorInfo(ArgType(call, 0), "matmul", "x1");
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 1), "matmul", "x2");
  if (!b.ok()) return b.status();
  DataType dtype = DTypeAttr(call, "out_dtype");
  if (dtype.is_void()) {
    if (!a->dtype.is_void() && !b->dtype.is_void() && a->dtype != b->dtype) {
      return OpError("matmul", "dtype mismatch: " + a->dtype.ToString() + " vs " + b->dtype.ToString() +
                                   " (set out_dtype to mix dtypes)");
    }
    dtype = a->dtype.is_void() ? b->dtype : a->dtype;
  }
  if (a->ndim == 0 || b->ndim == 0) return OpError("matmul", "operands must have rank >= 1");
  if (a->ndim < 0 || b->ndim < 0) return MakeTensorType(dtype, -1);
  bool a_vec = a->ndim == 1, b_vec = b->ndim == 1;
  int a_batch = a_vec ? 0 : a->ndim - 2, b_batch = b_vec ? 0 : b->ndim - 2;
  int out_ndim = std::max(a_batch, b_batch) + (a_vec ? 0 : 1) + (b_vec ? 0 : 1);
  if (!a->shape_known || !b->shape_known) return MakeTensorType(dtype, out_ndim);
  PrimExpr ka = a->shape[a->ndim - 1];
  PrimExpr kb = b_vec ? b->shape[0] : b->shape[b->ndim - 2];
  if (ProveNotEqual(ka, kb)) {
    return OpError("matmul", absl::StrCat("reduction dimensions differ: ", ShapeToString(a->shape), " @ ",
                                          ShapeToString(b->shape), " (", DimToString(ka), " vs ", DimToString(kb), ")"));
  }
  std::vector<PrimExpr> ba(a->shape.begin(), a->shape.begin() + a_batch);
  std::vector<PrimExpr> bb(b->shape.begin(), b->shape.begin() + b_batch);
  bool unknown = false;
  absl::StatusOr<std::vector<PrimExpr>> batch = BroadcastShapes("matmul", ba, bb, &unknown);
  if (!batch.ok()) return batch.status();
  if (unknown) return MakeTensorType(dtype, out_ndim);
  std::vector<PrimExpr> shape = *batch;
  if (!a_vec) shape.push_back(a->shape[a->ndim - 2]);
  if (!b_vec) shape.push_back(b->shape[b->ndim - 1]);
  return MakeTensorType(shape, dtype);
}

absl::StatusOr<Type> InferOuter(const ir::relax::Call& call) {
  absl::StatusOr<TensorInfo> a = GetTensorInfo(ArgType(call, 0), "outer", "x1");
  if (!a.ok()) return a.status();
  absl::StatusOr<TensorInfo> b = GetTensorInfo(ArgType(call, 1), "outer", "x2");
  if (!b.ok()) return b.status();
  if ((a->ndim >= 0 && a->ndim != 1) || (b->ndim >= 0 && b->ndim != 1)) {
    return OpError("outer", "operands must be 1-D");
  }
  DataType dtype = a->dtype.is_void() ? b->dtype : a->dtype;
  if (!a->shape_known || !b->shape_known) return MakeTensorType(dtype, 2);
  return MakeTensorType({a->shape[0], b->shape[0]}, dtype);
}

// One einsum operand's labels: letters, with at most one "..." (ellipsis_at is its position
// among the labels, or -1).
struct EinsumTerm {
  std::string labels;
  int ellipsis_at = -1;
};

absl::StatusOr<EinsumTerm> ParseEinsumTerm(const std::string& text) {
  EinsumTerm t;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0 || t.ellipsis_at >= 0) {
        return OpError("einsum", "invalid ellipsis in subscripts term \"" + text + "\"");
      }
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 2;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      return OpError("einsum", std::string("invalid character '") + c + "' in subscripts");
    }
    t.labels.push_back(c);
  }
  return t;
}

absl::StatusOr<Type> InferEinsum(const ir::relax::Call& call) {
  absl::StatusOr<std::optional<std::vector<TensorInfo>>> ins = GetTupleTensorInfos(call, 0, "einsum", "operands");
  if (!ins.ok()) return ins.status();
  std::string subscripts = StringAttr(call, "subscripts", "");
  std::vector<std::string> sides = absl::StrSplit(subscripts, "->");
  if (sides.size() > 2) return OpError("einsum", "subscripts may contain \"->\" only once");
  std::vector<EinsumTerm> terms;
  for (const std::string& part : std::vector<std::string>(absl::StrSplit(sides[0], ','))) {
    absl::StatusOr<EinsumTerm> t = ParseEinsumTerm(part);
    if (!t.ok()) return t.status();
    terms.push_back(*t);
  }
  if (!ins->has_value()) return MakeTensorType(DataType::Void(), -1);
  const std::vector<TensorInfo>& xs = **ins;
  if (xs.size() != terms.size()) {
    return OpError("einsum", absl::StrCat("subscripts name ", terms.size(), " operand(s) but ", xs.size(), " were given"));
  }
  absl::StatusOr<DataType> dtype = CommonDType("einsum", xs);
  if (!dtype.ok()) return dtype.status();
  EinsumTerm out;
  bool any_ellipsis = false;
  for (const EinsumTerm& t : terms) any_ellipsis |= t.ellipsis_at >= 0;
  if (sides.size() == 2) {
    absl::StatusOr<EinsumTerm> o = ParseEinsumTerm(sides[1]);
    if (!o.ok()) return o.status();
    out = *o;
  } else {
    // Implicit output: the labels used once, alphabetically, after the broadcast dims.
    std::map<char, int> count;
    for (const EinsumTerm& t : terms) {
      for (char c : t.labels) ++count[c];
    }
    if (any_ellipsis) out.ellipsis_at = 0;
    for (const auto& [c, n] : count) {
      if (n == 1) out.labels.push_back(c);
    }
  }
  std::map<char, PrimExpr> dims;
  std::vector<PrimExpr> ellipsis_dims;
  bool shapes_known = true;
  int ellipsis_ndim = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const EinsumTerm& t = terms[k];
    const TensorInfo& x = xs[k];
    int n = static_cast<int>(t.labels.size());
    if (x.ndim < 0) {
      shapes_known = false;
      continue;
    }
    if (t.ellipsis_at < 0 ? x.ndim != n : x.ndim < n) {
      return OpError("einsum", absl::StrCat("operand ", k, " has rank ", x.ndim, " but its subscripts name ", n,
                                            " dimension(s)"));
    }
    int e = t.ellipsis_at < 0 ? 0 : x.ndim - n;
    ellipsis_ndim = std::max(ellipsis_ndim, e);
    if (!x.shape_known) {
      shapes_known = false;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      int pos = (t.ellipsis_at >= 0 && i >= t.ellipsis_at) ? i + e : i;
      auto [it, fresh] = dims.emplace(t.labels[i], x.shape[pos]);
      if (fresh) continue;
      // A label's sizes broadcast as TVM's einsum does: equal constants, or 1 against anything;
      // a symbolic size wins over a constant one; two different symbolic sizes give their max.
      auto a = AsConst(it->second), b = AsConst(x.shape[pos]);
      if (a && b) {
        if (*a != *b && *a != 1 && *b != 1) {
          return OpError("einsum", absl::StrCat("label '", std::string(1, t.labels[i]), "' has sizes ",
                                                DimToString(it->second), " and ", DimToString(x.shape[pos])));
        }
        it->second = Dim(std::max(*a, *b));
      } else if (a) {
        it->second = x.shape[pos];
      } else if (!b && !ProveEqual(it->second, x.shape[pos])) {
        it->second = Max(it->second, x.shape[pos]);
      }
    }
    if (e > 0) {
      std::vector<PrimExpr> mine(x.shape.begin() + t.ellipsis_at, x.shape.begin() + t.ellipsis_at + e);
      bool unknown = false;
      absl::StatusOr<std::vector<PrimExpr>> b = BroadcastShapes("einsum", ellipsis_dims, mine, &unknown);
      if (!b.ok()) return b.status();
      ellipsis_dims = *b;
      if (unknown) shapes_known = false;
    }
  }
  for (char c : out.labels) {
    bool found = false;
    for (const EinsumTerm& t : terms) found |= t.labels.find(c) != std::string::npos;
    if (!found) return OpError("einsum", std::string("output label '") + c + "' does not appear in the inputs");
  }
  int out_ndim = static_cast<int>(out.labels.size()) + (out.ellipsis_at >= 0 ? ellipsis_ndim : 0);
  if (!shapes_known) {
    bool ranks_known = true;
    for (const TensorInfo& x : xs) ranks_known &= x.ndim >= 0;
    return MakeTensorType(*dtype, ranks_known ? out_ndim : -1);
  }
  std::vector<PrimExpr> shape;
  for (size_t i = 0; i <= out.labels.size(); ++i) {
    if (out.ellipsis_at == static_cast<int>(i)) shape.insert(shape.end(), ellipsis_dims.begin(), ellipsis_dims.end());
    if (i < out.labels.size()) shape.push_back(dims.at(out.labels[i]));
  }
  return MakeTensorType(shape, *dtype);
}

// R.linear(data, weight, bias=None, out_dtype=None) = matmul(data, permute_dims(weight)) [+ bias].
absl::StatusOr<ir::relax::Call> ExpandLinear(const ir::relax::Call& call, const IRModule& module) {
  absl::StatusOr<ir::relax::Call> wt = MakeOpCallByName("relax.permute_dims", {call->args[1]}, {}, module, call->span);
  if (!wt.ok()) return wt.status();
  absl::StatusOr<ir::relax::Call> mm = MakeOpCallByName(
      "relax.matmul", {call->args[0], *wt}, {{"out_dtype", call->attrs.Get(String("out_dtype"))}}, module, call->span);
  if (!mm.ok() || call->args.size() < 3) return mm;
  return MakeOpCallByName("relax.add", {*mm, call->args[2]}, {}, module, call->span);
}

}  // namespace

void RegisterLinalgOps(std::vector<OpSchema>* ops) {
  AddOp(ops, "matmul", {"x1", "x2"}, {DTypeAttrSpec("out_dtype", DataType::Void())}, InferMatmul);
  AddOp(ops, "outer", {"x1", "x2"}, {}, InferOuter);
  AddOp(ops, "einsum", {"operands"}, {{"subscripts", AttrSpec::Kind::kString, ObjectRef()}}, InferEinsum);
  OpSchema& linear = AddOp(ops, "linear", {"data", "weight", "bias"}, {DTypeAttrSpec("out_dtype", DataType::Void())},
                           nullptr);
  linear.min_args = 2;
  linear.expand = ExpandLinear;
}

}  // namespace kiln::relax
