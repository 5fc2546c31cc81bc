// What TVM v0.26's TIRx tile/device DSL becomes in kiln's IR (parser/parse_tile.cc): the
// device-entry attribute, ScopeIdDefStmt, the ptx dialect's call layout, filled-in T.nki
// defaults, the scalar-buffer sugar and buffer layouts, checked node by node (the round trip alone would accept a
// consistent but wrong representation).
#include <string>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::script {
namespace {

using namespace ir;  // NOLINT

PrimFunc Parse(const std::string& src) {
  absl::StatusOr<ObjectRef> r = ParseScript(src, "tile.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Downcast<PrimFunc>(*r) : PrimFunc();
}

// The statements of a body in order, stepping through the "rest of the block" nesting.
std::vector<Stmt> Flatten(const Stmt& s) {
  std::vector<Stmt> out;
  for (Stmt cur = s; cur.defined();) {
    out.push_back(cur);
    if (const auto* a = cur.as<AttrStmtNode>()) cur = a->body;
    else if (const auto* d = cur.as<ScopeIdDefStmtNode>()) cur = d->body;
    else if (const auto* b = cur.as<AllocBufferNode>()) cur = b->body;
    else if (const auto* q = cur.as<SeqStmtNode>()) {
      out.pop_back();
      for (const Stmt& x : q->seq) for (const Stmt& y : Flatten(x)) out.push_back(y);
      break;
    } else {
      break;
    }
  }
  return out;
}

std::string Str(const PrimExpr& e) {
  const auto* s = e.as<StringImmNode>();
  return s ? s->value : "<not a string>";
}

TEST(TileDslTest, DeviceEntryAndScopeIds) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main(A: T.Buffer((8,), "int32")):
    T.device_entry()
    bx, by = T.cta_id([2, 4])
    cx = T.cta_id_in_cluster([2], preferred=[4])
    tx = T.thread_id(dtype="uint32")
    A[bx] = by + cx + T.Cast("int32", tx)
)");
  std::vector<Stmt> body = Flatten(f->body);
  ASSERT_GE(body.size(), 5u);
  const auto* entry = body[0].as<AttrStmtNode>();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->attr_key, "tirx.device_entry");
  EXPECT_FALSE(entry->node.defined());
  EXPECT_EQ(entry->value.as<IntImmNode>()->value, 1);

  const auto* cta = body[1].as<ScopeIdDefStmtNode>();
  ASSERT_NE(cta, nullptr);
  EXPECT_EQ(cta->scope, ScopeBinding::kKernelCta);
  ASSERT_EQ(cta->def_ids.size(), 2u);
  EXPECT_EQ(cta->def_ids[0]->name, "bx");
  EXPECT_EQ(cta->def_ids[1]->name, "by");
  EXPECT_EQ(cta->extents[1].as<IntImmNode>()->value, 4);

  const auto* cluster = body[2].as<ScopeIdDefStmtNode>();
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(cluster->scope, ScopeBinding::kClusterCta);
  ASSERT_EQ(cluster->preferred_extents.size(), 1u);
  EXPECT_EQ(cluster->preferred_extents[0].as<IntImmNode>()->value, 4);

  const auto* thread = body[3].as<ScopeIdDefStmtNode>();
  ASSERT_NE(thread, nullptr);
  EXPECT_EQ(thread->scope, ScopeBinding::kCtaThread);
  EXPECT_TRUE(thread->extents.empty());  // deferred
  EXPECT_EQ(thread->def_ids[0]->dtype, DataType::UInt(32));
}

TEST(TileDslTest, PtxCallLayout) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main(A: T.Buffer((4,), "int32"), B: T.Buffer((1,), "uint64")):
    p: T.uint32
    T.ptx.st.global_.b32(T.ptx.addr(T.address_of(A[0]), 4), A[1], pred=p == 1)
    T.ptx.setp.lt.and_.s32(p, A[0], A[1], T.ptx.pred(p))
    T.ptx.mov.b64(T.ptx.SINK, p, B[0])
    T.ptx["fence.proxy.async.shared::cta"]()
)");
  std::vector<Stmt> body = Flatten(f->body);
  ASSERT_EQ(body.size(), 5u);
  auto call = [&](size_t i) { return body[i].as<EvaluateNode>()->value.as<CallNode>(); };
  // Operands, the guard, the tokens, the marker.
  const CallNode* st = call(1);
  EXPECT_EQ(st->op.as<OpNode>()->name, "tirx.ptx.st");
  EXPECT_TRUE(st->dtype.is_void());
  ASSERT_EQ(st->args.size(), 6u);
  EXPECT_EQ(st->args[0].as<CallNode>()->op.as<OpNode>()->name, "tirx.ptx.addr");
  EXPECT_NE(st->args[2].as<EQNode>(), nullptr);
  EXPECT_EQ(Str(st->args[3]), "global");
  EXPECT_EQ(Str(st->args[4]), "b32");
  EXPECT_EQ(Str(st->args[5]), "pred");
  EXPECT_EQ(Str(call(2)->args.back()), "p3");
  const CallNode* mov = call(3);
  ASSERT_EQ(mov->args.size(), 4u);  // p, B[0], the type, the marker: the sunk lane leaves no argument
  EXPECT_EQ(Str(mov->args.back()), "s0");
  const CallNode* fence = call(4);
  EXPECT_EQ(fence->op.as<OpNode>()->name, "tirx.ptx.fence");
  ASSERT_EQ(fence->args.size(), 4u);
  EXPECT_EQ(Str(fence->args[2]), "shared::cta");
}

TEST(TileDslTest, NkiDefaultsAndScalars) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    s = T.shared_scalar("float32")
    T.nki.matmul(A[0], A[1], A[2])
    T.nki.activation(A[0], A[1], "exp", scale=2.0)
    s = A[3]
)");
  std::vector<Stmt> body = Flatten(f->body);
  ASSERT_EQ(body.size(), 4u);
  const auto* alloc = body[0].as<AllocBufferNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_TRUE(alloc->buffer->shape.empty());
  EXPECT_EQ(alloc->buffer->scope(), "shared");
  const CallNode* matmul = body[1].as<EvaluateNode>()->value.as<CallNode>();
  ASSERT_EQ(matmul->args.size(), 4u);
  EXPECT_EQ(matmul->args[3].as<IntImmNode>()->value, 1);  // accum=True
  const CallNode* act = body[2].as<EvaluateNode>()->value.as<CallNode>();
  ASSERT_EQ(act->args.size(), 5u);
  EXPECT_EQ(act->args[3].as<FloatImmNode>()->value, 0.0);  // bias
  EXPECT_EQ(act->args[4].as<FloatImmNode>()->value, 2.0);  // scale
  const auto* store = body[3].as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->buffer.same_as(alloc->buffer));
  EXPECT_TRUE(store->indices.empty());
}

TEST(TileDslTest, Errors) {
  auto err = [](const std::string& body) {
    absl::StatusOr<ObjectRef> r =
        ParseScript("@T.prim_func\ndef main(A: T.Buffer((4,), \"int32\")):\n" + body, "tile.py");
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_NE(err("    bx = T.cta_id([4], dtype=\"float32\")\n    A[0] = 1\n").find("must be \"int32\" or \"uint32\""),
            std::string::npos);
  EXPECT_NE(err("    T.ptx.st.global_.b32(A[0], A[1], \"b32\", \"\")\n").find("either as attributes or as trailing strings"),
            std::string::npos);
  EXPECT_NE(err("    T.ptx.st.b32(A[0], A[1], preserve_dst=True)\n").find("requires pred"), std::string::npos);
  EXPECT_NE(err("    T.device_entry(1)\n").find("takes no arguments"), std::string::npos);
}

// The buffers a body allocates, in order.
std::vector<Buffer> Allocs(const PrimFunc& f) {
  std::vector<Buffer> out;
  for (const Stmt& s : Flatten(f->body)) {
    if (const auto* a = s.as<AllocBufferNode>()) out.push_back(a->buffer);
  }
  return out;
}

// extent:stride@axis for each iter, e.g. "2:512@F 128:1@P".
std::string Iters(const ObjectRef& layout) {
  const auto* l = layout.as<TileLayoutNode>();
  if (!l) return "<not a TileLayout>";
  std::string out;
  for (const Iter& it : l->shard) {
    const auto* e = it->extent.as<IntImmNode>();
    const auto* s = it->stride.as<IntImmNode>();
    if (!e || !s) return "<symbolic>";
    out += (out.empty() ? "" : " ") + std::to_string(e->value) + ":" + std::to_string(s->value) + "@" + it->axis;
  }
  return out;
}

TEST(TileDslTest, BufferLayoutDefaultsFollowTVM) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main():
    A = T.alloc_buffer((4, 8))
    B = T.alloc_buffer((4, 8), layout="default")
    C = T.alloc_buffer((4, 8), layout=T.TileLayout(T.S[4, 8]))
    D = T.alloc_buffer((4, 8), layout=T.TileLayout(T.S[(4, 8) : (8, 1)]))
    E = T.alloc_buffer((4, 8), layout=None)
    F = T.alloc_buffer((4, 8), layout=T.TileLayout(T.S[(4, 8) : (1, 4)]))
    G = T.alloc_buffer((4, 8), scope="trn.sbuf", layout=None)
    A[0, 0] = B[0, 0] + C[0, 0] + D[0, 0] + E[0, 0] + F[0, 0] + G[0, 0]
)");
  std::vector<Buffer> b = Allocs(f);
  ASSERT_EQ(b.size(), 7u);
  // No layout=, "default" and a layout equal to TVM's DefaultLayout(shape) are one thing.
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(b[i]->layout.defined()) << i;
    EXPECT_FALSE(b[i]->no_layout) << i;
  }
  // layout=None differs from the default in a TIRx function...
  EXPECT_TRUE(b[4]->no_layout);
  EXPECT_FALSE(StructuralEqual(b[0], b[4]));
  EXPECT_EQ(Iters(b[5]->layout), "4:1@m 8:4@m");
  // ... but not for a Trainium buffer, whose default is no layout.
  EXPECT_FALSE(b[6]->no_layout);
}

TEST(TileDslTest, LayoutNoneIsTheDefaultInSTir) {
  PrimFunc f = Parse(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32", layout=None), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("copy"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
)");
  ASSERT_EQ(f->buffer_map.size(), 2u);
  EXPECT_FALSE(f->buffer_map.value_at(0)->no_layout);
  EXPECT_FALSE(f->buffer_map.value_at(0)->layout.defined());
}

TEST(TileDslTest, TrainiumAnnotationsBecomeTileLayouts) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main():
    A = T.alloc_buffer((256, 512), scope="trn.sbuf", layout="PF", allocated_addr=[8193])
    B = T.alloc_buffer((128, 512), scope="trn.sbuf", layout="PF")
    C = T.alloc_buffer((4, 16, 64), scope="trn.sbuf", layout="PPF")
    D = T.alloc_buffer((8, 128, 512), scope="trn.psum", allocated_addr=[0, 3])
    A[0, 0] = B[0, 0] + C[0, 0, 0] + D[0, 0, 0]
)");
  std::vector<Buffer> b = Allocs(f);
  ASSERT_EQ(b.size(), 4u);
  // 256 partitions split into 2 x 128: the 2 goes outermost on the free axis.
  EXPECT_EQ(Iters(b[0]->layout), "2:512@F 128:1@P 512:1@F");
  EXPECT_EQ(Iters(b[1]->layout), "128:1@P 512:1@F");
  EXPECT_EQ(Iters(b[2]->layout), "4:16@P 16:1@P 64:1@F");
  ASSERT_EQ(b[0]->allocated_addr.size(), 1u);
  EXPECT_EQ(b[0]->allocated_addr[0].as<IntImmNode>()->value, 8193);
  ASSERT_EQ(b[3]->allocated_addr.size(), 2u);
  EXPECT_EQ(b[3]->allocated_addr[1].as<IntImmNode>()->value, 3);
  EXPECT_FALSE(b[3]->layout.defined());
}

TEST(TileDslTest, LayoutSpecsCombineLikeTVM) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main():
    A = T.alloc_buffer((8,), layout=T.TileLayout(T.S[8 : 1 @ Axis.warpid] + T.R[4 : 2 @ Axis.laneid] + 1 @ Axis.laneid + 5 + 2 @ Axis.laneid))
    A[0] = T.float32(0)
)");
  std::vector<Buffer> b = Allocs(f);
  ASSERT_EQ(b.size(), 1u);
  const auto* l = b[0]->layout.as<TileLayoutNode>();
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(Iters(b[0]->layout), "8:1@warpid");
  ASSERT_EQ(l->replica.size(), 1u);
  EXPECT_EQ(l->replica[0]->axis, "laneid");
  // Offsets on one axis add up; a plain number is on the memory axis.
  ASSERT_EQ(l->offset.size(), 2u);
  int64_t lane = l->offset.Find(String("laneid")), m = l->offset.Find(String("m"));
  ASSERT_GE(lane, 0);
  ASSERT_GE(m, 0);
  EXPECT_EQ(l->offset.value_at(lane).as<IntImmNode>()->value, 3);
  EXPECT_EQ(l->offset.value_at(m).as<IntImmNode>()->value, 5);
}

TEST(TileDslTest, BufferViewRedeclaresTheStorage) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main():
    S = T.alloc_buffer((64, 8), "float32", scope="shared")
    V = S.view(8, -1)
    V[0, 1] = T.float32(1)
)");
  Buffer parent;
  Stmt s = f->body;
  while (const auto* a = s.as<AllocBufferNode>()) {
    parent = a->buffer;
    s = a->body;
  }
  const auto* decl = s.as<DeclBufferNode>();
  ASSERT_NE(decl, nullptr);
  ASSERT_TRUE(parent.defined());
  const Buffer& v = decl->buffer;
  EXPECT_EQ(v->data.get(), parent->data.get());
  EXPECT_EQ(v->scope(), "shared");
  ASSERT_EQ(v->shape.size(), 2u);
  EXPECT_EQ(v->shape[1].as<IntImmNode>()->value, 64);
  // The view keeps the parent's (default) layout, which is not the default of its own shape.
  EXPECT_EQ(Iters(v->layout), "64:8@m 8:1@m");
}

TEST(TileDslTest, TensorMapHandlesArePointersToTensorMapType) {
  PrimFunc f = Parse(R"(
@T.prim_func
def main(A_map: T.TensorMap(), B_map: T.handle("tensormap"), C: T.handle("float32")):
    T.evaluate(T.address_of(A_map))
)");
  ASSERT_EQ(f->params.size(), 3u);
  const auto* a = f->params[0]->ty.as<PointerTypeNode>();
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->element_type.as<TensorMapTypeNode>(), nullptr);
  EXPECT_TRUE(StructuralEqual(f->params[0]->ty, f->params[1]->ty));
  EXPECT_FALSE(StructuralEqual(f->params[0]->ty, f->params[2]->ty));
}

}  // namespace
}  // namespace kiln::script
