// Distributed Relax (TVM's relax.distributed): a tensor spread over a device mesh.
//
// A device mesh is a module global info of kind "device_mesh" (I.module_global_infos({"mesh":
// [R.device_mesh((2,), I.Range(0, 2))]})) with attrs "shape" (Array<IntImm>), "device_ids"
// (Array<IntImm>) and, when written as a range, "device_range" (Range). A placement says, for each
// mesh dimension, whether the tensor is replicated ("R") or sharded along one of its axes
// ("S[k]"); it is kept as canonical text, TVM's printed form ("S[0], R").
#ifndef KILN_COMPILER_IR_DISTRIBUTED_H_
#define KILN_COMPILER_IR_DISTRIBUTED_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/module.h"
#include "compiler/ir/relax_type.h"

namespace kiln::ir {

// R.DTensor(shape, dtype, device_mesh, placement).
class DTensorTypeNode : public TypeNode {
 public:
  TensorType tensor_ty;
  GlobalInfo device_mesh;
  std::string placement;  // canonical: one spec per mesh dim, joined by ", "
  void VisitFields(FieldVisitor* v) override {
    TypeNode::VisitFields(v);
    v->Visit("tensor_ty", &tensor_ty);
    v->Visit("device_mesh", &device_mesh);
    v->Visit("placement", &placement);
  }
  KILN_DECLARE_NODE(DTensorTypeNode, "relax.DTensorType", kDTensorType)
};
class DTensorType : public Type {
  KILN_DEFINE_REF(DTensorType, Type, DTensorTypeNode)
  // `placement` must be canonical (see PlacementToString).
  DTensorType(TensorType tensor_ty, GlobalInfo device_mesh, std::string placement);
};

// A placement spec per mesh dim: the sharded tensor axis, or kReplica.
constexpr int kReplica = -1;

// Reads a placement as TVM's Placement.from_text does: "R", "S[k]" separated by optional commas
// and spaces ("S[0]R", "S[1], R").
absl::StatusOr<std::vector<int>> ParsePlacement(const std::string& text);
std::string PlacementToString(const std::vector<int>& specs);

// A device mesh global info. With a range, device_ids are its elements.
absl::StatusOr<GlobalInfo> MakeDeviceMesh(const std::vector<int64_t>& shape, const std::vector<int64_t>& device_ids);
absl::StatusOr<GlobalInfo> MakeDeviceMesh(const std::vector<int64_t>& shape, const Range& device_range);
// The mesh's shape (empty if `mesh` is not a device mesh).
std::vector<int64_t> DeviceMeshShape(const GlobalInfo& mesh);

// Checks a DTensor type as TVM's constructor does: one placement spec per mesh dim, sharded axes
// below the tensor's rank when it is known.
absl::Status CheckDTensorType(const TensorType& tensor_ty, const GlobalInfo& device_mesh,
                              const std::vector<int>& placement);

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_DISTRIBUTED_H_
