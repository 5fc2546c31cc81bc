#include "compiler/tir/analysis/abi_checks.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::tir {
namespace {

using namespace ::kiln::ir;  // NOLINT

PrimExpr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

std::vector<AbiCheck::Kind> Kinds(const std::vector<AbiCheck>& checks) {
  std::vector<AbiCheck::Kind> out;
  for (const AbiCheck& c : checks) out.push_back(c.kind);
  return out;
}

// f(A: Buffer((n, n), "float32", strides=(s, 1), elem_offset=off), k: int32): the first n is
// bound, the second checked; s and off are bound; k is an integer param.
TEST(AbiChecksTest, OrderBindingsAndMessages) {
  Var n("n", DataType::Int(32)), s("s", DataType::Int(32)), off("off", DataType::Int(32));
  Var a("a", DataType::Handle()), k("k", DataType::Int(32));
  Buffer buf = Buffer::Make("A", {n, n}, DataType::Float(32));
  buf.CopyOnWrite()->strides = {s, I32(1)};
  buf.CopyOnWrite()->elem_offset = off;
  Map<Var, Buffer> buffer_map;
  buffer_map.Set(a, buf);
  PrimFunc f({a, k}, Evaluate(I32(0)), Type(), buffer_map);
  absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, "f");
  ASSERT_TRUE(checks.ok()) << checks.status();
  using K = AbiCheck;
  EXPECT_EQ(Kinds(*checks), (std::vector<AbiCheck::Kind>{K::kNumArgs, K::kTypeIndex, K::kTypeIndex, K::kTensorNotNull,
                                                         K::kNDim, K::kDType, K::kShape, K::kShape, K::kStride,
                                                         K::kStride, K::kByteOffsetMultiple, K::kDataNotNull,
                                                         K::kDataAligned, K::kDevice}));
  const std::vector<AbiCheck>& c = *checks;
  EXPECT_EQ(c[0].message, "f: expected 2 arguments (A, k)");
  EXPECT_EQ(c[0].value, 2);
  EXPECT_EQ(c[1].param_kind, AbiParamKind::kTensor);
  EXPECT_EQ(c[1].message, "f: argument A (#0) must be a tensor (DLTensor*)");
  EXPECT_EQ(c[2].param_kind, AbiParamKind::kInt);
  EXPECT_EQ(c[2].message, "f: argument k (#1) must be an integer (int32)");
  EXPECT_EQ(c[4].message, "f: argument A.ndim has an unsatisfied constraint: 2 == A.ndim");
  EXPECT_EQ(c[5].message, "f: argument A.dtype has an unsatisfied constraint: A.dtype == float32");
  // shape[0] defines n; shape[1] checks it.
  EXPECT_TRUE(c[6].bind.same_as(n));
  EXPECT_FALSE(c[7].bind.defined());
  EXPECT_EQ(c[7].dim, 1);
  EXPECT_EQ(c[7].message, "f: argument A.shape[1] has an unsatisfied constraint: n == A.shape[1]");
  EXPECT_TRUE(c[8].bind.same_as(s));
  EXPECT_EQ(c[9].message, "f: argument A.strides[1] has an unsatisfied constraint: 1 == A.strides[1]");
  EXPECT_TRUE(c[10].bind.same_as(off));
  EXPECT_EQ(c[10].value, 4);
  EXPECT_EQ(c[10].message, "f: argument A.byte_offset has an unsatisfied constraint: A.byte_offset % 4 == 0");
  EXPECT_EQ(c[12].message, "f: argument A.data is misaligned: expected an address that is a multiple of 4 bytes");
  EXPECT_EQ(c[13].message, "f: argument A.device_type has an unsatisfied constraint: 1 (cpu) == A.device_type");
  EXPECT_EQ(c[13].value, 1);
}

// A compact buffer: one compact-strides check, a constant byte offset; a scalar param used as a
// dim is checked, not bound.
TEST(AbiChecksTest, CompactBufferAndScalarShape) {
  Var m("m", DataType::Int(32)), b("b", DataType::Handle());
  Buffer buf = Buffer::Make("B", {m, I32(3)}, DataType::Int(8));
  Map<Var, Buffer> buffer_map;
  buffer_map.Set(b, buf);
  PrimFunc f({m, b}, Evaluate(I32(0)), Type(), buffer_map);
  AbiCheckOptions options;
  options.device_type = 2;
  options.device_name = "cuda";
  absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, "g", options);
  ASSERT_TRUE(checks.ok()) << checks.status();
  using K = AbiCheck;
  EXPECT_EQ(Kinds(*checks), (std::vector<AbiCheck::Kind>{K::kNumArgs, K::kTypeIndex, K::kTypeIndex, K::kTensorNotNull,
                                                         K::kNDim, K::kDType, K::kShape, K::kShape,
                                                         K::kCompactStrides, K::kByteOffset, K::kDataNotNull,
                                                         K::kDevice}));
  const std::vector<AbiCheck>& c = *checks;
  EXPECT_EQ(c[6].message, "g: argument B.shape[0] has an unsatisfied constraint: m == B.shape[0]");
  EXPECT_EQ(c[8].message, "g: argument B.strides has an unsatisfied constraint: B must be compact (row-major contiguous)");
  EXPECT_EQ(c[9].message, "g: argument B.byte_offset has an unsatisfied constraint: 0 == B.byte_offset");
  EXPECT_EQ(c[11].message, "g: argument B.device_type has an unsatisfied constraint: 2 (cuda) == B.device_type");
}

// f(X: Buffer((n * 32,)), Y: Buffer((n, 32))): n is defined by Y, so X's constraint on it comes
// after Y's checks (MakePackedAPI read n before defining it, and the backends failed on that).
TEST(AbiChecksTest, ConstraintOnALaterDefinedVariableWaits) {
  Var n("n", DataType::Int(32)), x("x", DataType::Handle()), y("y", DataType::Handle());
  Map<Var, Buffer> buffer_map;
  buffer_map.Set(x, Buffer::Make("X", {Mul(n, I32(32))}, DataType::Float(32)));
  buffer_map.Set(y, Buffer::Make("Y", {n, I32(32)}, DataType::Float(32)));
  PrimFunc f({x, y}, Evaluate(I32(0)), Type(), buffer_map);
  absl::StatusOr<std::vector<AbiCheck>> checks = KernelAbiChecks(f, "f");
  ASSERT_TRUE(checks.ok()) << checks.status();
  size_t bind_n = checks->size(), check_x = checks->size();
  for (size_t i = 0; i < checks->size(); ++i) {
    const AbiCheck& c = (*checks)[i];
    if (c.kind == AbiCheck::kShape && c.arg == 1 && c.dim == 0) bind_n = i;
    if (c.kind == AbiCheck::kShape && c.arg == 0 && c.dim == 0) check_x = i;
  }
  ASSERT_LT(bind_n, checks->size());
  ASSERT_LT(check_x, checks->size());
  EXPECT_TRUE((*checks)[bind_n].bind.same_as(n));
  EXPECT_GT(check_x, bind_n);
  EXPECT_EQ(check_x, checks->size() - 1);
}

TEST(AbiChecksTest, Rejections) {
  Var v("v", DataType::Float(32, 4));
  absl::StatusOr<std::vector<AbiCheck>> r = KernelAbiChecks(PrimFunc({v}, Evaluate(I32(0))), "g");
  EXPECT_EQ(r.status().message(), "g: parameter v has dtype float32x4, which the kernel ABI cannot pass");
  Var a("a", DataType::Handle());
  Buffer buf = Buffer::Make("A", {I32(2), I32(2)}, DataType::Float(32));
  buf.CopyOnWrite()->strides = {I32(1)};
  Map<Var, Buffer> buffer_map;
  buffer_map.Set(a, buf);
  r = KernelAbiChecks(PrimFunc({a}, Evaluate(I32(0)), Type(), buffer_map), "h");
  EXPECT_EQ(r.status().message(), "h: argument A declares 1 strides for 2 dimensions");
}

TEST(AbiChecksTest, DTypeAccepted) {
  EXPECT_TRUE(DTypeAccepted(DataType::Float(32), DataType::kFloat, 32, 1));
  EXPECT_FALSE(DTypeAccepted(DataType::Float(32), DataType::kFloat, 64, 1));
  EXPECT_FALSE(DTypeAccepted(DataType::Float(32), DataType::kInt, 32, 1));
  EXPECT_FALSE(DTypeAccepted(DataType::Float(32), DataType::kFloat, 32, 4));
  EXPECT_TRUE(DTypeAccepted(DataType::Bool(), DataType::kUInt, 1, 1));
  EXPECT_TRUE(DTypeAccepted(DataType::Bool(), kDLBoolTypeCode, 8, 1));
  EXPECT_FALSE(DTypeAccepted(DataType::Bool(), DataType::kUInt, 8, 1));
}

}  // namespace
}  // namespace kiln::tir
