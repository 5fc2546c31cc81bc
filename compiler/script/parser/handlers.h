// Internal to the TVMScript parser: the handlers of `T.*` and `R.*` calls and the tables that
// dispatch to them. Parser::CallT and Parser::CallR look a call's name up in a table built once on
// first use (a function-local static, immutable afterwards, so lookups need no lock); each family of
// functions lives in its own file and adds its handlers through one Add...Calls function:
//
//   T.*: parse_tir_dtype.cc (dtype constructors, handles), parse_tir_buffer.cc (buffers),
//        parse_tir_loops.cc (loop iterators), parse_tir_sblock.cc (axes, reads/writes, block
//        attributes), parse_tir_stmt_calls.cc (statements spelled as calls), parse_tir_expr.cc
//        (expressions and node constructors), parse_tir_intrin.cc (the intrinsic registry, the
//        fallback for every other name), parse_tile.cc (the TIRx tile/device DSL),
//        parse_tile_prims.cc (TIRx tile primitives, T.tile.memset(...)),
//        parse_compute.cc (T.compute, TE-style loop nests), parse_tir_device_intrin.cc (device
//        intrinsics whose script form takes keywords: T.cuda.ldg, T.cuda.func_call, ...).
//   R.*: parse_relax_types.cc (types), parse_relax_dist.cc (distributed Relax),
//        parse_relax_values.cc (function-level statements and leaf values), parse_relax_ops.cc
//        (the operator registry, the fallback for every other name).
//
// This mirrors TVM's parser, which resolves `T.<name>` to one builder function per name.
#ifndef KILN_COMPILER_SCRIPT_PARSER_HANDLERS_H_
#define KILN_COMPILER_SCRIPT_PARSER_HANDLERS_H_

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/script/parser/parser_impl.h"
#include "compiler/tir/op/arith.h"

namespace kiln::script::parser {

// Keyword argument `name`, or nullptr.
inline const Value* Kwarg(const CallArgs& a, const std::string& name) {
  for (const auto& [k, v] : a.kwargs) if (k == name) return &v;
  return nullptr;
}

// Argument `i` (positional) or keyword `name`, or nullptr.
inline const Value* Arg(const CallArgs& a, size_t i, const std::string& name) {
  if (i < a.args.size()) return &a.args[i];
  return Kwarg(a, name);
}

// Where to report an error about `v`: its own position when it has one.
inline ir::Span SpanOr(const Value& v, const ir::Span& fallback) { return v.span.defined() ? v.span : fallback; }

// ------------------------------------------------------------------ T.*

// One `T.<name>(...)` call being dispatched, with the checks and conversions its handler uses.
struct TirCall {
  Parser& p;
  const std::string& name;     // dtype aliases spelled out (CanonicalDTypeName)
  const std::string& name_in;  // as written
  CallArgs& a;
  const ir::Span& span;        // the whole call

  // Fails unless there are lo..hi positional arguments.
  void Need(size_t lo, size_t hi) const;
  ir::PrimExpr Prim(size_t i) const;  // positional argument i as an expression
  // Positional argument i as an operand: a Python literal stays a literal, so that it takes the
  // other operand's dtype as in TVM's operators.
  tir::Operand Operand(size_t i) const;
  ir::PrimExpr OkPrim(absl::StatusOr<ir::PrimExpr> r) const;  // the expression, or fails
  Value Ok(absl::StatusOr<ir::PrimExpr> r) const;
  // A call's result dtype; "" is void, as TVM's DataType("") is (T.call_extern(..., dtype="")).
  ir::DataType CallDType(const Value& v) const;
  // The name for a new variable: the assignment target, or "v".
  std::string FreshName() const;
  // Statement-like calls add to the body under construction, which exists only inside a
  // T.prim_func (not at module or class level, nor in a Relax function).
  void NeedBody() const;
  // The enclosing T.sblock's frame, for the calls that only make sense inside one.
  builder::BlockData* Block() const;
  // T.<name>({key: value, ...}): the one dict argument's entries, added to `into`.
  void AddAttrs(ir::Map<ir::String, ir::ObjectRef>* into) const;
};

// A handler gets the parser, the call's arguments (which it may rewrite before falling back to
// another handler) and the call itself.
using TirHandler = Value (*)(Parser& p, CallArgs& a, const TirCall& c);

struct TirCallTable {
  std::unordered_map<std::string, TirHandler> by_name;
  std::vector<std::pair<std::string, TirHandler>> by_prefix;  // e.g. "axis." for T.axis.*
};

void AddTirDTypeCalls(TirCallTable* t);
void AddTirBufferCalls(TirCallTable* t);
void AddTirLoopCalls(TirCallTable* t);
void AddTirSBlockCalls(TirCallTable* t);
void AddTirStmtCalls(TirCallTable* t);
void AddTirExprCalls(TirCallTable* t);
void AddTirIntrinsicCalls(TirCallTable* t);
void AddTirTileCalls(TirCallTable* t);
void AddTirTilePrimitiveCalls(TirCallTable* t);  // parse_tile_prims.cc: T.tile.memset(...), ...
void AddTirComputeCalls(TirCallTable* t);  // parse_compute.cc: T.compute
void AddTirDeviceIntrinsicCalls(TirCallTable* t);  // parse_tir_device_intrin.cc: T.cuda.ldg, ...

// A value as an operand of a TIR operator: a Python literal stays a literal (it takes the other
// operand's dtype, as in TVM's operators); anything else is converted to an expression.
tir::Operand ToOperand(const Parser& p, const Value& v, const ir::Span& span);

// Handlers that the dispatch, or a handler declining a form, falls back to.
Value CallTirDType(Parser& p, CallArgs& a, const TirCall& c);      // T.int32(), T.float16(x), ...: any dtype name
Value CallTirIntrinsic(Parser& p, CallArgs& a, const TirCall& c);  // T.exp(x), T.call_extern(...): the intrinsic registry
Value CallTirAttr(Parser& p, CallArgs& a, const TirCall& c);       // T.attr(node, key, value)

// ------------------------------------------------------------------ R.*

// One `R.<name>(...)` call being dispatched.
struct RelaxCall {
  Parser& p;
  std::string name;  // a handler may rename it for the operator it calls (R.dist.call_tir)
  CallArgs& a;
  const ir::Span& span;  // the whole call
  bool defer;            // infer the result type later (Parser::defer_inference_)

  // ndim=: a rank, or -1 for unknown (TVM rejects anything else).
  int NDim(const Value* nd) const;
  // A new argument list for the call, spanning the same text.
  CallArgs Rebuilt() const;
};

using RelaxHandler = Value (*)(Parser& p, CallArgs& a, RelaxCall& c);
using RelaxCallTable = std::unordered_map<std::string, RelaxHandler>;

void AddRelaxTypeCalls(RelaxCallTable* t);
void AddRelaxDistCalls(RelaxCallTable* t);
void AddRelaxValueCalls(RelaxCallTable* t);
void AddRelaxOpCalls(RelaxCallTable* t);

// R.<op>(...) for an operator of the Relax op registry: the fallback for every other name.
Value CallRelaxOp(Parser& p, CallArgs& a, RelaxCall& c);

}  // namespace kiln::script::parser

#endif  // KILN_COMPILER_SCRIPT_PARSER_HANDLERS_H_
