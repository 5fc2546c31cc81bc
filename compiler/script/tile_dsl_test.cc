// What TVM v0.26's TIRx tile/device DSL becomes in kiln's IR (parser/parse_tile.cc): the
// device-entry attribute, ScopeIdDefStmt, the ptx dialect's call layout, filled-in T.nki
// defaults and the scalar-buffer sugar, checked node by node (the round trip alone would accept a
// consistent but wrong representation).
#include <string>
#include <vector>

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
    p: T.int32
    T.ptx.st.global_.b32(T.ptx.addr(T.address_of(A[0]), 4), A[1], pred=p == 1)
    T.ptx.setp.lt.s32(T.ptx.pred(p), A[0], A[1])
    T.ptx.mov.b64(T.ptx.SINK, B[0])
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
  EXPECT_EQ(Str(call(2)->args.back()), "p0");
  const CallNode* mov = call(3);
  ASSERT_EQ(mov->args.size(), 3u);  // the sunk lane leaves no argument
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

}  // namespace
}  // namespace kiln::script
