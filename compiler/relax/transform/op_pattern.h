// TVM's operator pattern kinds, the vocabulary shared by AnnotateTIROpPattern (which computes them
// for PrimFuncs) and FuseOps (which fuses call_tir bindings by them). The numbering is TVM's, since
// the value is stored in the "op_pattern" attribute that printed modules carry.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_OP_PATTERN_H_
#define KILN_COMPILER_RELAX_TRANSFORM_OP_PATTERN_H_

#include "compiler/ir/ir.h"

namespace kiln::relax::transform {

enum OpPatternKind : int {
  kElemWise = 0,         // out[i] = f(in[i])
  kBroadcast = 1,        // out[i, j] = f(in[i])
  kInjective = 2,        // each output element from some input elements (transpose, reshape)
  kCommReduce = 3,       // a commutative reduction (sum, max)
  kOutEWiseFusable = 4,  // matmul, conv: elementwise consumers of its output may fuse into it
  kTuple = 7,            // a tuple node
  kOpaque = 8,           // never fused
};

inline constexpr char kOpPatternAttr[] = "op_pattern";
// The "Primitive" attribute FuseOps puts on the functions it creates (an int 1).
inline constexpr char kPrimitiveAttr[] = "Primitive";

// The kind of a PrimFunc computed from its body (annotate_tir_op_pattern.cc); ignores any
// existing op_pattern attribute.
OpPatternKind AnalyzeOpPatternKind(const ir::PrimFunc& func);

// The attribute value for `kind`: an int32 IntImm, as the parser reads `"op_pattern": 0`.
inline ir::IntImm MakeOpPatternAttr(OpPatternKind kind) {
  return ir::IntImm(ir::DataType::Int(32), static_cast<int64_t>(kind));
}

// A function's op_pattern attribute (an IntImm of any width), or kOpaque when it has none.
inline OpPatternKind GetOpPattern(const ir::BaseFunc& func) {
  const auto* imm = func->attrs.Get(ir::String(kOpPatternAttr)).as<ir::IntImmNode>();
  return imm != nullptr ? static_cast<OpPatternKind>(imm->value) : kOpaque;
}

}  // namespace kiln::relax::transform

#endif  // KILN_COMPILER_RELAX_TRANSFORM_OP_PATTERN_H_
