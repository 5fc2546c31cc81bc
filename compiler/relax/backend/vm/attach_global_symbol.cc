#include "compiler/relax/backend/vm/attach_global_symbol.h"

#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"

namespace kiln::relax::backend {
namespace {

using namespace ::kiln::ir;  // NOLINT

// The names of the GlobalVars reachable from `root` through reflected fields (each node once).
void CollectGlobalVars(const ObjectRef& root, std::set<std::string>* names) {
  std::unordered_set<const Object*> seen;
  std::vector<const Object*> stack = {root.get()};
  while (!stack.empty()) {
    const Object* n = stack.back();
    stack.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    if (const auto* gv = dynamic_cast<const GlobalVarNode*>(n)) {
      names->insert(gv->name);
      continue;
    }
    if (const auto* a = dynamic_cast<const ArrayNode*>(n)) {
      for (const ObjectRef& x : a->data) stack.push_back(x.get());
      continue;
    }
    if (const auto* m = dynamic_cast<const MapNode*>(n)) {
      for (const auto& [k, v] : m->data) {
        stack.push_back(k.get());
        stack.push_back(v.get());
      }
      continue;
    }
    for (const FieldInfo& f : ListFields(n)) {
      if (f.kind == FieldKind::kRef) stack.push_back(static_cast<const ObjectRef*>(f.addr)->get());
    }
  }
}

}  // namespace

absl::StatusOr<IRModule> AttachGlobalSymbol(const IRModule& module) {
  std::set<std::string> referenced;
  for (const auto& [gv, func] : module.Functions()) {
    if (const auto* f = func.as<ir::relax::FunctionNode>()) CollectGlobalVars(f->body, &referenced);
  }
  IRModule out = module;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<PrimFuncNode>();
    if (pf == nullptr || !referenced.count(gv->name) || !pf->GetGlobalSymbol().empty()) continue;
    PrimFunc named = GetRef<PrimFunc>(pf);
    named.CopyOnWrite()->attrs.Set(String("global_symbol"), String(gv->name));
    out.Add(gv, named);
  }
  return out;
}

}  // namespace kiln::relax::backend
