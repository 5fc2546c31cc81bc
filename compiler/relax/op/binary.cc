// Elementwise binary operators (R.add, R.less, R.bitwise_and, ...): numpy broadcasting over
// possibly symbolic shapes; arithmetic keeps the operand dtype, comparisons give bool (of any two
// operand dtypes). Also the
// ternary R.ewise_fma(x1, x2, x3) = x1 * x2 + x3, whose operands must agree exactly (no
// broadcasting).
#include "absl/strings/str_cat.h"
#include "compiler/relax/op/infer_util.h"
#include "compiler/relax/op/op_families.h"

namespace kiln::relax {

using namespace ::kiln::ir;  // NOLINT

namespace {

enum class Result { kSameDType, kBool, kSameIntDType };

InferFn BinaryInfer(const std::string& op, Result result) {
  return [op, result](const ir::relax::Call& call) -> absl::StatusOr<Type> {
    Type ta = ArgType(call, 0), tb = ArgType(call, 1);
    absl::StatusOr<TensorInfo> a = GetTensorInfo(ta, op, "x1", /*allow_prim=*/true);
    if (!a.ok()) return a.status();
    absl::StatusOr<TensorInfo> b = GetTensorInfo(tb, op, "x2", /*allow_prim=*/true);
    if (!b.ok()) return b.status();
    DataType dtype = DataType::Void();
    // As in TVM: comparisons accept any two dtypes; arithmetic needs equal ones unless one side
    // is bool, and then takes the left operand's dtype.
    if (result != Result::kBool && !a->dtype.is_void() && !b->dtype.is_void()) {
      if (a->dtype != b->dtype && !a->dtype.is_bool() && !b->dtype.is_bool()) {
        return OpError(op, absl::StrCat("dtype mismatch: ", a->dtype.ToString(), " vs ", b->dtype.ToString()));
      }
      dtype = a->dtype;
    }
    if (result == Result::kSameIntDType && !dtype.is_void() && !dtype.is_int_or_bool()) {
      return OpError(op, "expects integer operands, got " + dtype.ToString());
    }
    if (result == Result::kBool) dtype = DataType::Bool();
    if (ta.as<PrimTypeNode>() && tb.as<PrimTypeNode>()) return Type(PrimType(dtype));
    absl::StatusOr<TensorInfo> out = BroadcastInfos(op, *a, *b);
    if (!out.ok()) return out.status();
    out->dtype = dtype;
    return MakeTensorType(*out);
  };
}

absl::StatusOr<Type> InferEwiseFma(const ir::relax::Call& call) {
  std::vector<TensorInfo> in;
  for (size_t i = 0; i < 3; ++i) {
    absl::StatusOr<TensorInfo> t = GetTensorInfo(ArgType(call, i), "ewise_fma", absl::StrCat("x", i + 1));
    if (!t.ok()) return t.status();
    in.push_back(*t);
  }
  absl::StatusOr<DataType> dtype = CommonDType("ewise_fma", in);
  if (!dtype.ok()) return dtype.status();
  TensorInfo out = in[0];
  out.dtype = *dtype;
  for (const TensorInfo& t : in) {
    if (t.ndim < 0) continue;
    if (out.ndim >= 0 && out.ndim != t.ndim) return OpError("ewise_fma", "the operands must have the same rank");
    if (out.ndim < 0) {
      out = t;
      out.dtype = *dtype;
    }
  }
  for (const TensorInfo& t : in) {
    if (!t.shape_known) continue;
    if (!out.shape_known) {
      out.shape = t.shape;
      out.shape_known = true;
      continue;
    }
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (ProveNotEqual(t.shape[d], out.shape[d])) {
        return OpError("ewise_fma", "the operands must have the same shape: " + ShapeToString(out.shape) + " vs " +
                                        ShapeToString(t.shape));
      }
    }
  }
  return MakeTensorType(out);
}

}  // namespace

void RegisterBinaryOps(std::vector<OpSchema>* ops) {
  const std::pair<const char*, Result> kOps[] = {
      {"add", Result::kSameDType},           {"subtract", Result::kSameDType},
      {"multiply", Result::kSameDType},      {"divide", Result::kSameDType},
      {"floor_divide", Result::kSameDType},  {"power", Result::kSameDType},
      {"maximum", Result::kSameDType},       {"minimum", Result::kSameDType},
      {"mod", Result::kSameDType},           {"floor_mod", Result::kSameDType},
      {"atan2", Result::kSameDType},         {"log_add_exp", Result::kSameDType},
      {"equal", Result::kBool},              {"not_equal", Result::kBool},
      {"less", Result::kBool},               {"less_equal", Result::kBool},
      {"greater", Result::kBool},            {"greater_equal", Result::kBool},
      {"logical_and", Result::kSameDType},   {"logical_or", Result::kSameDType},
      {"logical_xor", Result::kSameDType},   {"bitwise_and", Result::kSameIntDType},
      {"bitwise_or", Result::kSameIntDType}, {"bitwise_xor", Result::kSameIntDType},
      {"left_shift", Result::kSameIntDType}, {"right_shift", Result::kSameIntDType},
  };
  for (const auto& [name, result] : kOps) AddOp(ops, name, {"x1", "x2"}, {}, BinaryInfer(name, result));
  AddOp(ops, "ewise_fma", {"x1", "x2", "x3"}, {}, InferEwiseFma);
}

}  // namespace kiln::relax
