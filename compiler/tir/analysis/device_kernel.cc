// HandleAccesses, ConstantElementCount and ParseThreadTag (device_kernel.h).
#include "compiler/tir/analysis/device_kernel.h"

#include "compiler/tir/functor.h"

namespace kiln::tir {
namespace {

using namespace ir;  // NOLINT: this file is about IR node types only

class AccessCollector : public StmtExprVisitor {
 public:
  std::unordered_map<const VarNode*, HandleAccess> accesses;

 private:
  void Note(const Buffer& b) {
    auto [it, added] = accesses.emplace(b->data.get(), HandleAccess{b->dtype, false});
    if (!added && it->second.first != b->dtype) it->second.mixed = true;
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Note(op->buffer);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Note(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
};

}  // namespace

std::unordered_map<const VarNode*, HandleAccess> HandleAccesses(const Stmt& body) {
  AccessCollector c;
  c.VisitStmt(body);
  return std::move(c.accesses);
}

std::optional<int64_t> ConstantElementCount(const Buffer& buffer) {
  int64_t count = 1;
  for (const PrimExpr& d : buffer->shape) {
    const auto* imm = d.as<IntImmNode>();
    if (imm == nullptr) return std::nullopt;
    count *= imm->value;
  }
  return count;
}

bool ParseThreadTag(const std::string& tag, bool* block, int* dim) {
  std::string axis;
  if (tag.rfind("blockIdx.", 0) == 0) {
    *block = true, axis = tag.substr(9);
  } else if (tag.rfind("threadIdx.", 0) == 0) {
    *block = false, axis = tag.substr(10);
  } else {
    return false;
  }
  if (axis.size() != 1 || axis[0] < 'x' || axis[0] > 'z') return false;
  *dim = axis[0] - 'x';
  return true;
}

}  // namespace kiln::tir
