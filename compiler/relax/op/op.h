// The Relax operator registry: for every operator in TVMScript's R.* namespace, its TVMScript
// spelling, positional arguments, keyword attributes (stored in relax::Call::attrs) and type
// inference. The parser, the printer, the verifier and legalization all read this one table.
#ifndef KILN_COMPILER_RELAX_OP_OP_H_
#define KILN_COMPILER_RELAX_OP_OP_H_

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"

namespace kiln::relax {

// A keyword attribute of an operator, e.g. axis=[1] or keepdims=False.
//
// Values in relax::Call::attrs are IR objects: ints are IntImm(int64), floats FloatImm(float64),
// bools IntImm(bool), strings String, int lists Array<IntImm(int64)>, float lists
// Array<FloatImm(float64)>, dtypes relax::DataTypeImm, PrimExpr lists Array<PrimExpr>, and None a
// null ref. kIntOrIntArray holds either an IntImm or an Array (split's indices_or_sections).
struct AttrSpec {
  enum class Kind {
    kInt, kIntArray, kOptionalIntArray, kFloat, kBool, kString, kDType, kPrimExprArray, kAny,
    kOptionalInt, kIntOrIntArray, kFloatArray, kOptionalFloat, kOptionalString,
  };
  std::string name;
  Kind kind;
  ir::ObjectRef default_value;  // null: required, or "None" for optional kinds (kOptional*, kAny)
  // None written for this attribute means its default (TVM's Python wrapper maps it, e.g.
  // R.cumsum(..., exclusive=None)).
  bool none_is_default = false;
};

struct OpSchema {
  std::string name;         // IR name: "relax.add", "relax.nn.conv2d"
  std::string script_name;  // TVMScript spelling without the "R." prefix: "add", "nn.conv2d"
  std::vector<std::string> args;  // positional (Expr) arguments, in order
  bool variadic = false;          // the last arg repeats (e.g. R.call_packed)
  std::vector<AttrSpec> attrs;    // keyword attributes, in printing order
  bool is_pure = true;
  // Positional arguments args[min_args..] may be omitted; -1 means all are required. For an
  // omitted one, NormalizeArgs appends arg_defaults[i - min_args] when it is defined (e.g. tril's
  // k = R.prim_value(0)) and otherwise leaves it (and those after it) out.
  int min_args = -1;
  std::vector<ir::Expr> arg_defaults;
  // Ops whose result type is given in Call::ty_args (call_tir, call_packed, ...): the keyword the
  // printer uses for it, "out_ty" or "ty_args"; empty for ordinary ops.
  std::string ty_args_keyword;
  // Optional rewrite after defaults are filled, mirroring TVM's Python wrappers (conv2d's
  // out_layout None -> data_layout, padding [p] -> [p, p, p, p], ...).
  std::function<void(ir::Map<ir::String, ir::ObjectRef>*)> finalize_attrs;
  // Optional rewrite of the positional arguments after defaults are filled, for defaults that
  // depend on other arguments (R.eye's m defaults to n).
  std::function<void(ir::Array<ir::Expr>*)> finalize_args;
  // Set only for script functions that are not operators of their own but build calls to other
  // operators, as TVM's Python wrappers do (R.linear is permute_dims + matmul [+ add]; R.nn.relu6
  // is clip; R.nn.attention with a bias is relax.nn.attention_bias). It receives a call holding
  // the normalized arguments and attributes of this schema and returns the call it stands for.
  // Such schemas are found by script name only; `name` and `infer` are unused.
  std::function<absl::StatusOr<ir::relax::Call>(const ir::relax::Call&, const ir::IRModule&)> expand;
  // Infers the result type of a call whose argument types (ExprNode::ty) are known. Returns
  // INVALID_ARGUMENT with a readable message on ill-typed calls (shape or dtype mismatch).
  std::function<absl::StatusOr<ir::Type>(const ir::relax::Call&)> infer;
  // The inference for a call with a DTensor argument (TVM's dist.FInferType); null when the
  // operator has none, and such calls are rejected.
  std::function<absl::StatusOr<ir::Type>(const ir::relax::Call&)> dist_infer;
};

class OpRegistry {
 public:
  // Built once, immutable afterwards; safe from any thread.
  static const OpRegistry& Global();
  const OpSchema* FindByName(const std::string& name) const;          // "relax.add"
  // The schema a script call R.<script>(...) is parsed with: a script function (`expand` set) when
  // one has that name, else the operator.
  const OpSchema* FindByScriptName(const std::string& script) const;  // "add", "nn.conv2d"
  // Operators only (never script functions).
  const std::vector<OpSchema>& ops() const { return ops_; }

 private:
  OpRegistry();
  std::vector<OpSchema> ops_;
  std::vector<OpSchema> script_functions_;
  std::unordered_map<std::string, size_t> script_function_by_name_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<std::string, size_t> by_script_name_;
};

// Infers the type of a Relax call (using the registry for Op callees, the callee's declared type
// for GlobalVar/Var callees with symbolic dims bound from the arguments, and ty_args for
// call_tir/call_dps_packed/call_packed and ExternFunc callees). The caller sets call->ty. `module`
// may be null (GlobalVar callees then use GlobalVar::ty). Error messages start with "R.<op>: ".
absl::StatusOr<ir::Type> InferCallType(const ir::relax::Call& call, const ir::IRModule& module);

// What the well-formed check asks of R.call_tir_inplace besides its type (TVM's FValidate): each
// output that overwrites an input (inplace_indices[i] >= 0) has that input's type. Not part of
// type inference, so that a module read with the well-formed check off may hold such a call.
absl::Status ValidateCallTirInplace(const ir::relax::Call& call);

// The type of any Relax expression: calls as above, If/SeqExpr/Tuple/TupleGetItem/ShapeExpr/
// PrimValue/Function/GlobalVar from their parts (vars and constants: their `ty`).
absl::StatusOr<ir::Type> InferExprType(const ir::Expr& expr, const ir::IRModule& module);

// The type of an expression without a module: its `ty` if set, else derived for leaves (ShapeExpr,
// PrimValue, Tuple, TupleGetItem, StringImm, DataTypeImm); null if unknown.
ir::Type ExprType(const ir::Expr& expr);

// Converts keyword arguments written in a script call to attribute values: fills defaults,
// converts literals to the IR value kinds above (IntImm of any width -> int64, an int for an int
// list -> [int], "float32" -> DataTypeImm, ...), rejects unknown or missing keywords. Positional
// attribute values (R.sum(x, [1])) are passed under the name schema.attrs[i].name. The result is in
// schema order. `given` values may be IntImm/FloatImm/String/tirx.StringImm/relax.StringImm/
// relax.DataTypeImm/Array/ShapeExpr/PrimValue or null (None).
absl::StatusOr<ir::Map<ir::String, ir::ObjectRef>> NormalizeAttrs(
    const OpSchema& schema, const std::vector<std::pair<std::string, ir::ObjectRef>>& given);

// Checks the positional argument count and appends defaults for omitted optional ones.
absl::StatusOr<ir::Array<ir::Expr>> NormalizeArgs(const OpSchema& schema, const ir::Array<ir::Expr>& given);

// Printing: TVM prints every attribute of an op call explicitly, defaults included, in schema
// order (R.sum(x, axis=[1], keepdims=False), R.nn.softmax(x, axis=-1), axes=None for None). This
// returns attrs in that order; attributes missing from `attrs` come out with their defaults.
std::vector<std::pair<std::string, ir::ObjectRef>> AttrsInPrintOrder(
    const OpSchema& schema, const ir::Map<ir::String, ir::ObjectRef>& attrs);

// Parser convenience: finds the op by script name, normalizes args and attrs, builds the Call,
// infers its type and sets call->ty. For a script function (OpSchema::expand) the result is the
// call it expands to. With infer=false an operator call is returned untyped (call->ty null) when
// its type inference fails, for the caller to type (TVM's parser typing a binding by its
// annotation); argument and attribute errors are still reported.
absl::StatusOr<ir::relax::Call> MakeOpCall(const std::string& script_name, const ir::Array<ir::Expr>& args,
                                           const std::vector<std::pair<std::string, ir::ObjectRef>>& attrs,
                                           const ir::Array<ir::Type>& ty_args, const ir::IRModule& module,
                                           ir::Span span = {}, bool infer = true);

// As MakeOpCall, for the operator with IR name `name` ("relax.matmul"); used by script functions.
absl::StatusOr<ir::relax::Call> MakeOpCallByName(const std::string& name, const ir::Array<ir::Expr>& args,
                                                 const std::vector<std::pair<std::string, ir::ObjectRef>>& attrs,
                                                 const ir::IRModule& module, ir::Span span = {});

// Whether a value of type `actual` may be bound to a variable annotated `annotated`. False only
// when they provably disagree (different kinds, known dtypes, known ranks, or constant dims);
// *why says how. Unknown or symbolic parts are accepted (checked at run time by match_cast).
bool TypesCompatible(const ir::Type& annotated, const ir::Type& actual, std::string* why);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_OP_OP_H_
