#include "runtime/vm/value.h"

#include "gtest/gtest.h"
#include "runtime/vm/allocator.h"

namespace kiln::vm {
namespace {

TEST(ValueTest, KindsAndAccessors) {
  EXPECT_TRUE(Value().is_none());
  EXPECT_EQ(Value::Int(-3).as_int(), -3);
  EXPECT_EQ(Value::Float(0.5).as_float(), 0.5);
  EXPECT_TRUE(Value::Bool(true).as_bool());
  EXPECT_EQ(Value::DataType(DLDataType{kDLFloat, 16, 1}).as_dtype().bits, 16);
  EXPECT_EQ(Value::String("s").as_string(), "s");
  EXPECT_EQ(Value::Shape({1, 2}).as_shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(Value::Tensor(runtime::Tensor()).is_none());  // an undefined tensor is None
  EXPECT_TRUE(Value::StorageRef(nullptr).is_none());
  Value c = Value::MakeClosure(4, {Value::Int(1)});
  EXPECT_EQ(c.as_closure().func_index, 4);
  EXPECT_EQ(c.as_closure().captured.size(), 1u);
  EXPECT_EQ(Value::VMContext().kind(), Value::Kind::kVMContext);
}

TEST(ValueTest, CopiesShareTheirPayload) {
  Value t = Value::Tensor(*runtime::Tensor::Empty({2}, DLDataType{kDLInt, 32, 1}));
  Value copy = t;
  static_cast<int32_t*>(copy.as_tensor().data())[1] = 5;
  EXPECT_EQ(static_cast<int32_t*>(t.as_tensor().data())[1], 5);
  Value tup = Value::Tuple({t, Value::Int(1)});
  Value tup2 = tup;
  EXPECT_EQ(&tup.as_tuple(), &tup2.as_tuple());
}

TEST(ValueTest, DebugString) {
  EXPECT_EQ(Value::Int(3).DebugString(), "3");
  EXPECT_EQ(Value::Bool(false).DebugString(), "False");
  EXPECT_EQ(Value::Shape({4}).DebugString(), "(4,)");
  EXPECT_EQ(Value::Shape({4, 5}).DebugString(), "(4, 5)");
  EXPECT_EQ(Value::Tensor(*runtime::Tensor::Empty({2, 3}, DLDataType{kDLFloat, 32, 1})).DebugString(),
            "R.Tensor((2, 3), \"float32\")");
  EXPECT_EQ(Value::Tuple({Value::Int(1), Value::String("a")}).DebugString(), "(1, \"a\")");
  EXPECT_EQ(Value().DebugString(), "None");
  std::shared_ptr<const Storage> s = *(*Allocator::Create(AllocatorKind::kNaive, DLDevice{kDLCPU, 0}))->Alloc(16, 64, "");
  EXPECT_EQ(Value::StorageRef(s).DebugString(), "Storage(16 bytes)");
}

TEST(ValueTest, FlattenTuplesIsDepthFirst) {
  Value v = Value::Tuple({Value::Int(1), Value::Tuple({Value::Int(2), Value::Tuple({})}), Value::Int(3)});
  std::vector<Value> out;
  FlattenTuples(v, &out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].as_int(), 1);
  EXPECT_EQ(out[1].as_int(), 2);
  EXPECT_EQ(out[2].as_int(), 3);
  out.clear();
  FlattenTuples(Value::Int(7), &out);
  EXPECT_EQ(out.size(), 1u);
}

}  // namespace
}  // namespace kiln::vm
