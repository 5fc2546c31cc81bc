// IRModule: named functions (PrimFunc, Relax Function, ExternFunc) plus module attributes and
// global infos. Functions are kept in insertion order (the printer's order).
#ifndef KILN_COMPILER_IR_MODULE_H_
#define KILN_COMPILER_IR_MODULE_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/expr.h"

namespace kiln::ir {

// An entry of I.module_global_infos: e.g. I.vdevice("cuda", 0, "global") or I.dummy_global_info().
class GlobalInfoNode : public SpannedNode {
 public:
  std::string kind;  // "vdevice", "dummy", "device_mesh", ...
  Map<String, ObjectRef> attrs;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("kind", &kind);
    v->Visit("attrs", &attrs);
  }
  KILN_DECLARE_NODE(GlobalInfoNode, "ir.GlobalInfo", kGlobalInfo)
};
class GlobalInfo : public ObjectRef {
  KILN_DEFINE_REF(GlobalInfo, ObjectRef, GlobalInfoNode)
  GlobalInfo(std::string kind, Map<String, ObjectRef> attrs);
};

class IRModuleNode : public SpannedNode {
 public:
  Map<GlobalVar, BaseFunc> functions;
  Map<String, ObjectRef> attrs;
  Map<String, Array<GlobalInfo>> global_infos;
  void VisitFields(FieldVisitor* v) override {
    SpannedNode::VisitFields(v);
    v->Visit("functions", &functions);
    v->Visit("attrs", &attrs);
    v->Visit("global_infos", &global_infos);
  }
  KILN_DECLARE_NODE(IRModuleNode, "ir.IRModule", kIRModule)
};
class IRModule : public ObjectRef {
  KILN_DEFINE_REF(IRModule, ObjectRef, IRModuleNode)
  static IRModule Make();

  // Adds or replaces the function named gv->name.
  void Add(const GlobalVar& gv, const BaseFunc& func);
  // The GlobalVar of that name, or a null ref.
  GlobalVar GetGlobalVar(const std::string& name) const;
  BaseFunc Lookup(const std::string& name) const;
  std::vector<std::pair<GlobalVar, BaseFunc>> Functions() const { return get()->functions.items(); }
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_MODULE_H_
