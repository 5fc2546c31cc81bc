// The kernel ABI's argument checks for one PrimFunc, as data. A packed entry (runtime/kernel_abi.h)
// is called across a library boundary with values the compiler never saw, so every argument is
// checked before the body runs. This analysis decides, once, which checks a function needs, in
// which order, which symbolic variables each argument defines, and the exact message of each
// failure. MakePackedAPI (compiler/tir/transform/make_packed_api.cc) emits the list as LetStmts
// and AssertStmts; the reference interpreter (compiler/tir/interp) evaluates it against the
// KilnAny arguments it is given. Both therefore reject a bad argument with the same message.
//
// The checks, in order (make_packed_api.cc explains the rules behind each):
//   kNumArgs                                    once
//   kTypeIndex (then the parameter is bound)    per parameter
//   kTensorNotNull, kNDim, kDType, kShape per dim, kCompactStrides or kStride per dim (ndim > 0),
//   kByteOffsetMultiple (then elem_offset bound) or kByteOffset, kDataNotNull, kDataAligned
//   (element size > 1), kDevice                 per buffer parameter, after all kTypeIndex checks
//   kShape/kStride constraints over a variable that a later parameter defines, after all of those
#ifndef KILN_COMPILER_TIR_ANALYSIS_ABI_CHECKS_H_
#define KILN_COMPILER_TIR_ANALYSIS_ABI_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

// How a parameter travels in its KilnAny (and what its kTypeIndex check accepts).
enum class AbiParamKind {
  kTensor,   // a buffer param: DLTensor* (kKilnDLTensorPtr or kKilnOpaquePtr)
  kPointer,  // a handle param: a pointer, a tensor or None (NULL)
  kBool,     // Bool or Int (!= 0)
  kInt,      // Int or Bool, cast to the param's dtype
  kFloat,    // Float, Int or Bool, cast to the param's dtype
};

struct AbiCheck {
  enum Kind {
    kNumArgs,             // num_args == value
    kTypeIndex,           // args[arg].type_index is one of type_indices; binds the param (param_kind)
    kTensorNotNull,       // the DLTensor* is not NULL
    kNDim,                // t->ndim == value
    kDType,               // t->dtype matches dtype (DTypeAccepted)
    kShape,               // t->shape[dim]: defines `bind`, or equals `expected`
    kCompactStrides,      // t->strides is NULL or row-major compact (dims of extent 1 exempt)
    kStride,              // t->strides[dim] (the compact stride when NULL): defines `bind` or equals `expected`
    kByteOffsetMultiple,  // t->byte_offset % value == 0; defines `bind` = t->byte_offset / value
    kByteOffset,          // t->byte_offset == expected (int64, in bytes)
    kDataNotNull,         // t->data != NULL unless some dim of t->shape is 0
    kDataAligned,         // t->data is a multiple of value bytes
    kDevice,              // t->device.device_type == value
  };
  Kind kind;
  int arg = -1;  // the parameter's index (every kind but kNumArgs)
  int dim = -1;  // kShape, kStride
  AbiParamKind param_kind = AbiParamKind::kTensor;  // kTypeIndex
  std::vector<int> type_indices;                     // kTypeIndex: accepted KilnTypeIndex values
  ir::DataType dtype;                                // kDType: the buffer's dtype
  int64_t value = 0;  // kNumArgs: count; kNDim: rank; kDevice: DLDeviceType; kByteOffsetMultiple,
                      // kDataAligned: element bytes
  // kShape, kStride, kByteOffsetMultiple: the variable the actual value defines (its first
  // occurrence; no check then). Otherwise kShape/kStride/kByteOffset compare with `expected`, an
  // expression over parameters and variables bound by earlier checks.
  ir::Var bind;
  ir::PrimExpr expected;
  std::string error_kind;  // "TypeError" or "ValueError"
  std::string message;     // "<symbol>: argument A.ndim has an unsatisfied constraint: 2 == A.ndim"
};

struct AbiCheckOptions {
  int device_type = 1;              // DLDeviceType every tensor argument must have (kDLCPU)
  std::string device_name = "cpu";  // for messages
};

// The checks of `f` called as the packed entry `symbol`. INVALID_ARGUMENT (naming `symbol`) when a
// parameter has a dtype the ABI cannot pass or a buffer declares strides for a different rank.
absl::StatusOr<std::vector<AbiCheck>> KernelAbiChecks(const ir::PrimFunc& f, const std::string& symbol,
                                                      const AbiCheckOptions& options = {});

// The kDType rule: code, bits and lanes equal; a bool buffer accepts uint1 and DLPack's kDLBool
// (code 6) with 8 bits.
bool DTypeAccepted(ir::DataType expected, int code, int bits, int lanes);

// DLPack 1.x's kDLBool type code (older dlpack.h lacks it).
inline constexpr int kDLBoolTypeCode = 6;

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_ANALYSIS_ABI_CHECKS_H_
