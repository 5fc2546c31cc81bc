#include "compiler/tir/analysis/allocation_size.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"

namespace kiln::tir {

using namespace ir;  // NOLINT

namespace {

int64_t MaxOf(DataType t) {
  if (t.bits() >= 64) return std::numeric_limits<int64_t>::max();
  return t.is_uint() ? static_cast<int64_t>((uint64_t{1} << t.bits()) - 1) : (int64_t{1} << (t.bits() - 1)) - 1;
}

class Finder : public StmtExprVisitor {
 public:
  std::string error;

  void Check(const Buffer& b) {
    if (!error.empty() || !b.defined()) return;
    int64_t elems = 1;
    bool overflow = false;
    int64_t index_max = std::numeric_limits<int32_t>::max();
    for (const PrimExpr& d : b->shape) {
      const auto* imm = d.as<IntImmNode>();
      if (imm == nullptr || imm->value < 0) return;  // symbolic (checked at run time) or rejected elsewhere
      if (imm->dtype.is_integer()) index_max = std::max(index_max, MaxOf(imm->dtype));
      overflow |= __builtin_mul_overflow(elems, imm->value, &elems);
    }
    int64_t bytes = 0;
    int64_t elem_bytes = std::max<int64_t>(1, b->dtype.StorageBytes());
    bool too_many = overflow || elems > index_max;
    if (!too_many && !__builtin_mul_overflow(elems, elem_bytes, &bytes)) return;
    std::string extents;
    for (const PrimExpr& d : b->shape) absl::StrAppend(&extents, extents.empty() ? "" : " x ", d.as<IntImmNode>()->value);
    std::string at = b->span.defined() ? absl::StrCat(b->span.ToString(), ": error: ") : "";
    error = absl::StrCat(at, "allocation of buffer ", b->name, " (", extents, " elements of ", b->dtype.ToString(),
                         ") is too large: ",
                         too_many ? "its element count overflows the index type" : "its size in bytes overflows int64");
  }

  void VisitStmt_(const AllocBufferNode* op) override {
    Check(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) Check(b);
    StmtExprVisitor::VisitStmt_(op);
  }
};

}  // namespace

absl::Status CheckAllocationSizes(const PrimFunc& func) {
  Finder f;
  if (func->body.defined()) f.VisitStmt(func->body);
  return f.error.empty() ? absl::OkStatus() : absl::InvalidArgumentError(f.error);
}

absl::Status CheckAllocationSizes(const IRModule& module) {
  for (const auto& [gv, func] : module.Functions()) {
    if (func.as<PrimFuncNode>() == nullptr) continue;
    absl::Status st = CheckAllocationSizes(Downcast<PrimFunc>(func));
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace kiln::tir
