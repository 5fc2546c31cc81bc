// The TIR intrinsic registry: every builtin and math op a TIR Call may name (T.exp, T.if_then_else,
// T.call_extern, T.tvm_storage_sync, ...), with its TVMScript spelling, arity and how its result
// dtype follows from its arguments. Used by the parser, printer, verifier, interpreter and codegen.
//
// Only names that become a Call to an Op("tirx.<name>") are registered. TVMScript spells several
// other things as T.<name>(...) that the parser turns into dedicated nodes instead, so they are NOT
// here: T.max/T.min (Max/Min), T.floordiv/T.floormod (FloorDiv/FloorMod), T.truncdiv/T.truncmod
// (Div/Mod), T.Select, T.Cast, T.Let, T.Ramp, T.Broadcast, T.Shuffle, T.abs (fabs call for floats,
// a Select for ints), T.call_intrin(dtype, "tirx.op", ...) (a Call to the named op, which must be
// registered here), and the typed literals T.int32(...), T.float32(...).
//
// Some ops print under a name that differs from their IR name: Op("tirx.tvm_call_packed") is
// spelled T.call_packed. `aliases` lists further accepted spellings (the IR-name spelling).
#ifndef KILN_COMPILER_TIR_OP_OP_H_
#define KILN_COMPILER_TIR_OP_OP_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/tir.h"

namespace kiln::tir {

// What evaluating the call may do; passes use it to decide what they may reorder or drop.
enum class CallEffect {
  kPure,           // no side effect, result depends only on args
  kReadState,      // reads state (e.g. tvm_struct_get)
  kUpdateState,    // writes state
  kOpaque,         // anything (external calls, synchronisation)
  kControlJump,    // changes control flow (ret)
  kExprAnnotation, // a hint on its argument (likely, assume)
  kSpecialCallArg, // only meaningful as an argument of another call (tvm_access_ptr, type_annotation)
};

struct IntrinsicInfo {
  std::string name;         // IR name: "tirx.exp"
  std::string script_name;  // "exp" (spelled T.exp)
  int min_args = 0;
  int max_args = 0;         // -1: variadic
  enum class DTypeRule {
    kSameAsFirstArg,   // math ops: result dtype = args[0].dtype
    kBool,             // predicates (isnan, ...)
    kExplicit,         // the dtype is given in the script (T.call_extern("float32", ...))
    kSecondArg,        // if_then_else: dtype of the true branch
    kInt32,
    kHandle,
    kVoid,
    kUInt32,           // tvm_warp_activemask
    kBoolLanesOfFirstArg,  // isnan/isinf/isfinite: bool with the lanes of args[0]
    kValueArg,         // CUDA warp shuffles (mask, value, lane, width): args[1]'s dtype, not unified
    kUInt64,           // cuda.make_float2: two float32 packed in one register
    kFloat32,          // cuda.uint_as_float, cuda.fdividef
    kNamedByArg1,      // the dtype named by the string args[1] (print_buffer, cuda.ldg); void when
                       // args[1] is not a string (cuda.ldg's vector form stores through pointers)
    kIntOfArg0Bits,    // int<args[0]>: cuda.mov_sreg(32, "clusterid.x") is an int32
  } dtype_rule = DTypeRule::kSameAsFirstArg;
  CallEffect effect = CallEffect::kPure;
  bool float_only = false;  // exp, log, sqrt, ... require a floating dtype
  bool int_only = false;    // bitwise ops, shifts, popcount, clz require an integer (or bool) dtype
  // The first two arguments are unified with the binary-operator conversion rules before the call
  // is built (pow, atan2, bitwise_and, shift_left, ...), as TVM does.
  bool match_binary_args = false;
  std::vector<std::string> aliases;  // other accepted script spellings
};

// The result dtype of a call under the rules that read it off the arguments (kNamedByArg1,
// kIntOfArg0Bits); nullopt when the arguments do not say (a missing or malformed operand).
std::optional<ir::DataType> DTypeFromArgs(const IntrinsicInfo& info, const ir::Array<ir::PrimExpr>& args);

class IntrinsicRegistry {
 public:
  // Built once on first use, immutable afterwards; safe from any thread.
  static const IntrinsicRegistry& Global();
  const IntrinsicInfo* FindByName(const std::string& name) const;
  // Looks up script_name and aliases ("call_packed", "tvm_call_packed").
  const IntrinsicInfo* FindByScriptName(const std::string& script) const;
  const std::vector<IntrinsicInfo>& all() const { return ops_; }

 private:
  IntrinsicRegistry();
  std::vector<IntrinsicInfo> ops_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<std::string, size_t> by_script_;
};

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_OP_OP_H_
