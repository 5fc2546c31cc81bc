// The registry of every node type (TIR and Relax): type key -> kind and default constructor, for
// deserialization and for tests that enumerate the node types. It lives in the full IR target
// (//compiler/ir), not in //compiler/ir:tir, because it lists the Relax nodes too.
#ifndef KILN_COMPILER_IR_TYPE_REGISTRY_H_
#define KILN_COMPILER_IR_TYPE_REGISTRY_H_

#include <string>
#include <vector>

#include "compiler/ir/object.h"

namespace kiln::ir {

// Registry of node types: type key -> kind and default constructor. Built once on first use from the
// explicit list in TypeRegistry::TypeRegistry (type_registry.cc), immutable afterwards (safe to read from
// any thread).
class TypeRegistry {
 public:
  struct Entry {
    const char* type_key;
    NodeKind kind;
    ObjectPtr<Object> (*create)();
    // IsBindingKind(kind): equality maps the node at its binding site.
    bool is_binding;
  };
  static const TypeRegistry& Global();
  // nullptr if unknown.
  const Entry* Find(const std::string& type_key) const;
  const Entry* Find(NodeKind kind) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  TypeRegistry();
  std::vector<Entry> entries_;
  std::vector<int> by_kind_;  // NodeKind -> index into entries_, -1 if none
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_TYPE_REGISTRY_H_
