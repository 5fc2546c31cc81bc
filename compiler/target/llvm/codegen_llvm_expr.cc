// The LLVM emitter's expressions: arithmetic with TIR's wrapping and division semantics, casts,
// comparisons, vectors (see codegen_llvm_internal.h).
#include "compiler/target/llvm/codegen_llvm_internal.h"

namespace kiln::codegen::llvm_internal {

llvm::Value* CodegenLLVM::VisitExprDefault_(const Object* op) {
  Fail(absl::StrCat("unsupported expression ", op->type_key()));
  return llvm::UndefValue::get(i32_);
}

llvm::Value* CodegenLLVM::VisitExpr_(const VarNode* op) {
  auto it = vars_.find(op);
  if (it == vars_.end()) {
    Fail(absl::StrCat("variable ", op->name, " is used outside its scope"));
    return Undef(op->dtype);
  }
  return it->second;
}

llvm::Value* CodegenLLVM::VisitExpr_(const IntImmNode* op) {
  llvm::Type* t = LType(op->dtype);
  if (!t->isIntegerTy()) {
    Fail(absl::StrCat("integer literal of dtype ", op->dtype.ToString()));
    return Undef(op->dtype);
  }
  return llvm::ConstantInt::get(t, static_cast<uint64_t>(op->value), op->dtype.is_int());
}

llvm::Value* CodegenLLVM::VisitExpr_(const FloatImmNode* op) {
  llvm::Value* v = llvm::ConstantFP::get(LType(op->dtype), op->value);
  return op->dtype.is_bfloat() ? RoundBF16(v) : v;
}

llvm::Value* CodegenLLVM::Convert(llvm::Value* v, DataType from, DataType to) {
  llvm::Type* target = LType(to.with_lanes(std::max(1, Lanes(v))));
  DataType f = from.element_of(), t = to.element_of();
  if (f == t) return v;
  if (t.is_bool()) {
    if (f.is_floating()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    if (f.is_handle()) return b_.CreateIsNotNull(v);
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (t.is_handle()) return f.is_handle() ? v : b_.CreateIntToPtr(v, target);
  if (f.is_handle()) return b_.CreatePtrToInt(v, target);
  if (f.is_int_or_bool() && t.is_int_or_bool()) return b_.CreateIntCast(v, target, f.is_int());
  if (f.is_int_or_bool() && t.is_floating()) {
    llvm::Value* r = f.is_int() ? b_.CreateSIToFP(v, target) : b_.CreateUIToFP(v, target);
    return t.is_bfloat() ? RoundBF16(r) : r;
  }
  if (f.is_floating() && t.is_int_or_bool()) {
    return t.is_int() ? b_.CreateFPToSI(v, target) : b_.CreateFPToUI(v, target);
  }
  if (f.is_floating() && t.is_floating()) {
    llvm::Value* r = b_.CreateFPCast(v, target);
    return t.is_bfloat() ? RoundBF16(r) : r;
  }
  Fail(absl::StrCat("cannot cast ", f.ToString(), " to ", t.ToString()));
  return llvm::UndefValue::get(target);
}

llvm::Value* CodegenLLVM::VisitExpr_(const CastNode* op) {
  llvm::Value* v = VisitExpr(op->value);
  if (op->dtype.lanes() > 1 && Lanes(v) == 1) v = Splat(v, op->dtype.lanes());
  return Convert(v, op->value.dtype(), op->dtype);
}

// Brings both operands to the node's lane count (TIR allows scalar-vector mixing after
// simplification only through Broadcast, but be lenient).
std::pair<llvm::Value*, llvm::Value*> CodegenLLVM::Operands(const BinaryNode* op) {
  llvm::Value* a = VisitExpr(op->a);
  llvm::Value* b = VisitExpr(op->b);
  int lanes = std::max(Lanes(a), Lanes(b));
  return {Splat(a, lanes), Splat(b, lanes)};
}

llvm::Value* CodegenLLVM::VisitExpr_(const AddNode* op) {
  auto [a, b] = Operands(op);
  return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFAdd(a, b)) : b_.CreateAdd(a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const SubNode* op) {
  auto [a, b] = Operands(op);
  return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFSub(a, b)) : b_.CreateSub(a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const MulNode* op) {
  auto [a, b] = Operands(op);
  return op->dtype.is_floating() ? Finish(op->dtype, b_.CreateFMul(a, b)) : b_.CreateMul(a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const DivNode* op) {
  auto [a, b] = Operands(op);
  if (op->dtype.is_floating()) return Finish(op->dtype, b_.CreateFDiv(a, b));
  return op->dtype.is_int() ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const ModNode* op) {
  auto [a, b] = Operands(op);
  if (op->dtype.is_floating()) return Finish(op->dtype, b_.CreateFRem(a, b));  // fmod
  return op->dtype.is_int() ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
}

llvm::Value* CodegenLLVM::Floor(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); }

// float16 floordiv/floormod are one TIR operation each, so they are computed in float and rounded
// to half once (as the C backend's _Float16 arithmetic does). Rounding every step to half instead
// can give a floormod far outside [0, b): x / b rounded to half may cross an integer.
std::pair<llvm::Value*, llvm::Value*> CodegenLLVM::WidenHalf(llvm::Value* a, llvm::Value* b) {
  if (!a->getType()->getScalarType()->isHalfTy()) return {a, b};
  llvm::Type* wide = WithLanes(f32_, Lanes(a));
  return {b_.CreateFPExt(a, wide), b_.CreateFPExt(b, wide)};
}

llvm::Value* CodegenLLVM::NarrowLike(llvm::Value* v, llvm::Value* like) {
  return v->getType() == like->getType() ? v : b_.CreateFPTrunc(v, like->getType());
}

llvm::Value* CodegenLLVM::VisitExpr_(const FloorDivNode* op) {
  auto [a, b] = Operands(op);
  if (op->dtype.is_floating()) {
    auto [x, y] = WidenHalf(a, b);
    return Finish(op->dtype, NarrowLike(Floor(b_.CreateFDiv(x, y)), a));
  }
  if (!op->dtype.is_int()) return b_.CreateUDiv(a, b);
  // q - 1 when the remainder is non-zero and its sign differs from the divisor's.
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* q = b_.CreateSDiv(a, b);
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                     b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
  return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
}

llvm::Value* CodegenLLVM::VisitExpr_(const FloorModNode* op) {
  auto [a, b] = Operands(op);
  if (op->dtype.is_floating()) {
    auto [x, y] = WidenHalf(a, b);
    return Finish(op->dtype, NarrowLike(b_.CreateFSub(x, b_.CreateFMul(Floor(b_.CreateFDiv(x, y)), y)), a));
  }
  if (!op->dtype.is_int()) return b_.CreateURem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                     b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
  return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
}

// Min/Max as `a < b ? a : b` (the C backend's NaN behaviour).
llvm::Value* CodegenLLVM::VisitExpr_(const MinNode* op) {
  auto [a, b] = Operands(op);
  return b_.CreateSelect(Less(op->a.dtype(), a, b), a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const MaxNode* op) {
  auto [a, b] = Operands(op);
  return b_.CreateSelect(Less(op->a.dtype(), b, a), a, b);
}

llvm::Value* CodegenLLVM::Less(DataType t, llvm::Value* a, llvm::Value* b) {
  if (t.is_floating()) return b_.CreateFCmpOLT(a, b);
  return t.is_int() ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
}

llvm::Value* CodegenLLVM::Compare(const BinaryNode* op, Cmp c) {
  auto [a, b] = Operands(op);
  DataType t = op->a.dtype();
  if (t.is_floating()) {
    switch (c) {
      case Cmp::kEQ: return b_.CreateFCmpOEQ(a, b);
      case Cmp::kNE: return b_.CreateFCmpUNE(a, b);
      case Cmp::kLT: return b_.CreateFCmpOLT(a, b);
      case Cmp::kLE: return b_.CreateFCmpOLE(a, b);
      case Cmp::kGT: return b_.CreateFCmpOGT(a, b);
      case Cmp::kGE: return b_.CreateFCmpOGE(a, b);
    }
  }
  bool s = t.is_int();
  switch (c) {
    case Cmp::kEQ: return b_.CreateICmpEQ(a, b);
    case Cmp::kNE: return b_.CreateICmpNE(a, b);
    case Cmp::kLT: return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    case Cmp::kLE: return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case Cmp::kGT: return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case Cmp::kGE: return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
  }
  return nullptr;
}

// Scalar && / || short-circuit when the right side reads memory or calls (a guard like
// `i < n && A[i] > 0` must not load A[n]); otherwise both sides are evaluated.
llvm::Value* CodegenLLVM::Logical(const BinaryNode* op, bool is_and) {
  if (op->dtype.is_scalar() && HasLoadOrCall(op->b)) {
    llvm::Value* a = VisitExpr(op->a);
    llvm::BasicBlock* from = b_.GetInsertBlock();
    llvm::BasicBlock* rhs = llvm::BasicBlock::Create(ctx_, is_and ? "and.rhs" : "or.rhs", fs_.fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, is_and ? "and.end" : "or.end", fs_.fn);
    if (is_and) {
      b_.CreateCondBr(a, rhs, done);
    } else {
      b_.CreateCondBr(a, done, rhs);
    }
    b_.SetInsertPoint(rhs);
    llvm::Value* b = VisitExpr(op->b);
    llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
    phi->addIncoming(b_.getInt1(!is_and), from);
    phi->addIncoming(b, rhs_end);
    return phi;
  }
  auto [a, b] = Operands(op);
  return is_and ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
}

llvm::Value* CodegenLLVM::VisitExpr_(const SelectNode* op) {
  llvm::Value* c = VisitExpr(op->condition);
  llvm::Value* t = VisitExpr(op->true_value);
  llvm::Value* f = VisitExpr(op->false_value);
  int lanes = std::max(Lanes(t), Lanes(f));
  return b_.CreateSelect(c, Splat(t, lanes), Splat(f, lanes));
}

// Lane index constants <0, 1, ..., n-1> of the given integer type.
llvm::Value* CodegenLLVM::LaneIds(llvm::Type* scalar, int lanes) {
  std::vector<llvm::Constant*> ids;
  for (int i = 0; i < lanes; ++i) ids.push_back(llvm::ConstantInt::get(scalar, i));
  return llvm::ConstantVector::get(ids);
}

llvm::Value* CodegenLLVM::VisitExpr_(const RampNode* op) {
  llvm::Value* base = VisitExpr(op->base);
  llvm::Value* stride = VisitExpr(op->stride);
  llvm::Type* s = base->getType();
  if (s->isFloatingPointTy()) {
    llvm::Value* ids = b_.CreateUIToFP(LaneIds(i32_, op->lanes), WithLanes(s, op->lanes));
    return b_.CreateFAdd(Splat(base, op->lanes), b_.CreateFMul(Splat(stride, op->lanes), ids));
  }
  return b_.CreateAdd(Splat(base, op->lanes), b_.CreateMul(Splat(stride, op->lanes), LaneIds(s, op->lanes)));
}

llvm::Value* CodegenLLVM::VisitExpr_(const ShuffleNode* op) {
  // Gathers lanes by global index across the concatenated input vectors.
  std::vector<std::pair<llvm::Value*, int>> lanes;  // (vector, lane) per global index
  for (const PrimExpr& v : op->vectors) {
    llvm::Value* x = VisitExpr(v);
    for (int l = 0; l < Lanes(x); ++l) lanes.emplace_back(x, l);
  }
  llvm::Type* elem = LType(op->dtype.element_of());
  int n = static_cast<int>(op->indices.size());
  llvm::Value* out = n > 1 ? llvm::UndefValue::get(WithLanes(elem, n)) : nullptr;
  for (int i = 0; i < n; ++i) {
    const auto* idx = op->indices[i].as<IntImmNode>();
    if (idx == nullptr || idx->value < 0 || idx->value >= static_cast<int64_t>(lanes.size())) {
      Fail("Shuffle needs constant in-range indices");
      return Undef(op->dtype);
    }
    auto [vec, lane] = lanes[idx->value];
    llvm::Value* x = vec->getType()->isVectorTy() ? b_.CreateExtractElement(vec, lane) : vec;
    if (n == 1) return x;
    out = b_.CreateInsertElement(out, x, i);
  }
  return out;
}

llvm::Value* CodegenLLVM::VisitExpr_(const LetNode* op) {
  vars_[op->var.get()] = VisitExpr(op->value);
  llvm::Value* v = VisitExpr(op->body);
  vars_.erase(op->var.get());
  return v;
}

}  // namespace kiln::codegen::llvm_internal
