// TVM v0.26's derived buffer views (parser/parse_tile_views.cc): each view is a DeclBuffer over
// its parent's data with the shape, layout and elem_offset TVM's Buffer methods compute, checked
// field by field, then printed and parsed back to the same IR.
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/structural.h"
#include "compiler/script/printer/printer.h"
#include "compiler/script/script.h"
#include "compiler/tir/analysis/verifier.h"
#include "gtest/gtest.h"

namespace kiln::script {
namespace {

using namespace ir;  // NOLINT

constexpr char kHead[] = R"(from tvm.script import tirx as T
from tvm.tirx.layout import Axis

@T.prim_func
def func():
    T.device_entry()
)";

PrimFunc Parse(const std::string& src) {
  absl::StatusOr<ObjectRef> r = ParseScript(src, "views.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Downcast<PrimFunc>(*r) : PrimFunc();
}

// The buffers the body declares over other buffers' data, outermost first.
std::vector<Buffer> Views(const Stmt& s) {
  std::vector<Buffer> out;
  for (Stmt cur = s; cur.defined();) {
    if (const auto* d = cur.as<DeclBufferNode>()) {
      out.push_back(d->buffer);
      cur = d->body;
    } else if (const auto* a = cur.as<AttrStmtNode>()) {
      cur = a->body;
    } else if (const auto* b = cur.as<AllocBufferNode>()) {
      cur = b->body;
    } else if (const auto* q = cur.as<SeqStmtNode>()) {
      for (const Stmt& x : q->seq) for (const Buffer& v : Views(x)) out.push_back(v);
      break;
    } else {
      break;
    }
  }
  return out;
}

Iter It(int64_t extent, int64_t stride, const char* axis = "m") {
  return Iter(IntImm(DataType::Int(32), extent), IntImm(DataType::Int(32), stride), axis);
}
int64_t C(const PrimExpr& e) {
  const auto* imm = e.as<IntImmNode>();
  EXPECT_NE(imm, nullptr);
  return imm ? imm->value : -1;
}
std::vector<int64_t> Shape(const Buffer& b) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : b->shape) out.push_back(C(d));
  return out;
}

// Parses `body`, checks that printing and re-parsing gives the same function, returns the views.
std::vector<Buffer> ViewsOf(const std::string& body) {
  PrimFunc f = Parse(kHead + body);
  if (!f.defined()) return {};
  std::string text = printer::Print(f);
  PrimFunc again = Parse(text);
  EXPECT_TRUE(StructuralEqual(f, again)) << text;
  EXPECT_EQ(printer::Print(again), text);
  return Views(f->body);
}

std::string ParseError(const std::string& body) {
  absl::StatusOr<ObjectRef> r = ParseScript(kHead + body, "views.py");
  EXPECT_FALSE(r.ok());
  return std::string(r.status().message());
}

TEST(TileViewsTest, SubDropsAndNarrowsThroughTheLayoutStrides) {
  std::vector<Buffer> v = ViewsOf(R"(
    A = T.alloc_buffer([8, 16], "float16", scope="local", layout=T.TileLayout(T.S[(2, 4, 16) : (1024, 64, 1)]))
    B = A.sub[5]
    C = A.sub[4:8]
    D = A.sub[:, 1::2]
    B[0] = T.float16(0)
)");
  ASSERT_EQ(v.size(), 4u);  // B, C, and D's split view and the view it picks from
  // 5 -> (5 // 4, 5 % 4) = (1, 1) -> 1 * 1024 + 1 * 64; the default layout of (16,) remains.
  EXPECT_EQ(Shape(v[0]), (std::vector<int64_t>{16}));
  EXPECT_EQ(C(v[0]->elem_offset), 1088);
  EXPECT_FALSE(v[0]->layout.defined());
  // [4:8] covers whole blocks of the inner iter (4): one block of 1024 further.
  EXPECT_EQ(Shape(v[1]), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(C(v[1]->elem_offset), 1024);
  EXPECT_TRUE(StructuralEqual(v[1]->layout, TileLayout({It(1, 1024), It(4, 64), It(16, 1)}, {}, {})));
  // [:, 1::2]: (8, 16) viewed as (8, 8, 2) keeping A's layout, then index 1 of the last dim.
  EXPECT_EQ(Shape(v[2]), (std::vector<int64_t>{8, 8, 2}));
  EXPECT_EQ(Shape(v[3]), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(C(v[3]->elem_offset), 1);
  EXPECT_TRUE(StructuralEqual(v[3]->layout, TileLayout({It(2, 1024), It(4, 64), It(8, 2)}, {}, {})));
  for (const Buffer& b : v) EXPECT_EQ(b->data.get(), v[0]->data.get());
}

TEST(TileViewsTest, SubRejectsWhatTvmRejects) {
  std::string head = R"(
    A = T.alloc_buffer([8, 16], "float16", scope="local", layout=T.TileLayout(T.S[(2, 4, 16) : (1024, 64, 1)]))
)";
  EXPECT_NE(ParseError(head + "    B = A.sub[2:6]\n").find("multiples of the inner iter block 4"), std::string::npos);
  EXPECT_NE(ParseError(head + "    B = A.sub[8]\n").find("out of range"), std::string::npos);
  EXPECT_NE(ParseError(head + "    B = A.sub[0, 0, 0]\n").find("3 indices for buffer of rank 2"), std::string::npos);
  EXPECT_NE(ParseError(head + "    B = A.sub(1)\n").find("A.sub is indexed, not called"), std::string::npos);
}

TEST(TileViewsTest, PermuteAndRearrangeMoveLayoutGroups) {
  std::vector<Buffer> v = ViewsOf(R"(
    A = T.alloc_buffer([8, 4], "float16", scope="local", layout=T.TileLayout(T.S[(8, 4) : (4, 1)]))
    B = A.permute(1, 0)
    C = A.rearrange("(outer inner) tail -> outer tail inner", outer=2)
    B[0, 0] = T.float16(0)
)");
  ASSERT_EQ(v.size(), 4u);  // B; C's split, permute and merge
  EXPECT_EQ(Shape(v[0]), (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(StructuralEqual(v[0]->layout, TileLayout({It(4, 1), It(8, 4)}, {}, {})));
  EXPECT_EQ(Shape(v[3]), (std::vector<int64_t>{2, 4, 4}));
  EXPECT_TRUE(StructuralEqual(v[3]->layout, TileLayout({It(2, 16), It(4, 1), It(4, 4)}, {}, {})));
  // A swizzle stays around the permuted tile layout.
  std::vector<Buffer> s = ViewsOf(R"(
    A = T.alloc_buffer([4, 64], "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 64) : (64, 1)])))
    B = A.permute(1, 0)
)");
  ASSERT_EQ(s.size(), 1u);
  const auto* c = s[0]->layout.as<ComposeLayoutNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(StructuralEqual(c->tile_layout, TileLayout({It(64, 1), It(4, 64)}, {}, {})));
}

TEST(TileViewsTest, TileSplitsPicksAndMerges) {
  std::vector<Buffer> v = ViewsOf(R"(
    A = T.alloc_buffer([128, 16], "float16", scope="shared", layout=T.TileLayout(T.S[(128, 16) : (16, 1)]))
    K = A.tile((0, (2, 4, -1)))[1, 3, :]
    K[0, 0] = T.float16(0)
)");
  // The split view (2, 4, 16, 16), then the picks from the innermost: index 3, then index 1.
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(Shape(v[0]), (std::vector<int64_t>{2, 4, 16, 16}));
  EXPECT_EQ(Shape(v[2]), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(C(v[2]->elem_offset), 1 * 1024 + 3 * 256);
}

TEST(TileViewsTest, LocalSpansThePerThreadStorage) {
  std::vector<Buffer> v = ViewsOf(R"(
    A = T.alloc_buffer([32, 2], "float32", scope="local", layout=T.TileLayout(T.S[(32, 2) : (1 @ Axis.laneid, 2)] + 3))
    B = A.local()
    C = A.local(2, 3)
    D = A.local(2, layout=A.layout.storage())
    B[5] = T.float32(1)
)");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(Shape(v[0]), (std::vector<int64_t>{6}));  // 2 slots 2 apart, after an offset of 3
  EXPECT_FALSE(v[0]->layout.defined());
  EXPECT_EQ(Shape(v[1]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Shape(v[2]), (std::vector<int64_t>{2}));
  Map<String, PrimExpr> three;
  three.Set(String("m"), IntImm(DataType::Int(32), 3));
  EXPECT_TRUE(StructuralEqual(v[2]->layout, TileLayout({It(2, 2)}, {}, three)));
  std::string err = ParseError(R"(
    A = T.alloc_buffer((4,), "float32", scope="local", layout=None)
    B = A.local()
)");
  EXPECT_NE(err.find("parent buffer has layout=None"), std::string::npos) << err;
}

TEST(TileViewsTest, ViewDtypePacksAndUnpacks) {
  std::vector<Buffer> v = ViewsOf(R"(
    A = T.alloc_buffer([8, 16], "float16", scope="shared")
    B = A.view("float32")
    C = A.view("int8")
)");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0]->dtype, DataType::Float(32));
  EXPECT_EQ(Shape(v[0]), (std::vector<int64_t>{8, 8}));
  // Packed, S[(8, 16) : (16, 1)] becomes S[(8, 8) : (8, 1)]: the default layout of (8, 8).
  EXPECT_FALSE(v[0]->layout.defined()) << printer::Print(v[0]->layout);
  EXPECT_EQ(v[1]->dtype, DataType::Int(8));
  EXPECT_EQ(Shape(v[1]), (std::vector<int64_t>{8, 32}));
  EXPECT_TRUE(StructuralEqual(v[1]->layout, TileLayout({It(8, 32), It(16, 2), It(2, 1)}, {}, {}))) << printer::Print(v[1]->layout);
}

TEST(TileViewsTest, ElemOffsetOfIsABufferOffsetCall) {
  PrimFunc f = Parse(std::string(kHead) + R"(
    A = T.alloc_buffer([8, 8], "float16", scope="shared", layout=T.TileLayout(T.S[(8, 8) : (1, 8)]))
    B = T.decl_buffer([8], "float16", A.data, elem_offset=A.elem_offset_of([2, 3]))
    B[0] = T.float16(0)
)");
  std::vector<Buffer> v = Views(f->body);
  ASSERT_EQ(v.size(), 1u);
  const auto* call = v[0]->elem_offset.as<CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op.as<OpNode>()->name, "tirx.buffer_offset");
  EXPECT_EQ(call->dtype, DataType::Int(32));
  ASSERT_EQ(call->args.size(), 1u);
  const auto* load = call->args[0].as<BufferLoadNode>();
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(C(load->indices[0]), 2);
  EXPECT_EQ(C(load->indices[1]), 3);
}

// Building applies no layout yet: a buffer with one (a view's included) and T.buffer_offset are
// refused at their line rather than read row-major.
TEST(TileViewsTest, BuildRulesRefuseLayouts) {
  PrimFunc f = Parse(R"(from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    D = A.permute(1, 0)
    B[0] = D[1, 2]
)");
  DiagnosticList diags;
  absl::Status st = tir::VerifyPrimFunc(f, &diags);
  ASSERT_FALSE(st.ok());
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].message, "buffer D has a T.TileLayout layout, which is not lowered by kiln yet");
  EXPECT_EQ(diags.items()[0].span.line, 5);
  tir::VerifyOptions parser_rules;
  parser_rules.backend_rules = false;
  EXPECT_TRUE(tir::VerifyPrimFunc(f, nullptr, IRModule(), parser_rules).ok());
}

TEST(TileViewsTest, WarpRoleIsAnIfWithSetmaxnreg) {
  PrimFunc f = Parse(R"(from tvm.script import tirx as T
from tvm.tirx.lang.warp_role import WarpRole

@T.prim_func
def func(A: T.Buffer((8,), "float32")):
    T.device_entry()
    warp = T.warp_id([4])
    with WarpRole(warp, 1, regs=48):
        A[0] = T.float32(1)
    with WarpRole(warp, 2):
        A[1] = T.float32(2)
)");
  std::vector<const IfThenElseNode*> ifs;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (!s.defined()) return;
    if (const auto* i = s.as<IfThenElseNode>()) ifs.push_back(i);
    if (const auto* a = s.as<AttrStmtNode>()) walk(a->body);
    if (const auto* d = s.as<ScopeIdDefStmtNode>()) walk(d->body);
    if (const auto* q = s.as<SeqStmtNode>()) for (const Stmt& x : q->seq) walk(x);
  };
  walk(f->body);
  ASSERT_EQ(ifs.size(), 2u);
  const auto* eq = ifs[0]->condition.as<EQNode>();
  ASSERT_NE(eq, nullptr);
  EXPECT_EQ(C(eq->b), 1);
  EXPECT_FALSE(ifs[0]->else_case.defined());
  // regs=48: setmaxnreg.dec first, then the body; without regs only the body.
  const auto* seq = ifs[0]->then_case.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->seq.size(), 2u);
  const auto* ev = seq->seq[0].as<EvaluateNode>();
  ASSERT_NE(ev, nullptr);
  EXPECT_NE(printer::Print(ev->value).find("setmaxnreg(48, \"dec\""), std::string::npos) << printer::Print(ev->value);
  EXPECT_NE(ifs[1]->then_case.as<BufferStoreNode>(), nullptr);
  std::string text = printer::Print(f);
  EXPECT_TRUE(StructuralEqual(f, Parse(text))) << text;
}

TEST(TileViewsTest, FewerIndicesThanDimsIsARegion) {
  PrimFunc f = Parse(R"(from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

SHAPE = (3, 4, 8)

@T.prim_func
def func():
    A = T.alloc_buffer(SHAPE, "float32", scope="local")
    B = T.alloc_buffer(SHAPE[1:], "float32", scope="local")
    Tx.copy(B, A[2])
)");
  std::string text = printer::Print(f);
  EXPECT_NE(text.find("T.tile.copy(B[0:4, 0:8], A[2, 0:4, 0:8])"), std::string::npos) << text;
  std::string err = ParseError(R"(
    A = T.alloc_buffer((3, 4), "float32", scope="local")
    B = T.alloc_buffer((4,), "float32", scope="local")
    B[0] = A[1]
)");
  EXPECT_NE(err.find("buffer region, not a value"), std::string::npos) << err;
}

}  // namespace
}  // namespace kiln::script
