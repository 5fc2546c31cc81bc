#include "runtime/agent/tensor_wire.h"

#include <cstring>
#include <memory>

#include "gtest/gtest.h"

namespace kiln::agent {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDevice kCPU{kDLCPU, 0};

kiln::v1::Value TensorValue(std::vector<int64_t> shape, std::string data, bool streamed) {
  kiln::v1::Value v;
  *v.mutable_tensor()->mutable_dtype() = ToProto(kF32);
  for (int64_t d : shape) v.mutable_tensor()->add_shape(d);
  v.mutable_tensor()->set_data(std::move(data));
  v.mutable_tensor()->set_streamed(streamed);
  return v;
}

TEST(TensorWireTest, RoundTripsEveryValueKind) {
  runtime::Tensor t = *runtime::Tensor::Empty({2, 3}, kF32);
  for (int i = 0; i < 6; ++i) static_cast<float*>(t.data())[i] = 0.5f * i;
  vm::Value v = vm::Value::Tuple({vm::Value::Tensor(t), vm::Value::Int(-7), vm::Value::Float(2.5),
                                  vm::Value::Bool(true), vm::Value::String("s"), vm::Value::Shape({4, 5}),
                                  vm::Value::DataType(kF32), vm::Value(), vm::Value::Shape({})});
  kiln::v1::Value wire;
  ASSERT_TRUE(EncodeValue(v, &wire, nullptr).ok());
  MemoryBudget budget(0, nullptr);
  ValueDecoder decoder(&budget, kCPU, false);
  absl::StatusOr<vm::Value> back = decoder.Decode(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->DebugString(), v.DebugString());
  const runtime::Tensor& bt = back->as_tuple()[0].as_tensor();
  EXPECT_EQ(std::memcmp(bt.data(), t.data(), 24), 0);
  EXPECT_TRUE(back->as_tuple()[8].is_shape());  // an empty shape is not None
}

TEST(TensorWireTest, StreamedTensorsFillInOrderAndMustComplete) {
  MemoryBudget budget(0, nullptr);
  ValueDecoder decoder(&budget, kCPU, true);
  absl::StatusOr<vm::Value> v = decoder.Decode(TensorValue({4}, "", true));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(budget.used(), 16);
  kiln::v1::TensorChunk c;
  c.set_tensor(0);
  c.set_offset(4);
  c.set_data(std::string(4, 'a'));
  EXPECT_EQ(decoder.AddChunk(c).code(), absl::StatusCode::kInvalidArgument);  // a gap
  c.set_offset(0);
  c.set_data(std::string(8, '\0'));
  ASSERT_TRUE(decoder.AddChunk(c).ok());
  EXPECT_EQ(decoder.CheckComplete().code(), absl::StatusCode::kFailedPrecondition);
  c.set_offset(8);
  c.set_data(std::string(12, '\0'));
  EXPECT_EQ(decoder.AddChunk(c).code(), absl::StatusCode::kInvalidArgument);  // past the end
  c.set_data(std::string(8, '\0'));
  ASSERT_TRUE(decoder.AddChunk(c).ok());
  EXPECT_TRUE(decoder.CheckComplete().ok());
  c.set_tensor(1);
  EXPECT_EQ(decoder.AddChunk(c).code(), absl::StatusCode::kInvalidArgument);  // no such tensor
}

TEST(TensorWireTest, RejectsMalformedTensors) {
  MemoryBudget budget(0, nullptr);
  ValueDecoder decoder(&budget, kCPU, false);
  EXPECT_EQ(decoder.Decode(TensorValue({2}, "1234", false)).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(decoder.Decode(TensorValue({-1}, "", false)).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(decoder.Decode(TensorValue({1 << 30, 1 << 30}, "", false)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(decoder.Decode(TensorValue({1}, "", true)).status().message().find("inline only"), std::string::npos);
  kiln::v1::Value bad = TensorValue({1}, "1234", false);
  bad.mutable_tensor()->mutable_dtype()->set_code(99);
  EXPECT_NE(decoder.Decode(bad).status().message().find("unsupported dtype"), std::string::npos);
}

TEST(TensorWireTest, BudgetRefusesPastTheLimitAndCreditsFreedTensors) {
  auto agent = std::make_shared<MemoryCounter>();
  MemoryBudget budget(100, agent);
  absl::StatusOr<runtime::Tensor> a = budget.Allocate({16}, kF32, kCPU);  // 64 bytes
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(budget.Allocate({16}, kF32, kCPU).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(agent->bytes.load(), 64);
  *a = runtime::Tensor();
  EXPECT_EQ(budget.used(), 0);
  EXPECT_EQ(agent->bytes.load(), 0);
  EXPECT_TRUE(budget.Allocate({16}, kF32, kCPU).ok());
}

TEST(TensorWireTest, ClosuresCannotCrossTheWire) {
  kiln::v1::Value out;
  EXPECT_EQ(EncodeValue(vm::Value::MakeClosure(0, {}), &out, nullptr).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace kiln::agent
