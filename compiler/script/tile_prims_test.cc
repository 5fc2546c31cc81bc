// What TVM v0.26's TIRx tile primitives become in kiln's IR (parser/parse_tile_prims.cc) and how
// they print (printer/tile_prim_printer.cc): one TilePrimitiveCall per call, with its scope from
// the namespace, whole buffers widened to full regions, the in-place unary form, the config in key
// order, and TVM's printed text; plus the errors for what is not a tile primitive and the
// lowering check that rejects them (kiln does not lower them yet).
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

// TVM's printer test (test_print_kwargs_schedule_op_full_code) expects exactly this text.
constexpr char kMemset[] = R"(# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def test():
    A = T.alloc_buffer((16,))
    T.tile.memset(A[0:16], T.float32(1.25), dispatch="v10", bar=7, foo=42)
)";

PrimFunc Parse(const std::string& src) {
  absl::StatusOr<ObjectRef> r = ParseScript(src, "tile.py");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Downcast<PrimFunc>(*r) : PrimFunc();
}

// The tile primitive calls of a body, in order.
std::vector<const TilePrimitiveCallNode*> Calls(const Stmt& s) {
  std::vector<const TilePrimitiveCallNode*> out;
  if (!s.defined()) return out;
  if (const auto* c = s.as<TilePrimitiveCallNode>()) out.push_back(c);
  if (const auto* a = s.as<AllocBufferNode>()) return Calls(a->body);
  if (const auto* q = s.as<SeqStmtNode>()) {
    for (const Stmt& x : q->seq) {
      for (const auto* c : Calls(x)) out.push_back(c);
    }
  }
  return out;
}

std::string Print(const ObjectRef& node) { return printer::Print(node); }

TEST(TilePrimsTest, MemsetNode) {
  PrimFunc f = Parse(kMemset);
  std::vector<const TilePrimitiveCallNode*> calls = Calls(f->body);
  ASSERT_EQ(calls.size(), 1u);
  const TilePrimitiveCallNode* c = calls[0];
  EXPECT_EQ(c->op, "memset");
  EXPECT_EQ(c->scope, TileScope::kThread);
  EXPECT_EQ(c->dispatch, "v10");
  ASSERT_EQ(c->args.size(), 2u);
  const auto* dst = c->args[0].as<BufferRegionNode>();
  ASSERT_NE(dst, nullptr);
  EXPECT_EQ(dst->buffer->name, "A");
  const auto* value = c->args[1].as<FloatImmNode>();
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->value, 1.25);
  EXPECT_EQ(value->dtype, DataType::Float(32));
  std::vector<std::pair<String, ObjectRef>> config = c->config.items();
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config[0].first->value, "bar");
  EXPECT_EQ(config[1].first->value, "foo");
  const auto* foo = config[1].second.as<IntImmNode>();
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(foo->value, 42);
}

TEST(TilePrimsTest, PrintsAsTVMAndReadsBack) {
  PrimFunc f = Parse(kMemset);
  std::string text = Print(f);
  EXPECT_EQ(text, kMemset);
  PrimFunc again = Parse(text);
  EXPECT_TRUE(StructuralEqual(f, again));
}

TEST(TilePrimsTest, TxAliasScopesBuffersAndInPlace) {
  PrimFunc f = Parse(R"(from tvm.script.tirx import tile as Tx

@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 4), "float32"), W: T.Buffer((32,), "float32")):
    Tx.copy(B, A, workspace={"scratch": W})
    Tx.warp.fill(B[0:2, 0:4], 0.5)
    T.wg.exp(A[0:8, 0:4])
    T.tile.add(B, A, 2.0, scope="cta")
)");
  std::vector<const TilePrimitiveCallNode*> calls = Calls(f->body);
  ASSERT_EQ(calls.size(), 4u);
  // A whole buffer is its full region.
  const auto* dst = calls[0]->args[0].as<BufferRegionNode>();
  ASSERT_NE(dst, nullptr);
  ASSERT_EQ(dst->region.size(), 2u);
  EXPECT_EQ(Downcast<IntImm>(dst->region[0]->extent)->value, 8);
  EXPECT_EQ(calls[0]->workspace.size(), 1u);
  EXPECT_EQ(calls[1]->op, "fill");
  EXPECT_EQ(calls[1]->scope, TileScope::kWarp);
  EXPECT_TRUE(calls[1]->args[1].as<FloatImmNode>());  // a Python float is a float32 constant
  // exp(dst) is exp(dst, dst), as TVM's builder makes it.
  EXPECT_EQ(calls[2]->scope, TileScope::kWarpgroup);
  ASSERT_EQ(calls[2]->args.size(), 2u);
  EXPECT_TRUE(StructuralEqual(calls[2]->args[0], calls[2]->args[1]));
  EXPECT_EQ(calls[3]->scope, TileScope::kCta);

  std::string text = Print(f);
  EXPECT_NE(text.find(R"(T.tile.copy(B[0:8, 0:4], A[0:8, 0:4], workspace={"scratch": W}))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("T.warp.fill(B[0:2, 0:4], T.float32(0.5))"), std::string::npos) << text;
  EXPECT_NE(text.find("T.wg.exp(A[0:8, 0:4])\n"), std::string::npos) << text;
  EXPECT_NE(text.find("T.cta.add(B[0:8, 0:4], A[0:8, 0:4], T.float32(2.0))"), std::string::npos) << text;
  EXPECT_TRUE(StructuralEqual(f, Parse(text)));
}

TEST(TilePrimsTest, Errors) {
  auto err = [](const std::string& body) {
    absl::StatusOr<ObjectRef> r =
        ParseScript("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n" + body, "tile.py");
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_NE(err("    T.tile.frobnicate(A, 1.0)\n").find("'frobnicate' is not a tile primitive kiln reads"),
            std::string::npos);
  EXPECT_NE(err("    T.warp.copy(A, A, scope=\"cta\")\n").find("scope= is not allowed too"), std::string::npos);
  EXPECT_NE(err("    T.tile.memset(A, 1.0, scope=\"block\")\n").find("unknown scope 'block'"), std::string::npos);
  EXPECT_NE(err("    T.tile.memset(1.0, A)\n").find("'dst' must be a buffer or a buffer region"), std::string::npos);
  EXPECT_NE(err("    T.tile.memset(A, 1.0, 2.0)\n").find("takes at most 2 operands"), std::string::npos);
  EXPECT_NE(err("    T.tile.copy(A, A, dst=A)\n").find("operand 'dst' is given twice"), std::string::npos);
  EXPECT_NE(err("    T.tile.exp(A, bias=A, scale=None, src=None)\n").find("ok"), std::string::npos);
}

// gemm and the reductions: TVM's builder fills the defaults (flags False, alpha 1.0, beta 0.0,
// axes -1) and wraps one axis in a tuple, so the written and the defaulted forms are one node,
// printed with every operand as TVM prints it.
TEST(TilePrimsTest, GemmAndReductionsFillDefaults) {
  const char* head = "@T.prim_func\ndef main(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8,), \"float32\")):\n";
  PrimFunc short_form = Parse(std::string(head) + "    T.cta.gemm(A, A, A, A)\n    T.warp.sum(B, A, accum=True)\n");
  PrimFunc long_form = Parse(std::string(head) +
                             "    T.cta.gemm(A[0:8, 0:8], A, A, A, False, transpose_B=False, alpha=1.0, beta=0.0)\n"
                             "    T.warp.sum(B, A, -1, True)\n");
  EXPECT_TRUE(StructuralEqual(short_form, long_form));
  std::vector<const TilePrimitiveCallNode*> calls = Calls(short_form->body);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->args.size(), 8u);
  ASSERT_EQ(calls[1]->args.size(), 4u);
  ASSERT_NE(calls[1]->args[2].as<ArrayNode>(), nullptr);
  std::string printed = Print(short_form);
  EXPECT_NE(printed.find("T.cta.gemm(A[0:8, 0:8], A[0:8, 0:8], A[0:8, 0:8], A[0:8, 0:8], False, False, T.float32(1.0), "
                         "T.float32(0.0))"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("T.warp.sum(B[0:8], A[0:8, 0:8], [-1], True)"), std::string::npos) << printed;
  auto err = [&](const std::string& body) {
    absl::StatusOr<ObjectRef> r = ParseScript(std::string(head) + body, "tile.py");
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_NE(err("    T.tile.sum(B, A, axes=1.5)\n").find("axes= takes an int or a tuple of ints"), std::string::npos);
  EXPECT_NE(err("    T.tile.gemm(A, A, 1.0, A)\n").find("'B' must be a buffer or a buffer region"), std::string::npos);
  EXPECT_NE(err("    T.tile.max(B, A, (0, 1), False)\n").find("ok"), std::string::npos);
}

// Lowering's input check (the TIR verifier with the backend rules) names the call's position.
TEST(TilePrimsTest, LoweringRejectsAtTheCall) {
  PrimFunc f = Parse(kMemset);
  DiagnosticList diags;
  absl::Status st = tir::VerifyPrimFunc(f, &diags);
  ASSERT_FALSE(st.ok());
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items()[0].message, "tile primitive T.tile.memset is not lowered by kiln yet");
  EXPECT_EQ(diags.items()[0].span.line, 7);
  EXPECT_EQ(diags.items()[0].span.column, 5);
}

}  // namespace
}  // namespace kiln::script
