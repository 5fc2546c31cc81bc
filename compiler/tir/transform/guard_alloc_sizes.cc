// GuardAllocSizes: an allocation whose extents are only known at run time gets a check before it
// that every extent is non-negative and that the element count fits the buffer's index type (the
// dtype FlattenBuffer computes its indices in: int32 unless an extent is int64) and its byte size
// fits int64. Without it a negative extent or a product that wraps gave llvm and c a small (or
// elided) allocation that the accesses then overran, while the interpreter refused the same
// allocation (issue 14). Constant extents are the verifier's (compiler/script/verify.h).
//
// It runs before FlattenBuffer, which replaces the extents by their (wrapping) product. A failed
// check is a MemoryError naming the buffer, as a failed allocation is.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I64(int64_t v) { return IntImm(DataType::Int(64), v); }

// The condition under which `b` can be allocated; undefined when every extent is constant.
PrimExpr SizeIsValid(const Buffer& b) {
  bool constant = true;
  DataType index = DataType::Int(32);
  for (const PrimExpr& d : b->shape) {
    constant &= d.as<IntImmNode>() != nullptr;
    index = WiderIndexType(index, d.dtype());
  }
  if (constant) return PrimExpr();
  const int64_t elem_bytes = std::max<int64_t>(1, b->dtype.StorageBytes());
  const int64_t index_max =
      index.bits() >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (index.bits() - 1)) - 1;
  const int64_t max_elems = std::min(index_max, std::numeric_limits<int64_t>::max() / elem_bytes);
  // elems_k = d_0 * ... * d_k <= max_elems, checked by division before each multiplication so
  // that no product is formed that could wrap past the check.
  PrimExpr cond, elems = I64(1);
  for (const PrimExpr& d : b->shape) {
    PrimExpr d64 = CastTo(DataType::Int(64), d);
    PrimExpr ok = And(GE(d64, I64(0)), Or(EQ(d64, I64(0)), LE(elems, FloorDiv(I64(max_elems), d64))));
    cond = cond.defined() ? PrimExpr(And(cond, ok)) : ok;
    elems = Mul(elems, d64);
  }
  return cond;
}

class Guard : public StmtExprMutator {
 private:
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    PrimExpr cond = SizeIsValid(op->buffer);
    if (!cond.defined()) return s;
    Stmt check = AssertStmt(cond, "MemoryError",
                            {String(absl::StrCat("cannot allocate ", op->buffer->name,
                                                 ": an extent is negative or the size overflows"))});
    return SeqStmt::Flatten({check, s});
  }
};

}  // namespace

PrimFunc GuardAllocSizes(const PrimFunc& f) {
  Stmt body = Guard().VisitStmt(f->body);
  return body.same_as(f->body) ? f : WithBody(f, body);
}

}  // namespace kiln::tir::transform
