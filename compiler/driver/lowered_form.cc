#include "compiler/driver/lowered_form.h"

namespace kiln::driver {

using namespace ir;  // NOLINT

bool IsPackedEntry(const PrimFuncNode* f) {
  int64_t i = f->attrs.Find(String(kCallingConvAttr));
  if (i < 0) return false;
  const auto* imm = f->attrs.value_at(i).as<IntImmNode>();
  return imm != nullptr && imm->value == kPackedCallingConv;
}

std::string LoweredSymbol(const std::string& module_name, const PrimFuncNode* f) {
  std::string s = f->GetGlobalSymbol();
  return s.empty() ? module_name : s;
}

namespace {

const CallNode* OpCall(const EvaluateNode* op, const char* name) {
  const auto* call = op->value.as<CallNode>();
  if (call == nullptr) return nullptr;
  const auto* o = call->op.as<OpNode>();
  return o != nullptr && o->name == name ? call : nullptr;
}

}  // namespace

PrimExpr ReturnedValue(const EvaluateNode* op) {
  const CallNode* call = OpCall(op, "tirx.ret");
  return call != nullptr ? call->args[0] : PrimExpr();
}

const CallNode* FailedCheck(const EvaluateNode* op) { return OpCall(op, "tirx.check_failure"); }

bool IsNoOpEvaluate(const EvaluateNode* op) {
  return op->value.as<IntImmNode>() != nullptr || OpCall(op, "tirx.assume") != nullptr;
}

}  // namespace kiln::driver
