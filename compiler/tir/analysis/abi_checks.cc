#include "compiler/tir/analysis/abi_checks.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "runtime/kernel_abi.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT

// An expected value as messages show it: integers bare, whatever their dtype.
std::string Show(const PrimExpr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return absl::StrCat(imm->value);
  return arith::ExprToString(e);
}

// A scalar integer expression as int64 (constants folded), as the offset arithmetic needs it.
PrimExpr ToInt64(const PrimExpr& e) {
  if (e.dtype() == DataType::Int(64)) return e;
  if (const auto* imm = e.as<IntImmNode>()) return IntImm(DataType::Int(64), imm->value);
  return Cast(DataType::Int(64), e);
}

std::string DTypeCheckName(DataType t) { return t.is_bool() ? "bool" : t.ToString(); }

class Collector {
 public:
  explicit Collector(std::string symbol) : symbol_(std::move(symbol)) {}

  AbiCheck& Add(AbiCheck::Kind kind, int arg, const std::string& error_kind, const std::string& message) {
    AbiCheck c;
    c.kind = kind;
    c.arg = arg;
    c.error_kind = error_kind;
    c.message = absl::StrCat(symbol_, ": ", message);
    checks_.push_back(std::move(c));
    return checks_.back();
  }

  void Bind(const VarNode* v) { bound_.insert(v); }
  bool IsBound(const VarNode* v) const { return bound_.count(v) > 0; }

  // `field` (a buffer shape or stride) against the run-time value labelled e.g. "A.shape[0]": the
  // first occurrence of a variable defines it, anything else is checked.
  void BindOrCheck(AbiCheck::Kind kind, int arg, int dim, const PrimExpr& field, const std::string& label) {
    if (const auto* v = field.as<VarNode>(); v && !IsBound(v)) {
      AbiCheck& c = Add(kind, arg, "", "");
      c.message.clear();  // a definition cannot fail
      c.dim = dim;
      c.bind = GetRef<Var>(v);
      Bind(v);
      return;
    }
    AbiCheck& c = Add(kind, arg, "ValueError",
                      absl::StrCat("argument ", label, " has an unsatisfied constraint: ", Show(field), " == ", label));
    c.dim = dim;
    c.expected = field;
    // A constraint on a variable a later argument defines (x: (n * 32,), y: (n, 32)) waits until
    // every argument has been bound.
    if (!AllBound(field)) {
      deferred_.push_back(std::move(checks_.back()));
      checks_.pop_back();
    }
  }

  std::vector<AbiCheck> Take() {
    for (AbiCheck& c : deferred_) checks_.push_back(std::move(c));
    deferred_.clear();
    return std::move(checks_);
  }

 private:
  bool AllBound(const PrimExpr& e) const {
    struct Vars : StmtExprVisitor {
      std::vector<const VarNode*> seen;
      void VisitExpr_(const VarNode* op) override { seen.push_back(op); }
    } vars;
    vars.VisitExpr(e);
    return std::all_of(vars.seen.begin(), vars.seen.end(), [this](const VarNode* v) { return IsBound(v); });
  }

  std::string symbol_;
  std::vector<AbiCheck> checks_, deferred_;
  std::unordered_set<const VarNode*> bound_;
};

absl::Status AddBufferChecks(Collector* c, int arg, const Buffer& buf, const std::string& symbol,
                             const AbiCheckOptions& options) {
  const std::string& name = buf->name;
  int ndim = static_cast<int>(buf->shape.size());
  if (!buf->strides.empty() && static_cast<int>(buf->strides.size()) != ndim) {
    return absl::InvalidArgumentError(absl::StrCat(symbol, ": argument ", name, " declares ", buf->strides.size(),
                                                   " strides for ", ndim, " dimensions"));
  }
  c->Add(AbiCheck::kTensorNotNull, arg, "TypeError", absl::StrCat("argument ", name, " is NULL, expected a tensor"));
  c->Add(AbiCheck::kNDim, arg, "ValueError",
         absl::StrCat("argument ", name, ".ndim has an unsatisfied constraint: ", ndim, " == ", name, ".ndim"))
      .value = ndim;
  c->Add(AbiCheck::kDType, arg, "TypeError",
         absl::StrCat("argument ", name, ".dtype has an unsatisfied constraint: ", name, ".dtype == ",
                      DTypeCheckName(buf->dtype)))
      .dtype = buf->dtype;
  for (int k = 0; k < ndim; ++k) {
    c->BindOrCheck(AbiCheck::kShape, arg, k, buf->shape[k], absl::StrCat(name, ".shape[", k, "]"));
  }
  if (ndim > 0 && buf->strides.empty()) {
    c->Add(AbiCheck::kCompactStrides, arg, "ValueError",
           absl::StrCat("argument ", name, ".strides has an unsatisfied constraint: ", name,
                        " must be compact (row-major contiguous)"));
  }
  for (int k = 0; k < static_cast<int>(buf->strides.size()); ++k) {
    c->BindOrCheck(AbiCheck::kStride, arg, k, buf->strides[k], absl::StrCat(name, ".strides[", k, "]"));
  }

  int64_t elem_bytes = std::max<int64_t>(1, buf->dtype.bytes());
  std::string label = name + ".byte_offset";
  const PrimExpr& off = buf->elem_offset;
  if (const auto* v = off.defined() ? off.as<VarNode>() : nullptr; v && !c->IsBound(v)) {
    AbiCheck& m = c->Add(AbiCheck::kByteOffsetMultiple, arg, "ValueError",
                         absl::StrCat("argument ", label, " has an unsatisfied constraint: ", label, " % ", elem_bytes,
                                      " == 0"));
    m.value = elem_bytes;
    m.bind = GetRef<Var>(v);
    c->Bind(v);
  } else {
    arith::Analyzer analyzer;
    PrimExpr expected = off.defined()
                            ? analyzer.Simplify(Mul(ToInt64(off), IntImm(DataType::Int(64), elem_bytes)))
                            : IntImm(DataType::Int(64), 0);
    c->Add(AbiCheck::kByteOffset, arg, "ValueError",
           absl::StrCat("argument ", label, " has an unsatisfied constraint: ", Show(expected), " == ", label))
        .expected = expected;
  }
  c->Add(AbiCheck::kDataNotNull, arg, "ValueError", absl::StrCat("argument ", name, ".data is NULL"));
  if (elem_bytes > 1) {
    c->Add(AbiCheck::kDataAligned, arg, "ValueError",
           absl::StrCat("argument ", name, ".data is misaligned: expected an address that is a multiple of ",
                        elem_bytes, " bytes"))
        .value = elem_bytes;
  }
  c->Add(AbiCheck::kDevice, arg, "ValueError",
         absl::StrCat("argument ", name, ".device_type has an unsatisfied constraint: ", options.device_type, " (",
                      options.device_name, ") == ", name, ".device_type"))
      .value = options.device_type;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<AbiCheck>> KernelAbiChecks(const PrimFunc& f, const std::string& symbol,
                                                      const AbiCheckOptions& options) {
  Collector c(symbol);
  int n = static_cast<int>(f->params.size());
  std::vector<std::string> names;
  for (const Var& p : f->params) {
    Buffer buf = f->buffer_map.Get(p);
    names.push_back(buf.defined() ? buf->name : p->name);
  }
  c.Add(AbiCheck::kNumArgs, -1, "TypeError",
        absl::StrCat("expected ", n, n == 1 ? " argument" : " arguments", " (", absl::StrJoin(names, ", "), ")"))
      .value = n;

  for (int i = 0; i < n; ++i) {
    const Var& p = f->params[i];
    DataType t = p.dtype();
    std::string arg = absl::StrCat("argument ", names[i], " (#", i, ")");
    AbiParamKind kind;
    std::vector<int> accepted;
    std::string message;
    if (f->buffer_map.Get(p).defined()) {
      kind = AbiParamKind::kTensor;
      accepted = {kKilnDLTensorPtr, kKilnOpaquePtr};
      message = arg + " must be a tensor (DLTensor*)";
    } else if (t.is_handle()) {
      kind = AbiParamKind::kPointer;
      accepted = {kKilnOpaquePtr, kKilnDLTensorPtr, kKilnNone};
      message = arg + " must be a pointer";
    } else if (t.is_bool() && t.is_scalar()) {
      kind = AbiParamKind::kBool;
      accepted = {kKilnBool, kKilnInt};
      message = arg + " must be a bool";
    } else if (t.is_integer() && t.is_scalar()) {
      kind = AbiParamKind::kInt;
      accepted = {kKilnInt, kKilnBool};
      message = absl::StrCat(arg, " must be an integer (", t.ToString(), ")");
    } else if (t.is_floating() && t.is_scalar()) {
      kind = AbiParamKind::kFloat;
      accepted = {kKilnFloat, kKilnInt, kKilnBool};
      message = absl::StrCat(arg, " must be a float (", t.ToString(), ")");
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(symbol, ": parameter ", p->name, " has dtype ", t.ToString(), ", which the kernel ABI cannot pass"));
    }
    AbiCheck& check = c.Add(AbiCheck::kTypeIndex, i, "TypeError", message);
    check.param_kind = kind;
    check.type_indices = std::move(accepted);
    c.Bind(p.get());
  }
  for (int i = 0; i < n; ++i) {
    Buffer buf = f->buffer_map.Get(f->params[i]);
    if (!buf.defined()) continue;
    absl::Status st = AddBufferChecks(&c, i, buf, symbol, options);
    if (!st.ok()) return st;
  }
  return c.Take();
}

bool DTypeAccepted(DataType expected, int code, int bits, int lanes) {
  if (lanes != expected.lanes()) return false;
  if (expected.is_bool()) return (code == DataType::kUInt && bits == 1) || (code == kDLBoolTypeCode && bits == 8);
  return code == expected.code() && bits == expected.bits();
}

}  // namespace kiln::tir
