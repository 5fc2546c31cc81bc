#include "compiler/tir/op/tile_layout.h"

#include "compiler/ir/structural.h"
#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using ir::Array;
using ir::IntImm;
using ir::Iter;
using ir::PrimExpr;
using ir::TileLayout;

PrimExpr I(int64_t v) { return IntImm(ir::DataType::Int(32), v); }
Iter It(int64_t extent, int64_t stride, const char* axis = "m") { return Iter(I(extent), I(stride), axis); }
int64_t C(const PrimExpr& e) {
  const auto* imm = e.as<ir::IntImmNode>();
  EXPECT_NE(imm, nullptr);
  return imm ? imm->value : -1;
}

TEST(TileLayoutTest, GroupSplitsAnIterAcrossDimensions) {
  // S[(2, 4, 16) : (1024, 64, 1)] grouped by (8, 16): dim 0 is the first two iters.
  TileLayout l({It(2, 1024), It(4, 64), It(16, 1)}, {}, {});
  absl::StatusOr<GroupedLayout> g = GroupLayout(l, {I(8), I(16)});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->seps, (std::vector<size_t>{0, 2, 3}));
  // S[32 : 1] grouped by (4, 8): one iter becomes (4 : 8), (8 : 1).
  absl::StatusOr<GroupedLayout> h = GroupLayout(TileLayout({It(32, 1)}, {}, {}), {I(4), I(8)});
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->layout->shard.size(), 2u);
  EXPECT_EQ(C(h->layout->shard[0]->extent), 4);
  EXPECT_EQ(C(h->layout->shard[0]->stride), 8);
  EXPECT_EQ(C(h->layout->shard[1]->extent), 8);
  EXPECT_EQ(C(h->layout->shard[1]->stride), 1);
  EXPECT_EQ(h->seps, (std::vector<size_t>{0, 1, 2}));
}

TEST(TileLayoutTest, GroupRejectsAMismatchedShape) {
  absl::StatusOr<GroupedLayout> g = GroupLayout(TileLayout({It(6, 1)}, {}, {}), {I(4), I(2)});
  EXPECT_FALSE(g.ok());
  absl::StatusOr<GroupedLayout> h = GroupLayout(TileLayout({It(8, 1)}, {}, {}), {I(4)});
  EXPECT_FALSE(h.ok());
}

TEST(TileLayoutTest, PermuteByGroupsMovesWholeGroups) {
  TileLayout l({It(2, 1024), It(4, 64), It(16, 1)}, {}, {});
  absl::StatusOr<TileLayout> p = PermuteByGroups(l, {0, 2, 3}, {1, 0});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(ir::StructuralEqual(*p, TileLayout({It(16, 1), It(2, 1024), It(4, 64)}, {}, {})));
  EXPECT_FALSE(PermuteByGroups(l, {0, 2, 3}, {1, 1}).ok());
}

TEST(TileLayoutTest, StorageSizeAndSpanLeaveThreadAxesOut) {
  // S[(32, 2) : (1 @ laneid, 2)] + 3: each lane holds 2 elements spread over 6 slots.
  ir::Map<ir::String, PrimExpr> offset;
  offset.Set(ir::String("m"), I(3));
  TileLayout l({It(32, 1, "laneid"), It(2, 2)}, {}, offset);
  ir::ObjectRef s = LayoutStorage(l);
  EXPECT_TRUE(ir::StructuralEqual(s, TileLayout({It(2, 2)}, {}, offset)));
  EXPECT_EQ(C(LayoutSize(s)), 2);
  EXPECT_EQ(C(LayoutSpan(s)), 6);
  EXPECT_EQ(C(LayoutSpan(l)), 37);
}

TEST(TileLayoutTest, PackAndUnpackScaleTheInnermostIter) {
  TileLayout l({It(8, 16), It(16, 1)}, {}, {});
  absl::StatusOr<ir::ObjectRef> p = PackLayout(l, 2);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(ir::StructuralEqual(*p, TileLayout({It(8, 8), It(8, 1)}, {}, {})));
  absl::StatusOr<ir::ObjectRef> u = UnpackLayout(l, 2);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(ir::StructuralEqual(*u, TileLayout({It(8, 32), It(16, 2), It(2, 1)}, {}, {})));
  // An innermost iter that is not contiguous cannot be packed.
  EXPECT_FALSE(PackLayout(TileLayout({It(16, 2)}, {}, {}), 2).ok());
}

TEST(TileLayoutTest, CanonicalizeDropsUnitsAndFusesContiguousIters) {
  ir::Map<ir::String, PrimExpr> zero;
  zero.Set(ir::String("m"), I(0));
  TileLayout l({It(1, 2), It(2, 8), It(8, 1), It(4, 1, "laneid")}, {}, zero);
  TileLayout c = CanonicalizeLayout(l);
  EXPECT_TRUE(ir::StructuralEqual(c, TileLayout({It(16, 1), It(4, 1, "laneid")}, {}, {})));
}

TEST(TileLayoutTest, TileInterleavesOuterAndInnerGroups) {
  // An atom S[(1, 2) : (2, 1)] over lanes S[32 : 1 @ laneid] as (8, 4) tiles of (1, 2): rows
  // come from lanes 4 apart, columns from lanes 1 apart (the two lane iters fuse into one) then
  // the atom's two elements.
  TileLayout atom({It(1, 2), It(2, 1)}, {}, {});
  TileLayout lanes({It(32, 1, "laneid")}, {}, {});
  absl::StatusOr<TileLayout> t = TileLayoutBy(atom, lanes, {I(8), I(4)}, {I(1), I(2)});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(ir::StructuralEqual(*t, TileLayout({It(32, 1, "laneid"), It(2, 1)}, {}, {})))
      << (*t)->shard.size();
  // Outer strides on the inner layout's axis are scaled by its span there.
  TileLayout inner({It(2, 1)}, {}, {});
  TileLayout outer({It(4, 1)}, {}, {});
  absl::StatusOr<TileLayout> u = TileLayoutBy(inner, outer, {I(4)}, {I(2)});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(ir::StructuralEqual(*u, TileLayout({It(8, 1)}, {}, {})));
  EXPECT_FALSE(TileLayoutBy(inner, outer, {I(4), I(1)}, {I(2)}).ok());
}

}  // namespace
}  // namespace kiln::tir
