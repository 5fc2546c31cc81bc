// The layout algebra TVM's Buffer views are built from (python/tvm/tirx/layout.py and
// src/tirx/ir/layout/): grouping a TileLayout's shard iters by a logical shape, permuting the
// groups, a layout's per-thread storage, its size and span, and packing/unpacking elements for a
// reinterpreting view. The parser uses them to read `A.sub[...]`, `A.permute(...)`, `A.local()`,
// `A.view(dtype)`, ... into the DeclBuffers TVM builds.
//
// Extents and shape dimensions must be constants where divisibility has to be decided (TVM asks
// its analyzer; kiln folds constants only), strides may be symbolic. Failures are
// INVALID_ARGUMENT with a message naming the layout operation.
#ifndef KILN_COMPILER_TIR_OP_TILE_LAYOUT_H_
#define KILN_COMPILER_TIR_OP_TILE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tir.h"

namespace kiln::tir {

// Whether a layout axis names threads (laneid, warpid, tx, bx, ...) rather than storage (m, P, F,
// Bank, TCol, TLane), as TVM's axis registry marks them.
bool IsThreadAxis(const std::string& axis);

// TileLayout.group(shape): the shard split so that consecutive iters cover the dimensions of
// `shape`; dimension i is shard[seps[i], seps[i + 1]).
struct GroupedLayout {
  ir::TileLayout layout;
  std::vector<size_t> seps;
};
absl::StatusOr<GroupedLayout> GroupLayout(const ir::TileLayout& layout, const ir::Array<ir::PrimExpr>& shape);

// TileLayout.permute_by_groups(seps, perm): the groups of shard iters in the order `perm`.
absl::StatusOr<ir::TileLayout> PermuteByGroups(const ir::TileLayout& layout, const std::vector<size_t>& seps,
                                               const std::vector<int64_t>& perm);

// Layout.storage(): the layout without its thread axes (what one thread holds); a ComposeLayout
// keeps its swizzle over the storage of its tile layout.
ir::ObjectRef LayoutStorage(const ir::ObjectRef& layout);

// Layout.size() (the product of the shard extents) and Layout.span() (one past the largest
// offset: 1 + sum((extent - 1) * stride) + offsets), over every axis.
ir::PrimExpr LayoutSize(const ir::ObjectRef& layout);
ir::PrimExpr LayoutSpan(const ir::ObjectRef& layout);

// Layout.pack(num) / Layout.unpack(num): the layout of the same storage seen as elements `num`
// times wider / narrower (A.view("float32") of a float16 buffer packs by 2).
absl::StatusOr<ir::ObjectRef> PackLayout(const ir::ObjectRef& layout, int64_t num);
absl::StatusOr<ir::ObjectRef> UnpackLayout(const ir::ObjectRef& layout, int64_t num);

// TileLayout.canonicalize() as TVM does it outside a target context: unit shard iters and zero
// offsets dropped, contiguous iters of one axis fused, replica iters sorted (by kiln's structural
// hash: TVM sorts by its own, so two or more replica iters may come out in another order).
ir::TileLayout CanonicalizeLayout(const ir::TileLayout& layout);

// Layout.tile(outer, outer_shape, inner_shape): `layout` (shaped inner_shape) repeated as `outer`
// lays out outer_shape tiles: dimension i is outer's group i then layout's group i, outer strides
// scaled by layout's span on their axis; the result canonicalized.
absl::StatusOr<ir::TileLayout> TileLayoutBy(const ir::TileLayout& layout, const ir::TileLayout& outer,
                                            const ir::Array<ir::PrimExpr>& outer_shape,
                                            const ir::Array<ir::PrimExpr>& inner_shape);

}  // namespace kiln::tir

#endif  // KILN_COMPILER_TIR_OP_TILE_LAYOUT_H_
