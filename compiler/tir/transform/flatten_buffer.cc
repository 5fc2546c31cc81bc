// FlattenBuffer: N-D buffer accesses -> 1-D accesses, the form every backend indexes memory with.
//
// Each buffer B gets one flat buffer B' with the same data var, dtype and name, shape [extent] and
// no strides or elem_offset. An access B[i0, ..., in-1] becomes
//     B'[elem_offset + i0 * s0 + ... + in-1 * sn-1]
// where s are B's declared strides or, when it declares none, the compact row-major strides
// computed from its shape. When the last index is a Ramp (a vector access) and the others are
// scalars, the flat index stays a Ramp of the flattened base: ramp(base', stride * sn-1, lanes).
// The index type is int64 if any index, shape, stride or offset is int64, else int32.
//
// AllocBuffer allocates the flat buffer (extent = product of the shape); rank-0 buffers (local
// scalars) become 1-element buffers accessed at [0]. DeclBuffer (a view over an existing data var)
// is dropped: its accesses are flattened with its own shape/strides onto the shared data var.
// The function's buffer_map keeps the original N-D buffers: they describe the arguments, and
// MakePackedAPI checks and binds them (the flat buffers share their data vars).
#include <unordered_map>

#include "compiler/tir/arith/analyzer.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/ir_utils.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

struct FlatInfo {
  Buffer flat;
  std::vector<PrimExpr> strides;
  PrimExpr elem_offset;  // undefined = 0
  DataType index_type;
};

class Flattener : public StmtExprMutator {
 private:
  const FlatInfo& Info(const Buffer& b) {
    auto it = infos_.find(b.get());
    if (it != infos_.end()) return it->second;
    FlatInfo info;
    DataType t = DataType::Int(32);
    for (const PrimExpr& e : b->shape) t = WiderIndexType(t, e.dtype());
    for (const PrimExpr& e : b->strides) t = WiderIndexType(t, e.dtype());
    if (b->elem_offset.defined()) t = WiderIndexType(t, b->elem_offset.dtype());
    info.index_type = t;
    size_t n = b->shape.size();
    info.strides.resize(n);
    for (size_t k = n; k-- > 0;) {
      if (!b->strides.empty()) {
        info.strides[k] = CastTo(t, b->strides[k]);
      } else if (k + 1 == n) {
        info.strides[k] = IntImm(t, 1);
      } else {
        info.strides[k] = analyzer_.Simplify(Mul(info.strides[k + 1], CastTo(t, b->shape[k + 1])));
      }
    }
    PrimExpr extent;
    if (n == 0) {
      extent = IntImm(t, 1);
    } else if (b->strides.empty()) {
      extent = IntImm(t, 1);
      for (const PrimExpr& d : b->shape) extent = Mul(extent, CastTo(t, d));
    } else {
      // The span from the first to the last element of a strided layout.
      extent = IntImm(t, 1);
      for (size_t k = 0; k < n; ++k) {
        extent = Add(extent, Mul(Sub(CastTo(t, b->shape[k]), IntImm(t, 1)), info.strides[k]));
      }
    }
    info.flat = WithFlatShape(b, analyzer_.Simplify(extent));
    if (b->elem_offset.defined() && !IsZero(b->elem_offset)) info.elem_offset = CastTo(t, b->elem_offset);
    keep_.push_back(b);
    return infos_.emplace(b.get(), info).first->second;
  }

  static bool IsZero(const PrimExpr& e) {
    const auto* imm = e.as<IntImmNode>();
    return imm != nullptr && imm->value == 0;
  }

  PrimExpr FlatIndex(const FlatInfo& info, const Array<PrimExpr>& indices) {
    if (indices.empty()) return IntImm(info.index_type, 0);
    DataType t = info.index_type;
    for (const PrimExpr& i : indices) t = WiderIndexType(t, i.dtype());
    size_t n = indices.size();
    bool others_scalar = true;
    for (size_t k = 0; k + 1 < n; ++k) others_scalar &= indices[k].dtype().is_scalar();
    PrimExpr base = info.elem_offset.defined() ? CastTo(t, info.elem_offset) : IntImm(t, 0);
    const auto* ramp = indices[n - 1].as<RampNode>();
    if (others_scalar && (ramp || indices[n - 1].dtype().is_scalar())) {
      for (size_t k = 0; k + 1 < n; ++k) base = Add(base, Mul(CastTo(t, indices[k]), CastTo(t, info.strides[k])));
      PrimExpr last_stride = CastTo(t, info.strides[n - 1]);
      if (ramp) {
        base = Add(base, Mul(CastTo(t, ramp->base), last_stride));
        return Ramp(analyzer_.Simplify(base), analyzer_.Simplify(Mul(CastTo(t, ramp->stride), last_stride)),
                    ramp->lanes);
      }
      return analyzer_.Simplify(Add(base, Mul(CastTo(t, indices[n - 1]), last_stride)));
    }
    // General vector indices: lane-wise arithmetic on broadcast scalars.
    int lanes = 1;
    for (const PrimExpr& i : indices) lanes = std::max(lanes, i.dtype().lanes());
    auto vec = [&](const PrimExpr& e) { return e.dtype().is_vector() ? CastTo(t, e) : PrimExpr(Broadcast(CastTo(t, e), lanes)); };
    PrimExpr flat = vec(base);
    for (size_t k = 0; k < n; ++k) flat = Add(flat, Mul(vec(indices[k]), vec(info.strides[k])));
    return analyzer_.Simplify(flat);
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    Array<PrimExpr> indices = VisitExprs(op->indices);
    const FlatInfo& info = Info(op->buffer);
    BufferLoad out(info.flat, {FlatIndex(info, indices)}, op->span);
    if (op->predicate.defined()) out.CopyOnWrite()->predicate = VisitExpr(op->predicate);
    return out;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Array<PrimExpr> indices = VisitExprs(op->indices);
    PrimExpr value = VisitExpr(op->value);
    const FlatInfo& info = Info(op->buffer);
    BufferStore out(info.flat, value, {FlatIndex(info, indices)}, op->span);
    if (op->predicate.defined()) out.CopyOnWrite()->predicate = VisitExpr(op->predicate);
    return out;
  }
  Stmt VisitStmt_(const AllocBufferNode* op) override {
    const FlatInfo& info = Info(op->buffer);
    Buffer flat = info.flat;
    return AllocBuffer(flat, VisitStmt(op->body), op->annotations, op->span);
  }
  Stmt VisitStmt_(const DeclBufferNode* op) override { return VisitStmt(op->body); }

  arith::Analyzer analyzer_;
  std::unordered_map<const BufferNode*, FlatInfo> infos_;
  std::vector<Buffer> keep_;
};

}  // namespace

PrimFunc FlattenBuffer(const PrimFunc& f) {
  Flattener flattener;
  Stmt body = flattener.VisitStmt(f->body);
  return WithBody(f, body);
}

}  // namespace kiln::tir::transform
