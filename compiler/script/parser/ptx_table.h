// The PTX instruction table behind `T.ptx.<family>.<modifiers>(operands...)`: for each family it
// lists the syntax lines (entries) kiln validates, each with its modifier slots (the legal tokens
// of each position, optional or required), its operand layout (direction, register type, state
// space, register-group length, sinkability) and the cross-slot rules of the PTX ISA (".sat only
// on mad.hi.s32", "ld.acquire requires a scope", ...). A call is resolved as TVM v0.26 resolves
// it: every modifier token narrows the family's entries to those with an open slot listing it,
// then the operands (arity, dtypes, lvalue destinations, addresses) pick the one entry that
// accepts the call. A program TVM refuses while tracing is refused here at `kiln check`.
//
// Families without a table here keep the family-only check (the op registry, tir/op/op.cc):
// their tokens are kept as written. The table is built once and immutable.
#ifndef KILN_COMPILER_SCRIPT_PARSER_PTX_TABLE_H_
#define KILN_COMPILER_SCRIPT_PARSER_PTX_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::script::parser {

// One operand as the call site wrote it, reduced to what the table checks.
struct PtxArg {
  enum class Form { kValue, kSink, kAddrOffset };  // an expression, T.ptx.SINK, T.ptx.addr(b, off)
  enum class Literal { kNone, kInt, kFloat, kBool };  // a bare Python literal names no dtype
  Form form = Form::kValue;
  Literal literal = Literal::kNone;
  bool pred_tag = false;    // written T.ptx.pred(x)
  bool lvalue = false;      // a buffer element or declared scalar (a writable register)
  bool const_int = false;   // an integer constant (literal or IntImm), for text immediates
  int64_t int_value = 0;
  std::string dtype;        // the value's dtype ("uint32", "handle", "bool"); T.ptx.addr: its base's
};

struct PtxError {
  std::string message;
  int operand = -1;  // the operand it is about, or -1 for the call
};

// Whether `family` (unescaped, e.g. "and", "multimem_ld_reduce") has a table here.
bool PtxFamilyHasTable(const std::string& family);

// Validates one call: the modifier tokens as written (empty strings, the printed form's omitted
// slots, are skipped) and the operands in PTX order (sunk lanes included, the guard excluded).
// nullopt when some entry of the family accepts it (or the family has no table).
std::optional<PtxError> CheckPtxCall(const std::string& family, const std::vector<std::string>& tokens,
                                     const std::vector<PtxArg>& args);

}  // namespace kiln::script::parser

#endif  // KILN_COMPILER_SCRIPT_PARSER_PTX_TABLE_H_
