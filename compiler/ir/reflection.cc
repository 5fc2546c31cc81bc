// Field listing and generic copy.
#include "compiler/ir/reflection.h"

#include <cstring>

#include "compiler/ir/container.h"
#include "compiler/ir/span.h"

namespace kiln::ir {

std::vector<FieldInfo> ListFields(const Object* node) {
  FieldVisitor v;
  // VisitFields only records field addresses; it does not modify the node.
  const_cast<Object*>(node)->VisitFields(&v);
  return v.TakeFields();
}

void CopyFields(const Object& src, Object* dst) {
  std::vector<FieldInfo> from = ListFields(&src);
  std::vector<FieldInfo> to = ListFields(dst);
  for (size_t i = 0; i < from.size(); ++i) {
    const FieldInfo& f = from[i];
    void* d = to[i].addr;
    switch (f.kind) {
      case FieldKind::kBool: *static_cast<bool*>(d) = *static_cast<bool*>(f.addr); break;
      case FieldKind::kInt32: *static_cast<int32_t*>(d) = *static_cast<int32_t*>(f.addr); break;
      case FieldKind::kInt64: *static_cast<int64_t*>(d) = *static_cast<int64_t*>(f.addr); break;
      case FieldKind::kDouble: *static_cast<double*>(d) = *static_cast<double*>(f.addr); break;
      case FieldKind::kString: *static_cast<std::string*>(d) = *static_cast<std::string*>(f.addr); break;
      case FieldKind::kDType: *static_cast<DataType*>(d) = *static_cast<DataType*>(f.addr); break;
      case FieldKind::kSpan: *static_cast<Span*>(d) = *static_cast<Span*>(f.addr); break;
      case FieldKind::kRef: *static_cast<ObjectRef*>(d) = *static_cast<ObjectRef*>(f.addr); break;
    }
  }
  // Containers have no reflected fields; copy their payload directly.
  if (const auto* a = dynamic_cast<const ArrayNode*>(&src)) static_cast<ArrayNode*>(dst)->data = a->data;
  if (const auto* m = dynamic_cast<const MapNode*>(&src)) static_cast<MapNode*>(dst)->data = m->data;
  if (const auto* s = dynamic_cast<const StringNode*>(&src)) static_cast<StringNode*>(dst)->value = s->value;
}

}  // namespace kiln::ir
