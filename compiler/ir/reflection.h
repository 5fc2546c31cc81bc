// Node reflection. Each node lists its fields once, in VisitFields():
//
//   void VisitFields(FieldVisitor* v) override {
//     v->Visit("loop_var", &loop_var, kFieldDef);
//     v->Visit("body", &body);
//   }
//
// FieldVisitor records (name, kind, address, flags, type check) for each field. Structural
// equality, structural hashing, serialization, JSON and cloning are written once over that list.
#ifndef KILN_COMPILER_IR_REFLECTION_H_
#define KILN_COMPILER_IR_REFLECTION_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "compiler/ir/container.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/object.h"
#include "compiler/ir/span.h"

namespace kiln::ir {

// Field flags.
enum FieldFlag : uint32_t {
  kFieldNone = 0,
  // A binding site: the variables reached through this field are defined here, so structural
  // equality maps them (alpha-equivalence) instead of comparing identity.
  kFieldDef = 1,
  // Not part of structural equality/hash (spans, inferred types); still serialized.
  kFieldIgnoreEq = 2,
  // A reference that may be null.
  kFieldOptional = 4,
};

enum class FieldKind : uint8_t { kBool, kInt32, kInt64, kDouble, kString, kDType, kSpan, kRef };

// Whether `obj` may be stored in a reference field of a given static type.
using RefAccepts = bool (*)(const Object* obj);

struct FieldInfo {
  const char* name;
  FieldKind kind;
  void* addr;
  uint32_t flags;
  RefAccepts accepts;     // kRef only
  int32_t enum_max = -1;  // for enum fields: the largest valid value (deserializers check it)
};

// The largest value of a reflected enum; specialized next to each enum's definition.
template <typename E>
struct EnumRange;

template <typename T, typename = void>
struct RefTraits {
  static bool Accepts(const Object* o) {
    return dynamic_cast<const typename T::ContainerType*>(o) != nullptr;
  }
};
template <>
struct RefTraits<ObjectRef> {
  static bool Accepts(const Object*) { return true; }
};
template <typename T>
struct RefTraits<Array<T>> {
  static bool Accepts(const Object* o) {
    const auto* a = dynamic_cast<const ArrayNode*>(o);
    if (!a) return false;
    for (const ObjectRef& x : a->data) {
      if (!x.defined() || !RefTraits<T>::Accepts(x.get())) return false;
    }
    return true;
  }
};
template <typename K, typename V>
struct RefTraits<Map<K, V>> {
  static bool Accepts(const Object* o) {
    const auto* m = dynamic_cast<const MapNode*>(o);
    if (!m) return false;
    for (const auto& kv : m->data) {
      if (!kv.first.defined() || !RefTraits<K>::Accepts(kv.first.get())) return false;
      if (kv.second.defined() && !RefTraits<V>::Accepts(kv.second.get())) return false;
    }
    return true;
  }
};

class FieldVisitor {
 public:
  // Room for the fields of the largest nodes, so that listing them does not regrow the vector.
  FieldVisitor() { fields_.reserve(16); }

  void Visit(const char* n, bool* v, uint32_t f = 0) { Add(n, FieldKind::kBool, v, f); }
  void Visit(const char* n, int32_t* v, uint32_t f = 0) { Add(n, FieldKind::kInt32, v, f); }
  void Visit(const char* n, int64_t* v, uint32_t f = 0) { Add(n, FieldKind::kInt64, v, f); }
  void Visit(const char* n, double* v, uint32_t f = 0) { Add(n, FieldKind::kDouble, v, f); }
  void Visit(const char* n, std::string* v, uint32_t f = 0) { Add(n, FieldKind::kString, v, f); }
  void Visit(const char* n, DataType* v, uint32_t f = 0) { Add(n, FieldKind::kDType, v, f); }
  void Visit(const char* n, Span* v, uint32_t f = 0) { Add(n, FieldKind::kSpan, v, f | kFieldIgnoreEq); }
  template <typename E, typename std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void Visit(const char* n, E* v, uint32_t f = 0) {
    static_assert(sizeof(E) == sizeof(int32_t), "reflected enums are int32_t");
    fields_.push_back({n, FieldKind::kInt32, v, f, nullptr, static_cast<int32_t>(EnumRange<E>::kMax)});
  }
  template <typename T, typename std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int> = 0>
  void Visit(const char* n, T* v, uint32_t f = 0) {
    static_assert(sizeof(T) == sizeof(ObjectRef), "typed refs add no state");
    fields_.push_back({n, FieldKind::kRef, static_cast<ObjectRef*>(v), f, &RefTraits<T>::Accepts});
  }

  const std::vector<FieldInfo>& fields() const { return fields_; }
  std::vector<FieldInfo> TakeFields() { return std::move(fields_); }

 private:
  void Add(const char* n, FieldKind k, void* addr, uint32_t f) { fields_.push_back({n, k, addr, f, nullptr}); }
  std::vector<FieldInfo> fields_;
};

// The fields of a node, in declaration order. Containers (Array/Map/String) have none: callers
// handle them directly.
std::vector<FieldInfo> ListFields(const Object* node);

// Copies every reflected field from `src` to `dst` (same type).
void CopyFields(const Object& src, Object* dst);

template <typename Node>
ObjectPtr<Node> CloneNode(const Node& n) {
  auto p = make_object<Node>();
  CopyFields(n, p.get());
  return p;
}

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_REFLECTION_H_
