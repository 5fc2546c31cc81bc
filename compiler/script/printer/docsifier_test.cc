// Name de-duplication and scoping: distinct variables or buffers that share a name print as
// `i`, `i_1`, ... while both are live; a name is reused once its scope has ended.
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/script/printer/printer.h"
#include "gtest/gtest.h"

namespace kiln::script::printer {
namespace {

using namespace ir;  // NOLINT

const DataType f32 = DataType::Float(32);
const DataType i32 = DataType::Int(32);

TEST(DocsifierTest, NestedSameNamesAreSuffixedAndSiblingsReuse) {
  Buffer A = Buffer::Make("A", {4, 4}, f32);
  Var h("A", PointerType(PrimType(f32)));
  Var i1("i", i32), i2("i", i32), i3("i", i32), i4("i", i32);
  Buffer t1 = Buffer::Make("tmp", {4}, f32), t2 = Buffer::Make("tmp", {4}, f32);
  Stmt nested = For(i1, 0, 4, ForKind::kParallel,
                    For(i2, 0, 4, ForKind::kParallel, BufferStore(A, FloatImm(f32, 0.0), {i1, i2})));
  Stmt allocs = AllocBuffer(t1, AllocBuffer(t2, SeqStmt({BufferStore(t1, BufferLoad(t2, {0}), {0}),
                                                          For(i4, 0, 4, ForKind::kSerial, Evaluate(i4))})));
  Stmt sibling = For(i3, 0, 4, ForKind::kParallel, allocs);
  PrimFunc f({h}, SeqStmt({nested, sibling}), Type(), {{h, A}}, {{"global_symbol", String("main")}});
  std::string text = Print(f);
  EXPECT_NE(text.find("    for i in T.parallel(4):\n"
                      "        for i_1 in T.parallel(4):\n"
                      "            A[i, i_1] = T.float32(0.0)\n"
                      "    for i in T.parallel(4):\n"
                      "        tmp = T.alloc_buffer((4,))\n"
                      "        tmp_1 = T.alloc_buffer((4,))\n"
                      "        tmp[0] = tmp_1[0]\n"
                      "        for i_1 in range(4):\n"
                      "            T.evaluate(i_1)\n"),
            std::string::npos)
      << text;
}

TEST(DocsifierTest, KeywordsAndInvalidNamesAreMadeIdentifiers) {
  Var a("lambda", i32), b("0x", i32), c("", i32);
  PrimFunc f({a, b, c}, Evaluate(Add(Add(a, b), c)), Type(), {}, {{"global_symbol", String("main")}});
  EXPECT_NE(Print(f).find("def main(lambda_1: T.int32, v0x: T.int32, v: T.int32):\n"
                          "    T.evaluate(lambda_1 + v0x + v)\n"),
            std::string::npos)
      << Print(f);
}

// Many live variables with one name stay linear-time and unique.
TEST(DocsifierTest, ManyClashingNames) {
  Stmt body = Evaluate(PrimExpr(0));
  std::vector<Var> vars;
  for (int k = 0; k < 2000; ++k) vars.emplace_back("v", i32);
  for (int k = 1999; k >= 0; --k) body = LetStmt(vars[k], k, body);
  PrimFunc f({}, body, Type(), {}, {{"global_symbol", String("main")}});
  std::string text = Print(f);
  EXPECT_NE(text.find("    v: T.let[T.int32] = 0\n    v_1: T.let[T.int32] = 1\n"), std::string::npos);
  EXPECT_NE(text.find("    v_1999: T.let[T.int32] = 1999\n"), std::string::npos);
}

}  // namespace
}  // namespace kiln::script::printer
