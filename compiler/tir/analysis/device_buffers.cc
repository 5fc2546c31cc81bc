// HandleAccesses and ConstantElementCount (device_buffers.h).
#include "compiler/tir/analysis/device_buffers.h"

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

}  // namespace kiln::tir
