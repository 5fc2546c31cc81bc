// Internal to the Relax op registry: each operator family (binary.cc, unary.cc, ...) appends its
// schemas through one Register*Ops function, using the small builders below for attribute specs.
#ifndef KILN_COMPILER_RELAX_OP_OP_FAMILIES_H_
#define KILN_COMPILER_RELAX_OP_OP_FAMILIES_H_

#include <string>
#include <vector>

#include "compiler/relax/op/op.h"

namespace kiln::relax {

using InferFn = std::function<absl::StatusOr<ir::Type>(const ir::relax::Call&)>;

// Appends a schema named "relax.<script_name>" and returns it for further settings (the reference
// is valid until the next append).
OpSchema& AddOp(std::vector<OpSchema>* ops, const std::string& script_name, std::vector<std::string> args,
                std::vector<AttrSpec> attrs, InferFn infer);

// Attribute spec builders (the default is converted to the IR value kind).
AttrSpec IntAttrSpec(const std::string& name, int64_t dflt);
AttrSpec RequiredIntAttrSpec(const std::string& name);
AttrSpec OptionalIntAttrSpec(const std::string& name);
AttrSpec IntArrayAttrSpec(const std::string& name, const std::vector<int64_t>& dflt);
AttrSpec RequiredIntArrayAttrSpec(const std::string& name);
AttrSpec OptionalIntArrayAttrSpec(const std::string& name);
AttrSpec FloatAttrSpec(const std::string& name, double dflt);
AttrSpec OptionalFloatAttrSpec(const std::string& name);
AttrSpec FloatArrayAttrSpec(const std::string& name, const std::vector<double>& dflt);
AttrSpec BoolAttrSpec(const std::string& name, bool dflt);
AttrSpec StringAttrSpec(const std::string& name, const std::string& dflt);
AttrSpec OptionalStringAttrSpec(const std::string& name);
AttrSpec DTypeAttrSpec(const std::string& name, ir::DataType dflt);
AttrSpec RequiredDTypeAttrSpec(const std::string& name);
AttrSpec AnyAttrSpec(const std::string& name);

void RegisterBinaryOps(std::vector<OpSchema>* ops);
void RegisterUnaryOps(std::vector<OpSchema>* ops);
void RegisterReduceOps(std::vector<OpSchema>* ops);
void RegisterLinalgOps(std::vector<OpSchema>* ops);
void RegisterManipulateOps(std::vector<OpSchema>* ops);
void RegisterIndexOps(std::vector<OpSchema>* ops);
void RegisterCreateOps(std::vector<OpSchema>* ops);
void RegisterNNOps(std::vector<OpSchema>* ops);
void RegisterBuiltinOps(std::vector<OpSchema>* ops);
void RegisterCallOps(std::vector<OpSchema>* ops);
void RegisterGradOps(std::vector<OpSchema>* ops);
void RegisterDistributedOps(std::vector<OpSchema>* ops);
void RegisterVisionOps(std::vector<OpSchema>* ops);
// Sets OpSchema::dist_infer on the operators TVM gives distributed inference (after all families).
void AddDistributedInference(std::vector<OpSchema>* ops);

}  // namespace kiln::relax

#endif  // KILN_COMPILER_RELAX_OP_OP_FAMILIES_H_
