// Constructors for TIR intrinsic calls that check what the registry (op.h) knows: the op exists,
// the argument count fits, the arguments have the dtypes the op needs, and the call gets the dtype
// TVMScript would give it. The parser builds every T.<intrinsic>(...) through MakeCall, and passes
// use it to build well-typed calls.
#ifndef KILN_COMPILER_TIR_OP_BUILTIN_H_
#define KILN_COMPILER_TIR_OP_BUILTIN_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tir.h"
#include "compiler/tir/op/arith.h"
#include "compiler/tir/op/op.h"

namespace kiln::tir {

// Fields read by Call(Op("tirx.tvm_struct_get"), [handle, index, field]) in lowered packed
// entries (see runtime/kernel_abi.h). kArg* read args[index] of a KilnAny array; kTensor* read a
// DLTensor* (index 0). The numbers are part of the lowered-IR contract between the pipeline and
// the backends.
enum class StructField : int32_t {
  kArgTypeIndex = 0,   // int32
  kArgInt64 = 1,       // int64
  kArgFloat64 = 2,     // float64
  kArgHandle = 3,      // handle
  kTensorData = 10,    // handle
  kTensorDeviceType = 11,
  kTensorDeviceId = 12,
  kTensorNDim = 13,
  kTensorDTypeCode = 14,
  kTensorDTypeBits = 15,
  kTensorDTypeLanes = 16,
  kTensorShape = 17,       // handle to int64[ndim]
  kTensorStrides = 18,     // handle to int64[ndim], may be NULL
  kTensorByteOffset = 19,  // int64
};

// Builds T.<script_name>(args...). `explicit_dtype` is the dtype the script spells for ops whose
// dtype rule is kExplicit (T.call_extern("float32", ...), T.reinterpret("int32", x)); it is
// required for those and, for the others, must equal the inferred dtype if given.
// Python literals among `args` adopt the other operand's dtype where the op unifies its operands
// (T.pow(x, 2), T.if_then_else(c, x, 0)); elsewhere they take Python's default dtype.
// Errors are INVALID_ARGUMENT: "T.if_then_else expects 3 arguments, got 2",
// "T.exp expects a floating-point argument, got int32", "unknown TIR intrinsic T.foo".
absl::StatusOr<ir::PrimExpr> MakeCall(const std::string& script_name, const std::vector<Operand>& args,
                                      std::optional<ir::DataType> explicit_dtype = std::nullopt,
                                      ir::Span span = {});

// T.call_intrin(dtype, "tirx.op", args...): a call to a registered op by IR name, with the given
// dtype. Checks the op exists and the argument count.
absl::StatusOr<ir::PrimExpr> MakeIntrinCall(ir::DataType dtype, const std::string& op_name,
                                            const std::vector<ir::PrimExpr>& args, ir::Span span = {});

// Checks args.size() against the op's arity; the message names the op as "T.<script_name>".
absl::Status CheckArity(const IntrinsicInfo& info, size_t num_args, const std::string& script_name);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_OP_BUILTIN_H_
