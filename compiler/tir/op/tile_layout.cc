#include "compiler/tir/op/tile_layout.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/structural.h"
#include "compiler/tir/op/arith.h"

namespace kiln::tir {

using ir::Array;
using ir::ComposeLayout;
using ir::ComposeLayoutNode;
using ir::IntImmNode;
using ir::Iter;
using ir::Map;
using ir::ObjectRef;
using ir::PrimExpr;
using ir::String;
using ir::TileLayout;
using ir::TileLayoutNode;

namespace {

// `a <kind> b` folded as TVM's operator functions fold it (integer operands: the failures left
// are division by zero and int/uint mixes, reported to the caller).
absl::StatusOr<PrimExpr> Op(BinaryOpKind kind, const Operand& a, const Operand& b) { return BinaryOp(kind, a, b); }

std::optional<int64_t> ConstInt(const PrimExpr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

// Whether `b` provably divides `a` (constants, or equal expressions).
bool Divides(const PrimExpr& a, const PrimExpr& b) {
  std::optional<int64_t> ca = ConstInt(a), cb = ConstInt(b);
  if (cb && *cb == 1) return true;
  if (ca && cb) return *cb != 0 && *ca % *cb == 0;
  return ir::StructuralEqual(a, b);
}

absl::Status CannotGroup(const TileLayout& layout, const Array<PrimExpr>& shape, const std::string& why) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::optional<int64_t> c = ConstInt(shape[i]);
    absl::StrAppend(&dims, i ? ", " : "", c ? std::to_string(*c) : "?");
  }
  std::string extents;
  for (size_t i = 0; i < layout->shard.size(); ++i) {
    std::optional<int64_t> c = ConstInt(layout->shard[i]->extent);
    absl::StrAppend(&extents, i ? ", " : "", c ? std::to_string(*c) : "?");
  }
  return absl::InvalidArgumentError(absl::StrCat("a layout with shard extents (", extents,
                                                 ") cannot be grouped by shape (", dims, "): ", why));
}

const TileLayoutNode* TileOf(const ObjectRef& layout) {
  if (const auto* t = layout.as<TileLayoutNode>()) return t;
  if (const auto* c = layout.as<ComposeLayoutNode>()) return c->tile_layout.get();
  return nullptr;
}

ComposeLayout Recompose(const ComposeLayoutNode* c, TileLayout tile, int32_t per_element) {
  auto n = ir::make_object<ComposeLayoutNode>();
  n->per_element = per_element;
  n->swizzle_len = c->swizzle_len;
  n->atom_len = c->atom_len;
  n->swizzle_inner = c->swizzle_inner;
  n->tile_layout = std::move(tile);
  n->span = c->span;
  return ComposeLayout(ir::ObjectPtr<ir::Object>(std::move(n)));
}

int Log2(int64_t num) {
  int k = 0;
  while ((int64_t{1} << k) < num) ++k;
  return k;
}

}  // namespace

bool IsThreadAxis(const std::string& axis) {
  static const char* const kThreadAxes[] = {"bx",     "by",     "bz",        "cbx",       "cby", "cbz",
                                            "tx",     "warpid", "laneid",    "wgid",      "tid_in_wg",
                                            "wid_in_wg"};
  return std::find_if(std::begin(kThreadAxes), std::end(kThreadAxes),
                      [&](const char* a) { return axis == a; }) != std::end(kThreadAxes);
}

absl::StatusOr<GroupedLayout> GroupLayout(const TileLayout& layout, const Array<PrimExpr>& shape) {
  // Walk the shard from the outermost iter, multiplying extents; whenever the running product is
  // a multiple of the next dimension, the current iter is split there (TVM's Group).
  size_t dim = 0;
  PrimExpr prod = ir::IntImm(ir::DataType::Int(32), 1);
  std::vector<Iter> shard;
  std::vector<size_t> seps{0};
  for (const Iter& it : layout->shard) {
    PrimExpr extent = it->extent;
    absl::StatusOr<PrimExpr> p = Op(BinaryOpKind::kMul, prod, extent);
    if (!p.ok()) return p.status();
    prod = *p;
    while (dim < shape.size() && Divides(prod, shape[dim])) {
      absl::StatusOr<PrimExpr> c = Op(BinaryOpKind::kFloorDiv, prod, shape[dim]);
      if (!c.ok()) return c.status();
      if (!Divides(extent, *c)) return CannotGroup(layout, shape, "a dimension splits an iter unevenly");
      absl::StatusOr<PrimExpr> outer = Op(BinaryOpKind::kFloorDiv, extent, *c);
      absl::StatusOr<PrimExpr> stride = Op(BinaryOpKind::kMul, it->stride, *c);
      if (!outer.ok()) return outer.status();
      if (!stride.ok()) return stride.status();
      shard.push_back(Iter(*outer, *stride, it->axis));
      extent = *c;
      prod = *c;
      ++dim;
      seps.push_back(shard.size());
    }
    std::optional<int64_t> e = ConstInt(extent);
    if (!e || *e != 1) {
      if (dim >= shape.size()) return CannotGroup(layout, shape, "the layout has more elements than the shape");
      shard.push_back(Iter(extent, it->stride, it->axis));
    }
  }
  if (dim != shape.size()) return CannotGroup(layout, shape, "the shape has more elements than the layout");
  return GroupedLayout{TileLayout(Array<Iter>(shard), layout->replica, layout->offset, layout->span), seps};
}

absl::StatusOr<TileLayout> PermuteByGroups(const TileLayout& layout, const std::vector<size_t>& seps,
                                           const std::vector<int64_t>& perm) {
  size_t groups = seps.empty() ? 0 : seps.size() - 1;
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != groups || sorted[i] != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(absl::StrCat("permute: the dims must be a permutation of 0..", groups - 1));
    }
  }
  if (perm.size() != groups) {
    return absl::InvalidArgumentError(absl::StrCat("permute: ", perm.size(), " dims given for ", groups));
  }
  Array<Iter> shard;
  for (int64_t g : perm) {
    for (size_t k = seps[g]; k < seps[g + 1]; ++k) shard.push_back(layout->shard[k]);
  }
  return TileLayout(shard, layout->replica, layout->offset, layout->span);
}

ObjectRef LayoutStorage(const ObjectRef& layout) {
  if (const auto* c = layout.as<ComposeLayoutNode>()) {
    return Recompose(c, ir::Downcast<TileLayout>(LayoutStorage(c->tile_layout)), c->per_element);
  }
  const auto* t = layout.as<TileLayoutNode>();
  if (!t) return layout;
  Array<Iter> shard, replica;
  for (const Iter& it : t->shard) if (!IsThreadAxis(it->axis)) shard.push_back(it);
  for (const Iter& it : t->replica) if (!IsThreadAxis(it->axis)) replica.push_back(it);
  Map<String, PrimExpr> offset;
  for (const auto& [axis, value] : t->offset.items()) if (!IsThreadAxis(axis)) offset.Set(axis, value);
  return TileLayout(shard, replica, offset, t->span);
}

PrimExpr LayoutSize(const ObjectRef& layout) {
  PrimExpr size = ir::IntImm(ir::DataType::Int(32), 1);
  if (const TileLayoutNode* t = TileOf(layout)) {
    for (const Iter& it : t->shard) {
      absl::StatusOr<PrimExpr> p = Op(BinaryOpKind::kMul, size, it->extent);
      if (p.ok()) size = *p;
    }
  }
  return size;
}

PrimExpr LayoutSpan(const ObjectRef& layout) {
  PrimExpr span = ir::IntImm(ir::DataType::Int(32), 1);
  const TileLayoutNode* t = TileOf(layout);
  if (!t) return span;
  auto add = [&](const PrimExpr& x) {
    absl::StatusOr<PrimExpr> s = Op(BinaryOpKind::kAdd, span, x);
    if (s.ok()) span = *s;
  };
  for (const Array<Iter>* iters : {&t->shard, &t->replica}) {
    for (const Iter& it : *iters) {
      absl::StatusOr<PrimExpr> last = Op(BinaryOpKind::kSub, it->extent, Operand::IntLiteral(1));
      if (!last.ok()) continue;
      absl::StatusOr<PrimExpr> reach = Op(BinaryOpKind::kMul, *last, it->stride);
      if (reach.ok()) add(*reach);
    }
  }
  for (const auto& [axis, value] : t->offset.items()) add(value);
  return span;
}

absl::StatusOr<ObjectRef> PackLayout(const ObjectRef& layout, int64_t num) {
  if (const auto* c = layout.as<ComposeLayoutNode>()) {
    if (num & (num - 1)) return absl::InvalidArgumentError("pack: a swizzled layout packs by a power of 2 only");
    if (c->per_element < Log2(num)) return absl::InvalidArgumentError("pack: the swizzle's per_element is too small");
    absl::StatusOr<ObjectRef> tile = PackLayout(c->tile_layout, num);
    if (!tile.ok()) return tile.status();
    return ObjectRef(Recompose(c, ir::Downcast<TileLayout>(*tile), c->per_element - Log2(num)));
  }
  const auto* t = layout.as<TileLayoutNode>();
  if (!t || t->shard.empty()) return absl::InvalidArgumentError("pack: the buffer has no tile layout to pack");
  const Iter& inner = t->shard[t->shard.size() - 1];
  std::optional<int64_t> stride = ConstInt(inner->stride), extent = ConstInt(inner->extent);
  if (!stride || *stride != 1 || !extent || *extent % num != 0 || IsThreadAxis(inner->axis)) {
    return absl::InvalidArgumentError(absl::StrCat("pack: the innermost layout iter must be contiguous memory with an extent divisible by ", num));
  }
  Array<Iter> shard;
  for (size_t i = 0; i + 1 < t->shard.size(); ++i) {
    const Iter& it = t->shard[i];
    absl::StatusOr<PrimExpr> s = Op(BinaryOpKind::kFloorDiv, it->stride, Operand::IntLiteral(num));
    if (!s.ok()) return s.status();
    shard.push_back(Iter(it->extent, *s, it->axis));
  }
  shard.push_back(Iter(ir::IntImm(inner->extent.dtype(), *extent / num), inner->stride, inner->axis));
  return ObjectRef(TileLayout(shard, t->replica, t->offset, t->span));
}

absl::StatusOr<ObjectRef> UnpackLayout(const ObjectRef& layout, int64_t num) {
  if (const auto* c = layout.as<ComposeLayoutNode>()) {
    if (num & (num - 1)) return absl::InvalidArgumentError("unpack: a swizzled layout unpacks by a power of 2 only");
    absl::StatusOr<ObjectRef> tile = UnpackLayout(c->tile_layout, num);
    if (!tile.ok()) return tile.status();
    return ObjectRef(Recompose(c, ir::Downcast<TileLayout>(*tile), c->per_element + Log2(num)));
  }
  const auto* t = layout.as<TileLayoutNode>();
  if (!t) return absl::InvalidArgumentError("unpack: the buffer has no tile layout to unpack");
  Array<Iter> shard;
  for (const Iter& it : t->shard) {
    absl::StatusOr<PrimExpr> s = Op(BinaryOpKind::kMul, it->stride, Operand::IntLiteral(num));
    if (!s.ok()) return s.status();
    shard.push_back(Iter(it->extent, *s, it->axis));
  }
  shard.push_back(Iter(ir::IntImm(ir::DataType::Int(32), num), ir::IntImm(ir::DataType::Int(32), 1), "m"));
  return ObjectRef(TileLayout(shard, t->replica, t->offset, t->span));
}

TileLayout CanonicalizeLayout(const TileLayout& layout) {
  Array<Iter> shard;
  for (const Iter& it : layout->shard) {
    std::optional<int64_t> e = ConstInt(it->extent);
    if (!e || *e != 1) shard.push_back(it);
  }
  if (shard.empty() && !layout->shard.empty()) {
    shard.push_back(Iter(ir::IntImm(ir::DataType::Int(32), 1), ir::IntImm(ir::DataType::Int(32), 1), layout->shard[0]->axis));
  }
  Map<String, PrimExpr> offset;
  for (const auto& [axis, value] : layout->offset.items()) {
    std::optional<int64_t> c = ConstInt(value);
    if (!c || *c != 0) offset.Set(axis, value);
  }
  // Fuse runs of one axis where each iter steps exactly over the next one's extent.
  Array<Iter> fused;
  for (size_t cur = 0; cur < shard.size();) {
    PrimExpr extent = shard[cur]->extent;
    size_t next = cur + 1;
    while (next < shard.size() && shard[next]->axis == shard[cur]->axis) {
      absl::StatusOr<PrimExpr> reach = Op(BinaryOpKind::kMul, shard[next]->extent, shard[next]->stride);
      if (!reach.ok() || !ir::StructuralEqual(*reach, shard[next - 1]->stride)) break;
      absl::StatusOr<PrimExpr> e = Op(BinaryOpKind::kMul, extent, shard[next]->extent);
      if (!e.ok()) break;
      extent = *e;
      ++next;
    }
    fused.push_back(next == cur + 1 ? shard[cur] : Iter(extent, shard[next - 1]->stride, shard[cur]->axis));
    cur = next;
  }
  std::vector<Iter> replica(layout->replica.begin(), layout->replica.end());
  std::stable_sort(replica.begin(), replica.end(),
                   [](const Iter& a, const Iter& b) { return ir::StructuralHash(a) < ir::StructuralHash(b); });
  return TileLayout(fused, Array<Iter>(replica), offset, layout->span);
}

absl::StatusOr<TileLayout> TileLayoutBy(const TileLayout& layout, const TileLayout& outer_in,
                                        const Array<PrimExpr>& outer_shape, const Array<PrimExpr>& inner_shape) {
  if (outer_shape.size() != inner_shape.size()) {
    return absl::InvalidArgumentError("tile: the outer and inner shapes must have one rank");
  }
  absl::StatusOr<GroupedLayout> outer = GroupLayout(CanonicalizeLayout(outer_in), outer_shape);
  if (!outer.ok()) return outer.status();
  absl::StatusOr<GroupedLayout> inner = GroupLayout(CanonicalizeLayout(layout), inner_shape);
  if (!inner.ok()) return inner.status();
  // The inner layout's span on each of its shard axes: the outer iters on that axis step over it.
  auto span_on = [&](const std::string& axis) {
    PrimExpr span = ir::IntImm(ir::DataType::Int(32), 1);
    const TileLayoutNode* t = inner->layout.get();
    for (const Array<Iter>* iters : {&t->shard, &t->replica}) {
      for (const Iter& it : *iters) {
        if (it->axis != axis) continue;
        absl::StatusOr<PrimExpr> last = Op(BinaryOpKind::kSub, it->extent, Operand::IntLiteral(1));
        absl::StatusOr<PrimExpr> reach = last.ok() ? Op(BinaryOpKind::kMul, *last, it->stride) : last;
        absl::StatusOr<PrimExpr> sum = reach.ok() ? Op(BinaryOpKind::kAdd, span, *reach) : reach;
        if (sum.ok()) span = *sum;
      }
    }
    PrimExpr off = t->offset.Get(String(axis));
    if (off.defined()) {
      absl::StatusOr<PrimExpr> sum = Op(BinaryOpKind::kAdd, span, off);
      if (sum.ok()) span = *sum;
    }
    return span;
  };
  std::vector<std::string> inner_axes;
  for (const Iter& it : inner->layout->shard) {
    if (std::find(inner_axes.begin(), inner_axes.end(), it->axis) == inner_axes.end()) inner_axes.push_back(it->axis);
  }
  std::vector<Iter> scaled;
  for (const Iter& it : outer->layout->shard) {
    if (std::find(inner_axes.begin(), inner_axes.end(), it->axis) == inner_axes.end()) {
      scaled.push_back(it);
      continue;
    }
    absl::StatusOr<PrimExpr> stride = Op(BinaryOpKind::kMul, it->stride, span_on(it->axis));
    if (!stride.ok()) return stride.status();
    scaled.push_back(Iter(it->extent, *stride, it->axis));
  }
  Array<Iter> shard;
  for (size_t i = 0; i < outer_shape.size(); ++i) {
    for (size_t k = outer->seps[i]; k < outer->seps[i + 1]; ++k) shard.push_back(scaled[k]);
    for (size_t k = inner->seps[i]; k < inner->seps[i + 1]; ++k) shard.push_back(inner->layout->shard[k]);
  }
  Array<Iter> replica = inner->layout->replica;
  for (const Iter& it : outer->layout->replica) replica.push_back(it);
  Map<String, PrimExpr> offset = inner->layout->offset;
  for (const auto& [axis, value] : outer->layout->offset.items()) {
    PrimExpr prev = offset.Get(axis);
    if (!prev.defined()) {
      offset.Set(axis, value);
      continue;
    }
    absl::StatusOr<PrimExpr> sum = Op(BinaryOpKind::kAdd, prev, value);
    if (!sum.ok()) return sum.status();
    offset.Set(axis, *sum);
  }
  return CanonicalizeLayout(TileLayout(shard, replica, offset, layout->span));
}

}  // namespace kiln::tir
