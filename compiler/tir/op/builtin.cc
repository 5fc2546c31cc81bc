// Checked construction of intrinsic calls (see builtin.h).
#include "compiler/tir/op/builtin.h"

#include "absl/strings/str_cat.h"

namespace kiln::tir {

using ir::DataType;
using ir::PrimExpr;
using Rule = IntrinsicInfo::DTypeRule;

namespace {

std::string Plural(int n) { return n == 1 ? "argument" : "arguments"; }

absl::Status Invalid(const std::string& msg) { return absl::InvalidArgumentError(msg); }

// Ops whose first argument names the callee.
bool TakesCalleeName(const IntrinsicInfo& info) {
  return info.name == "tirx.call_extern" || info.name == "tirx.call_pure_extern" ||
         info.name == "tirx.tvm_call_packed" || info.name == "tirx.tvm_call_cpacked" ||
         info.name == "tirx.tvm_call_packed_lowered" || info.name == "tirx.tvm_call_cpacked_lowered";
}

}  // namespace

absl::Status CheckArity(const IntrinsicInfo& info, size_t num_args, const std::string& script_name) {
  int n = static_cast<int>(num_args);
  if (n >= info.min_args && (info.max_args < 0 || n <= info.max_args)) return absl::OkStatus();
  std::string expected;
  if (info.max_args < 0) {
    expected = absl::StrCat("at least ", info.min_args, " ", Plural(info.min_args));
  } else if (info.min_args == info.max_args) {
    expected = absl::StrCat(info.min_args, " ", Plural(info.min_args));
  } else {
    expected = absl::StrCat(info.min_args, " to ", info.max_args, " arguments");
  }
  return Invalid(absl::StrCat("T.", script_name, " expects ", expected, ", got ", n));
}

absl::StatusOr<PrimExpr> MakeCall(const std::string& script_name, const std::vector<Operand>& args,
                                  std::optional<DataType> explicit_dtype, ir::Span span) {
  const IntrinsicInfo* info = IntrinsicRegistry::Global().FindByScriptName(script_name);
  if (info == nullptr) return Invalid(absl::StrCat("unknown TIR intrinsic T.", script_name));
  const std::string name = "T." + script_name;
  absl::Status arity = CheckArity(*info, args.size(), script_name);
  if (!arity.ok()) return arity;

  std::vector<PrimExpr> exprs;
  exprs.reserve(args.size());
  for (const Operand& a : args) exprs.push_back(a.Materialize());

  if (info->name == "tirx.if_then_else") {
    // The condition must be bool; the branches are unified like binary operands.
    if (args[0].is_literal() && args[0].kind() != Operand::Kind::kFloat) {
      exprs[0] = ir::IntImm(DataType::Bool(), args[0].int_value() != 0, args[0].span());
    }
    if (!exprs[0].dtype().is_bool() || !exprs[0].dtype().is_scalar()) {
      return Invalid(absl::StrCat(name, " condition must be bool, got ", exprs[0].dtype().ToString()));
    }
    absl::Status st = MatchTypes(args[1], args[2], &exprs[1], &exprs[2]);
    if (!st.ok()) return Invalid(absl::StrCat(name, ": ", st.message()));
  } else if (info->match_binary_args) {
    absl::Status st = MatchTypes(args[0], args[1], &exprs[0], &exprs[1]);
    if (!st.ok()) return Invalid(absl::StrCat(name, ": ", st.message()));
  }

  if (info->float_only) {
    DataType t = exprs[0].dtype();
    if (!t.is_floating()) {
      return Invalid(absl::StrCat(name, " expects a floating-point argument, got ", t.ToString()));
    }
  }
  if (info->int_only) {
    for (size_t i = 0; i < exprs.size() && i < 2; ++i) {
      DataType t = exprs[i].dtype();
      if (!t.is_int_or_bool()) {
        return Invalid(absl::StrCat(name, " expects integer arguments, got ", t.ToString()));
      }
    }
  }
  if (info->name == "tirx.ldexp" && !exprs[1].dtype().is_int()) {
    return Invalid(absl::StrCat(name, " expects an integer exponent, got ", exprs[1].dtype().ToString()));
  }
  if (TakesCalleeName(*info) && exprs[0].as<ir::StringImmNode>() == nullptr) {
    return Invalid(absl::StrCat(name, " expects the callee's name (a string) as its first argument"));
  }

  DataType dtype;
  switch (info->dtype_rule) {
    case Rule::kSameAsFirstArg: dtype = exprs[0].dtype(); break;
    case Rule::kBool: dtype = DataType::Bool(); break;
    case Rule::kBoolLanesOfFirstArg: dtype = DataType::Bool(exprs[0].dtype().lanes()); break;
    case Rule::kSecondArg:
    case Rule::kValueArg: dtype = exprs[1].dtype(); break;
    case Rule::kUInt64: dtype = DataType::UInt(64); break;
    case Rule::kFloat32: dtype = DataType::Float(32); break;
    case Rule::kInt32: dtype = DataType::Int(32); break;
    case Rule::kUInt32: dtype = DataType::UInt(32); break;
    case Rule::kHandle: dtype = DataType::Handle(); break;
    case Rule::kVoid: dtype = DataType::Void(); break;
    case Rule::kNamedByArg1:
    case Rule::kIntOfArg0Bits: {
      ir::Array<ir::PrimExpr> list;
      for (const PrimExpr& e : exprs) list.push_back(e);
      std::optional<DataType> t = DTypeFromArgs(*info, list);
      if (!t) return Invalid(absl::StrCat(name, " cannot tell its dtype from its arguments"));
      dtype = *t;
      break;
    }
    case Rule::kExplicit:
      if (!explicit_dtype.has_value()) return Invalid(absl::StrCat(name, " requires a dtype"));
      dtype = *explicit_dtype;
      break;
  }
  if (info->dtype_rule != Rule::kExplicit && explicit_dtype.has_value() && *explicit_dtype != dtype) {
    return Invalid(absl::StrCat(name, " has dtype ", dtype.ToString(), ", not ",
                                explicit_dtype->ToString()));
  }
  return PrimExpr(ir::Call(dtype, ir::Op(info->name), ir::Array<PrimExpr>(exprs), span));
}

absl::StatusOr<PrimExpr> MakeIntrinCall(DataType dtype, const std::string& op_name,
                                        const std::vector<PrimExpr>& args, ir::Span span) {
  const IntrinsicInfo* info = IntrinsicRegistry::Global().FindByName(op_name);
  if (info == nullptr) return Invalid(absl::StrCat("unknown TIR intrinsic ", op_name));
  absl::Status arity = CheckArity(*info, args.size(), info->script_name);
  if (!arity.ok()) return arity;
  return PrimExpr(ir::Call(dtype, ir::Op(info->name), ir::Array<PrimExpr>(args), span));
}

}  // namespace kiln::tir
