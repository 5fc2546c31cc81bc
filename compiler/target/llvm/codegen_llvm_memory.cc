// The LLVM emitter's memory accesses: element addresses, contiguous and gathered loads and stores
// (see codegen_llvm_internal.h).
#include "compiler/target/llvm/codegen_llvm_internal.h"

namespace kiln::codegen::llvm_internal {

llvm::Value* CodegenLLVM::BufferPtr(const Buffer& buf) {
  auto it = vars_.find(buf->data.get());
  if (it == vars_.end()) {
    Fail(absl::StrCat("buffer ", buf->name, " is used outside its scope"));
    return llvm::ConstantPointerNull::get(ptr_);
  }
  return it->second;
}

// The stride-1 Ramp base if `index` is one (a contiguous access), else null.
const RampNode* CodegenLLVM::DenseRamp(const PrimExpr& index) {
  const auto* r = index.as<RampNode>();
  if (r == nullptr) return nullptr;
  const auto* s = r->stride.as<IntImmNode>();
  return s != nullptr && s->value == 1 ? r : nullptr;
}

llvm::Value* CodegenLLVM::Index64(llvm::Value* i, bool is_signed) {
  llvm::Type* t = WithLanes(i64_, Lanes(i));
  return b_.CreateIntCast(i, t, is_signed);
}

llvm::Value* CodegenLLVM::Mask(const PrimExpr& predicate, int lanes) {
  if (!predicate.defined()) return llvm::Constant::getAllOnesValue(WithLanes(i1_, lanes));
  return Splat(VisitExpr(predicate), lanes);
}

llvm::Value* CodegenLLVM::VisitExpr_(const BufferLoadNode* op) {
  if (op->indices.size() != 1) {
    Fail(absl::StrCat("buffer ", op->buffer->name, " is not flattened"));
    return Undef(op->dtype);
  }
  DataType elem = op->buffer->dtype.element_of();
  llvm::Type* st = StorageType(elem);
  llvm::Value* base = BufferPtr(op->buffer);
  llvm::Align align(st->getScalarSizeInBits() / 8 ? st->getScalarSizeInBits() / 8 : 1);
  int lanes = op->dtype.lanes() / std::max(1, op->buffer->dtype.lanes());
  const PrimExpr& index = op->indices[0];
  bool is_signed = index.dtype().is_int();
  if (op->buffer->dtype.lanes() > 1) {
    Fail(absl::StrCat("buffer ", op->buffer->name, " has a vector element dtype"));
    return Undef(op->dtype);
  }
  llvm::Value* raw;
  if (lanes == 1) {
    llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(index), is_signed));
    raw = b_.CreateAlignedLoad(st, p, align);
  } else if (const RampNode* r = DenseRamp(index)) {
    llvm::Value* p = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(r->base), r->base.dtype().is_int()));
    llvm::Type* vt = WithLanes(st, lanes);
    if (op->predicate.defined()) {
      raw = b_.CreateMaskedLoad(vt, p, align, Mask(op->predicate, lanes), llvm::Constant::getNullValue(vt));
    } else {
      raw = b_.CreateAlignedLoad(vt, p, align);
    }
  } else {
    llvm::Value* ptrs = b_.CreateInBoundsGEP(st, base, Index64(VisitExpr(index), is_signed));
    llvm::Type* vt = WithLanes(st, lanes);
    raw = b_.CreateMaskedGather(vt, ptrs, align, Mask(op->predicate, lanes), llvm::Constant::getNullValue(vt));
  }
  return FromStorage(raw, elem);
}

}  // namespace kiln::codegen::llvm_internal
