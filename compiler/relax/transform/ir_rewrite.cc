#include "compiler/relax/transform/ir_rewrite.h"

#include <unordered_set>
#include <vector>

#include "compiler/ir/type_registry.h"

namespace kiln::relax::transform {
namespace {

using ir::Object;
using ir::ObjectRef;

// The reference children of `obj`: reflected ref fields, or the payload of a container.
template <typename F>
void ForEachChild(const Object* obj, F fn) {
  if (const auto* a = dynamic_cast<const ir::ArrayNode*>(obj)) {
    for (const ObjectRef& x : a->data) fn(x);
    return;
  }
  if (const auto* m = dynamic_cast<const ir::MapNode*>(obj)) {
    for (const auto& kv : m->data) {
      fn(kv.first);
      fn(kv.second);
    }
    return;
  }
  for (const ir::FieldInfo& f : ir::ListFields(obj)) {
    if (f.kind == ir::FieldKind::kRef) fn(*static_cast<const ObjectRef*>(f.addr));
  }
}

class Substituter {
 public:
  explicit Substituter(const SubstMap& map) : map_(map) {}

  ObjectRef Visit(const ObjectRef& ref) {
    if (!ref.defined()) return ref;
    auto hit = map_.find(ref.get());
    if (hit != map_.end()) return hit->second;
    auto done = memo_.find(ref.get());
    if (done != memo_.end()) return done->second;
    ObjectRef out = Rebuild(ref);
    memo_.emplace(ref.get(), out);
    return out;
  }

 private:
  ObjectRef Rebuild(const ObjectRef& ref) {
    const Object* obj = ref.get();
    if (const auto* a = dynamic_cast<const ir::ArrayNode*>(obj)) {
      std::vector<ObjectRef> data;
      bool changed = false;
      for (const ObjectRef& x : a->data) {
        data.push_back(Visit(x));
        changed = changed || !data.back().same_as(x);
      }
      if (!changed) return ref;
      auto n = ir::make_object<ir::ArrayNode>();
      n->data = std::move(data);
      return ObjectRef(ir::ObjectPtr<Object>(std::move(n)));
    }
    if (const auto* m = dynamic_cast<const ir::MapNode*>(obj)) {
      std::vector<std::pair<ObjectRef, ObjectRef>> data;
      bool changed = false;
      for (const auto& kv : m->data) {
        data.emplace_back(Visit(kv.first), Visit(kv.second));
        changed = changed || !data.back().first.same_as(kv.first) || !data.back().second.same_as(kv.second);
      }
      if (!changed) return ref;
      auto n = ir::make_object<ir::MapNode>();
      n->data = std::move(data);
      return ObjectRef(ir::ObjectPtr<Object>(std::move(n)));
    }
    if (dynamic_cast<const ir::StringNode*>(obj)) return ref;
    std::vector<ir::FieldInfo> fields = ir::ListFields(obj);
    std::vector<ObjectRef> values(fields.size());
    bool changed = false;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].kind != ir::FieldKind::kRef) continue;
      const ObjectRef& old = *static_cast<const ObjectRef*>(fields[i].addr);
      values[i] = Visit(old);
      changed = changed || !values[i].same_as(old);
    }
    if (!changed) return ref;
    ir::ObjectPtr<Object> copy = ir::TypeRegistry::Global().Find(obj->kind())->create();
    ir::CopyFields(*obj, copy.get());
    std::vector<ir::FieldInfo> to = ir::ListFields(copy.get());
    for (size_t i = 0; i < to.size(); ++i) {
      if (to[i].kind == ir::FieldKind::kRef) *static_cast<ObjectRef*>(to[i].addr) = values[i];
    }
    return ObjectRef(copy);
  }

  const SubstMap& map_;
  std::unordered_map<const Object*, ObjectRef> memo_;
};

}  // namespace

void WalkIR(const ObjectRef& root, const std::function<bool(const ObjectRef&)>& fn) {
  std::unordered_set<const Object*> seen;
  std::vector<ObjectRef> stack = {root};
  while (!stack.empty()) {
    ObjectRef cur = stack.back();
    stack.pop_back();
    if (!cur.defined() || !seen.insert(cur.get()).second) continue;
    if (!fn(cur)) continue;
    std::vector<ObjectRef> children;
    ForEachChild(cur.get(), [&](const ObjectRef& c) { children.push_back(c); });
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
}

ObjectRef SubstituteIR(const ObjectRef& root, const SubstMap& map) { return Substituter(map).Visit(root); }

}  // namespace kiln::relax::transform
