// Distributed Relax types: DTensorType, placements and device meshes (see distributed.h).
#include "compiler/ir/distributed.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "compiler/ir/expr.h"

namespace kiln::ir {

DTensorType::DTensorType(TensorType tensor_ty, GlobalInfo device_mesh, std::string placement) {
  auto n = make_object<DTensorTypeNode>();
  n->tensor_ty = std::move(tensor_ty);
  n->device_mesh = std::move(device_mesh);
  n->placement = std::move(placement);
  data_ = ObjectPtr<Object>(std::move(n));
}

absl::StatusOr<std::vector<int>> ParsePlacement(const std::string& text) {
  std::vector<int> specs;
  auto bad = [&]() { return absl::InvalidArgumentError(absl::StrCat("invalid placement \"", text, "\"")); };
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ',' || c == ' ') {
      ++i;
    } else if (c == 'R') {
      specs.push_back(kReplica);
      ++i;
    } else if (c == 'S') {
      size_t open = i + 1;
      while (open < text.size() && text[open] == ' ') ++open;
      size_t close = text.find(']', open);
      if (open >= text.size() || text[open] != '[' || close == std::string::npos) return bad();
      std::string num = text.substr(open + 1, close - open - 1);
      if (num.empty()) return bad();
      for (char d : num) if (!std::isdigit(static_cast<unsigned char>(d))) return bad();
      if (num.size() > 6) return bad();
      specs.push_back(std::stoi(num));
      i = close + 1;
    } else {
      return bad();
    }
  }
  return specs;
}

std::string PlacementToString(const std::vector<int>& specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i) out += ", ";
    out += specs[i] == kReplica ? std::string("R") : absl::StrCat("S[", specs[i], "]");
  }
  return out;
}

namespace {
Array<IntImm> Ints(const std::vector<int64_t>& v) {
  Array<IntImm> a;
  for (int64_t x : v) a.push_back(IntImm(DataType::Int(64), x));
  return a;
}
int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}
}  // namespace

absl::StatusOr<GlobalInfo> MakeDeviceMesh(const std::vector<int64_t>& shape, const std::vector<int64_t>& device_ids) {
  for (int64_t d : shape) {
    if (d <= 0) return absl::InvalidArgumentError("mesh dims must be positive");
  }
  if (Product(shape) != static_cast<int64_t>(device_ids.size())) {
    return absl::InvalidArgumentError(absl::StrCat("the mesh has ", Product(shape), " devices but ",
                                                   device_ids.size(), " device ids are given"));
  }
  return GlobalInfo("device_mesh", {{String("shape"), Ints(shape)}, {String("device_ids"), Ints(device_ids)}});
}

absl::StatusOr<GlobalInfo> MakeDeviceMesh(const std::vector<int64_t>& shape, const Range& device_range) {
  const auto* lo = device_range->min.as<IntImmNode>();
  const auto* ext = device_range->extent.as<IntImmNode>();
  if (!lo || !ext || ext->value < 0 || ext->value > (1 << 20)) {
    return absl::InvalidArgumentError("the device range must have constant bounds");
  }
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < ext->value; ++i) ids.push_back(lo->value + i);
  absl::StatusOr<GlobalInfo> mesh = MakeDeviceMesh(shape, ids);
  if (!mesh.ok()) return mesh;
  mesh->CopyOnWrite()->attrs.Set(String("device_range"), device_range);
  return mesh;
}

std::vector<int64_t> DeviceMeshShape(const GlobalInfo& mesh) {
  std::vector<int64_t> shape;
  if (!mesh.defined() || mesh->kind != "device_mesh") return shape;
  if (const auto* a = mesh->attrs.Get(String("shape")).as<ArrayNode>()) {
    for (const ObjectRef& x : a->data) {
      if (const auto* i = x.as<IntImmNode>()) shape.push_back(i->value);
    }
  }
  return shape;
}

absl::Status CheckDTensorType(const TensorType& tensor_ty, const GlobalInfo& device_mesh,
                              const std::vector<int>& placement) {
  if (!device_mesh.defined() || device_mesh->kind != "device_mesh") {
    return absl::InvalidArgumentError("a distributed tensor needs a device mesh");
  }
  size_t mesh_ndim = DeviceMeshShape(device_mesh).size();
  if (placement.size() != mesh_ndim) {
    return absl::InvalidArgumentError(absl::StrCat("the placement \"", PlacementToString(placement),
                                                   "\" has ", placement.size(), " specs but the device mesh has ",
                                                   mesh_ndim, " dims"));
  }
  for (int axis : placement) {
    if (axis != kReplica && tensor_ty->ndim >= 0 && axis >= tensor_ty->ndim) {
      return absl::InvalidArgumentError(absl::StrCat("sharding axis ", axis,
                                                     " is not below the tensor's rank ", tensor_ty->ndim));
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::ir
