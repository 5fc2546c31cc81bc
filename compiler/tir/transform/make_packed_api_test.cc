// Structure of the generated entry; the checks themselves run in compiler/driver/tir_pipeline_test.
#include "compiler/tir/functor.h"
#include "gtest/gtest.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::tir::transform {
namespace {

using namespace ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

std::vector<std::string> AssertMessages(const Stmt& s) {
  struct Finder : StmtExprVisitor {
    std::vector<std::string> msgs;
    void VisitStmt_(const AssertStmtNode* op) override {
      msgs.push_back(op->error_kind + ": " + op->message_parts[0].str());
      StmtExprVisitor::VisitStmt_(op);
    }
  } f;
  f.VisitStmt(s);
  return f.msgs;
}

TEST(MakePackedApiTest, ExportedFunctionGetsKernelSignatureAndChecks) {
  Var n("n", DataType::Int(32)), h("A_handle", DataType::Handle()), alpha("alpha", DataType::Float(32));
  Buffer a = Buffer::Make("A", {n, n}, DataType::Float(32));
  Map<String, ObjectRef> attrs;
  attrs.Set(String("global_symbol"), String("f"));
  Stmt body = BufferStore(a, alpha, {I32(0)});
  PrimFunc func({h, alpha}, body, Type(), {{h, a}}, attrs);
  absl::StatusOr<PrimFunc> r = MakePackedAPI(func, "f");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ((*r)->params.size(), 4u);
  EXPECT_TRUE((*r)->buffer_map.empty());
  EXPECT_EQ((*r)->attrs.Get(String("calling_conv")).as<IntImmNode>()->value, 1);
  std::vector<std::string> expect = {
      "TypeError: f: expected 2 arguments (A, alpha)",
      "TypeError: f: argument A (#0) must be a tensor (DLTensor*)",
      "TypeError: f: argument alpha (#1) must be a float (float32)",
      "TypeError: f: argument A is NULL, expected a tensor",
      "ValueError: f: argument A.ndim has an unsatisfied constraint: 2 == A.ndim",
      "TypeError: f: argument A.dtype has an unsatisfied constraint: A.dtype == float32",
      // n is bound by the first dim and checked by the second.
      "ValueError: f: argument A.shape[1] has an unsatisfied constraint: n == A.shape[1]",
      "ValueError: f: argument A.strides has an unsatisfied constraint: A must be compact (row-major contiguous)",
      "ValueError: f: argument A.byte_offset has an unsatisfied constraint: 0 == A.byte_offset",
      "ValueError: f: argument A.data is NULL",
      "ValueError: f: argument A.data is misaligned: expected an address that is a multiple of 4 bytes",
      "ValueError: f: argument A.device_type has an unsatisfied constraint: 1 (cpu) == A.device_type",
  };
  EXPECT_EQ(AssertMessages((*r)->body), expect);
}

// The original body, after every check, is the compute_scope named "<symbol>_compute_", TVM's
// marker that backends outline.
TEST(MakePackedApiTest, BodyIsTheComputeScopeAfterTheChecks) {
  Var h("A_handle", DataType::Handle());
  Buffer a = Buffer::Make("A", {I32(4)}, DataType::Float(32));
  Map<String, ObjectRef> attrs;
  attrs.Set(String("global_symbol"), String("g"));
  Stmt body = BufferStore(a, FloatImm(DataType::Float(32), 1.0), {I32(0)});
  absl::StatusOr<PrimFunc> r = MakePackedAPI(PrimFunc({h}, body, Type(), {{h, a}}, attrs), "g");
  ASSERT_TRUE(r.ok()) << r.status();
  struct Finder : StmtExprVisitor {
    std::vector<const AttrStmtNode*> scopes;
    int asserts_inside = 0;
    void VisitStmt_(const AttrStmtNode* op) override {
      if (op->attr_key == "compute_scope") scopes.push_back(op);
      StmtExprVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const AssertStmtNode* op) override {
      if (!scopes.empty()) ++asserts_inside;
      StmtExprVisitor::VisitStmt_(op);
    }
  } f;
  f.VisitStmt((*r)->body);
  ASSERT_EQ(f.scopes.size(), 1u);
  EXPECT_EQ(f.asserts_inside, 0);
  const auto* name = f.scopes[0]->value.as<StringImmNode>();
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->value, "g_compute_");
  EXPECT_TRUE(f.scopes[0]->body.same_as(body));
}

TEST(MakePackedApiTest, InternalFunctionTakesDataPointers) {
  Var h("A_handle", DataType::Handle()), x("x", DataType::Int(32));
  Buffer a = Buffer::Make("A", {I32(4)}, DataType::Int(32));
  PrimFunc func({h, x}, BufferStore(a, x, {I32(0)}), Type(), {{h, a}});
  absl::StatusOr<PrimFunc> r = MakePackedAPI(func, "helper");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ((*r)->params.size(), 2u);
  EXPECT_TRUE((*r)->params[0].same_as(a->data));
  EXPECT_TRUE((*r)->buffer_map.empty());
  EXPECT_FALSE((*r)->attrs.count(String("calling_conv")));
}

TEST(MakePackedApiTest, UnsupportedScalarDtypeFails) {
  Var v("v", DataType::Float(32, 4));
  Map<String, ObjectRef> attrs;
  attrs.Set(String("global_symbol"), String("g"));
  absl::StatusOr<PrimFunc> r = MakePackedAPI(PrimFunc({v}, Evaluate(I32(0)), Type(), {}, attrs), "g");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "g: parameter v has dtype float32x4, which the kernel ABI cannot pass");
}

}  // namespace
}  // namespace kiln::tir::transform
