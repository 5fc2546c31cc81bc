// The builtins called directly, with a context that owns one real CPU allocator. Closures and
// anything needing a running VM are tested in vm_test.
#include "runtime/vm/builtins.h"

#include <cstring>

#include "gtest/gtest.h"

namespace kiln::vm {
namespace {

class HostContext : public BuiltinContext {
 public:
  HostContext() : alloc_(*Allocator::Create(AllocatorKind::kPooled, DLDevice{kDLCPU, 0})) {}
  int num_devices() const override { return 1; }
  absl::StatusOr<Allocator*> allocator(int64_t i) override {
    if (i != 0 && i != -1) return absl::InvalidArgumentError("device index out of range");
    return alloc_.get();
  }
  absl::StatusOr<Value> InvokeClosure(const Value&, absl::Span<const Value>) override {
    return absl::UnimplementedError("no functions in this context");
  }
  void ClearAllocatorCaches() override { alloc_->Clear(); }
  Allocator& alloc() { return *alloc_; }

 private:
  std::unique_ptr<Allocator> alloc_;
};

class BuiltinsTest : public ::testing::Test {
 protected:
  absl::StatusOr<Value> Call(const std::string& name, std::vector<Value> args) {
    BuiltinFn fn = LookupBuiltin(name);
    if (fn == nullptr) return absl::NotFoundError(name);
    return fn(ctx_, args);
  }
  HostContext ctx_;
};

Value I(int64_t v) { return Value::Int(v); }
Value S(std::string s) { return Value::String(std::move(s)); }
constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};

Value MakeTensor(std::vector<int64_t> shape, DLDataType dtype = kF32) {
  return Value::Tensor(*runtime::Tensor::Empty(shape, dtype));
}

void ExpectError(const absl::StatusOr<Value>& r, const std::string& needle) {
  ASSERT_FALSE(r.ok()) << "expected an error containing " << needle;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status();
}

TEST_F(BuiltinsTest, TableIsComplete) {
  for (const char* name : {"vm.builtin.alloc_shape_heap", "vm.builtin.match_shape", "vm.builtin.match_prim_value",
                           "vm.builtin.make_shape", "vm.builtin.make_prim_value", "vm.builtin.check_tensor_info",
                           "vm.builtin.check_shape_info", "vm.builtin.check_prim_value_info",
                           "vm.builtin.check_tuple_info", "vm.builtin.check_func_info", "vm.builtin.alloc_storage",
                           "vm.builtin.alloc_tensor", "vm.builtin.make_closure", "vm.builtin.invoke_closure",
                           "vm.builtin.call_tir_dyn", "vm.builtin.shape_of", "vm.builtin.copy", "vm.builtin.reshape",
                           "vm.builtin.null_value", "vm.builtin.to_device", "vm.builtin.read_if_cond",
                           "vm.builtin.tuple_getitem", "vm.builtin.make_tuple", "vm.builtin.tensor_to_shape",
                           "vm.builtin.ensure_zero_offset", "vm.builtin.memory_manager.clear",
                           "relax.run.shape_to_tensor"}) {
    EXPECT_NE(LookupBuiltin(name), nullptr) << name;
  }
  EXPECT_EQ(LookupBuiltin("vm.builtin.nope"), nullptr);
  EXPECT_TRUE(std::is_sorted(BuiltinNames().begin(), BuiltinNames().end()));
}

TEST_F(BuiltinsTest, CheckTensorInfoMessagesAreTvms) {
  const std::string ctx = "ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 4), \"float32\"))";
  EXPECT_TRUE(Call("vm.builtin.check_tensor_info", {MakeTensor({2, 4}), I(2), Value::DataType(kF32), S(ctx)}).ok());
  ExpectError(Call("vm.builtin.check_tensor_info", {MakeTensor({2, 4, 1}), I(2), Value::DataType(kF32), S(ctx)}),
              ctx + " expect Tensor with ndim 2 but get 3");
  ExpectError(Call("vm.builtin.check_tensor_info", {MakeTensor({2, 4}, kI32), I(2), Value::DataType(kF32), S(ctx)}),
              "ValueError: " + ctx + " expect Tensor with dtype float32 but get int32");
  ExpectError(Call("vm.builtin.check_tensor_info", {I(3), I(-1), S(ctx)}), "TypeError: " + ctx + " expect a Tensor but get int");
  EXPECT_TRUE(Call("vm.builtin.check_tensor_info", {MakeTensor({1, 1, 1}), I(-1), Value(), S(ctx)}).ok());
  ExpectError(Call("vm.builtin.check_shape_info", {Value::Shape({1, 2}), I(3), S("c")}), "c expect Shape with ndim 3 but get 2");
  ExpectError(Call("vm.builtin.check_shape_info", {MakeTensor({1}), I(1), S("c")}), "expect a Shape but get Tensor");
  ExpectError(Call("vm.builtin.check_tuple_info", {Value::Tuple({I(1)}), I(2), S("c")}), "expect a Tuple with 2 elements");
  ExpectError(Call("vm.builtin.check_func_info", {I(1), S("c")}), "expect a Function but get int");
  EXPECT_TRUE(Call("vm.builtin.check_prim_value_info", {I(1), Value::DataType(kI32), S("c")}).ok());
  ExpectError(Call("vm.builtin.check_prim_value_info", {MakeTensor({}), Value::DataType(kI32), S("c")}),
              "expected dtype int32, but received Tensor");
}

TEST_F(BuiltinsTest, ShapeHeapMatchAndMake) {
  absl::StatusOr<Value> heap = Call("vm.builtin.alloc_shape_heap", {Value::VMContext(), I(2)});
  ASSERT_TRUE(heap.ok()) << heap.status();
  Value x = MakeTensor({3, 4, 5});
  // dim 0 stored to slot 0, dim 1 checked against 4, dim 2 stored to slot 1.
  ASSERT_TRUE(Call("vm.builtin.match_shape", {x, *heap, I(3), I(1), I(0), I(0), I(4), I(1), I(1), S("ctx")}).ok());
  const int64_t* slots = static_cast<const int64_t*>(heap->as_tensor().data());
  EXPECT_EQ(slots[0], 3);
  EXPECT_EQ(slots[1], 5);
  // Load-compare: a (3, 5) shape matches (slot0, slot1); (3, 6) does not.
  EXPECT_TRUE(Call("vm.builtin.match_shape", {Value::Shape({3, 5}), *heap, I(2), I(3), I(0), I(3), I(1), S("ctx")}).ok());
  ExpectError(Call("vm.builtin.match_shape", {Value::Shape({3, 6}), *heap, I(2), I(3), I(0), I(3), I(1), S("ctx")}),
              "ctx match_cast error, shape[1] mismatch to a previous populated value");
  ExpectError(Call("vm.builtin.match_shape", {x, *heap, I(3), I(2), I(0), I(0), I(7), I(2), I(0), S("ctx")}),
              "shape[1] mismatch to specified constant");
  ExpectError(Call("vm.builtin.match_shape", {x, *heap, I(2), I(2), I(0), I(2), I(0), S("ctx")}), "shape size mismatch");
  ExpectError(Call("vm.builtin.match_shape", {x, *heap, I(3), I(1), I(99), I(2), I(0), I(2), I(0), S("ctx")}),
              "heap slot 99");
  ExpectError(Call("vm.builtin.match_shape", {x, Value(), I(3), I(1), I(0), I(2), I(0), I(2), I(0), S("ctx")}), "heap slot 0");
  ExpectError(Call("vm.builtin.match_shape", {x, *heap, I(3), I(1), I(0)}), "arguments");
  ExpectError(Call("vm.builtin.match_shape", {x, *heap, I(1), I(9), I(0), S("ctx")}), "shape size mismatch");
  ExpectError(Call("vm.builtin.match_shape", {Value::Shape({3}), *heap, I(1), I(9), I(0), S("ctx")}), "unknown match shape code 9");
  EXPECT_TRUE(Call("vm.builtin.match_prim_value", {I(5), *heap, I(3), I(1), S("ctx")}).ok());
  ExpectError(Call("vm.builtin.match_prim_value", {I(3), *heap, I(3), I(1), S("ctx")}), "PrimExpr mismatch");

  absl::StatusOr<Value> shape = Call("vm.builtin.make_shape", {*heap, I(3), I(1), I(1), I(0), I(7), I(1), I(0)});
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->as_shape(), (std::vector<int64_t>{5, 7, 3}));
  ExpectError(Call("vm.builtin.make_shape", {*heap, I(1), I(1), I(2)}), "heap slot 2");
  ExpectError(Call("vm.builtin.make_shape", {*heap, I(2), I(0), I(1)}), "arguments");
  EXPECT_EQ(Call("vm.builtin.make_prim_value", {*heap, I(1), I(0)})->as_int(), 3);
  ExpectError(Call("vm.builtin.alloc_shape_heap", {I(0), I(2)}), "VM context");
}

TEST_F(BuiltinsTest, StorageAndTensors) {
  absl::StatusOr<Value> st =
      Call("vm.builtin.alloc_storage", {Value::VMContext(), Value::Shape({64}), I(0), Value::DataType({kDLUInt, 8, 1}), S("global")});
  ASSERT_TRUE(st.ok()) << st.status();
  absl::StatusOr<Value> t = Call("vm.builtin.alloc_tensor", {*st, I(0), Value::Shape({4, 4}), Value::DataType(kF32)});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->as_tensor().shape(), (std::vector<int64_t>{4, 4}));
  ExpectError(Call("vm.builtin.alloc_tensor", {*st, I(8), Value::Shape({4, 4}), Value::DataType(kF32)}), "do not fit");
  ExpectError(Call("vm.builtin.alloc_tensor", {I(1), I(0), Value::Shape({1}), Value::DataType(kF32)}), "must be a Storage");
  ExpectError(Call("vm.builtin.alloc_storage", {Value::VMContext(), Value::Shape({64}), I(3), Value::DataType(kF32)}),
              "out of range");
  ExpectError(Call("vm.builtin.alloc_storage", {Value::VMContext(), Value::Shape({-1}), I(0), Value::DataType(kF32)}),
              "bad buffer shape");
  EXPECT_EQ(Call("vm.builtin.alloc_storage", {Value::VMContext(), Value::Shape({1}), I(0), Value::DataType(kF32), S("shared")})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  st = Value();
  EXPECT_EQ(ctx_.alloc().stats().bytes_cached, 0);  // the tensor still holds the storage
  t = Value();
  EXPECT_GT(ctx_.alloc().stats().bytes_cached, 0);  // back in the pool
  ASSERT_TRUE(Call("vm.builtin.memory_manager.clear", {}).ok());
  EXPECT_EQ(ctx_.alloc().stats().bytes_cached, 0);
}

TEST_F(BuiltinsTest, ReshapeShapeOfAndCopies) {
  Value x = MakeTensor({2, 6});
  static_cast<float*>(x.as_tensor().data())[7] = 3.5f;
  absl::StatusOr<Value> y = Call("vm.builtin.reshape", {x, Value::Shape({3, 4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->as_tensor().data(), x.as_tensor().data());  // a view
  EXPECT_EQ(Call("vm.builtin.shape_of", {*y})->as_shape(), (std::vector<int64_t>{3, 4}));
  ExpectError(Call("vm.builtin.reshape", {x, Value::Shape({5})}), "cannot view");
  ExpectError(Call("vm.builtin.shape_of", {I(1)}), "must be a Tensor");
  absl::StatusOr<Value> z = Call("vm.builtin.to_device", {x, I(kDLCPU), I(0)});
  ASSERT_TRUE(z.ok());
  EXPECT_NE(z->as_tensor().data(), x.as_tensor().data());
  EXPECT_EQ(static_cast<float*>(z->as_tensor().data())[7], 3.5f);
  // A device type without a runtime in kiln (Metal) is UNIMPLEMENTED.
  EXPECT_EQ(Call("vm.builtin.to_device", {x, I(kDLMetal), I(0)}).status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(Call("vm.builtin.copy", {I(4)})->as_int(), 4);
  EXPECT_TRUE(Call("vm.builtin.null_value", {})->is_none());
  // ensure_zero_offset: a view 16 floats (64 bytes) in is re-based; 1 float in is copied.
  Value big = MakeTensor({32});
  static_cast<float*>(big.as_tensor().data())[17] = 9;
  Value v64 = Value::Tensor(*big.as_tensor().View({4}, {}, 16));
  absl::StatusOr<Value> e = Call("vm.builtin.ensure_zero_offset", {v64});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->as_tensor().byte_offset(), 0);
  EXPECT_EQ(e->as_tensor().data(), v64.as_tensor().data());
  Value v4 = Value::Tensor(*big.as_tensor().View({4}, {}, 1));
  e = Call("vm.builtin.ensure_zero_offset", {v4});
  EXPECT_EQ(e->as_tensor().byte_offset(), 0);
  EXPECT_NE(e->as_tensor().data(), v4.as_tensor().data());
}

TEST_F(BuiltinsTest, ConditionsTuplesAndShapeTensors) {
  Value b = MakeTensor({}, DLDataType{runtime::kDLBoolCode, 8, 1});
  EXPECT_FALSE(Call("vm.builtin.read_if_cond", {b})->as_bool());
  *static_cast<uint8_t*>(b.as_tensor().data()) = 1;
  EXPECT_TRUE(Call("vm.builtin.read_if_cond", {b})->as_bool());
  Value i = MakeTensor({1}, DLDataType{kDLInt, 64, 1});
  *static_cast<int64_t*>(i.as_tensor().data()) = int64_t{1} << 40;
  EXPECT_TRUE(Call("vm.builtin.read_if_cond", {i})->as_bool());
  EXPECT_FALSE(Call("vm.builtin.read_if_cond", {Value::Bool(false)})->as_bool());
  ExpectError(Call("vm.builtin.read_if_cond", {MakeTensor({})}), "integer or bool");
  ExpectError(Call("vm.builtin.read_if_cond", {MakeTensor({2}, kI32)}), "expects a scalar");

  absl::StatusOr<Value> t = Call("vm.builtin.make_tuple", {I(1), Value::Tuple({I(2)})});
  EXPECT_EQ(Call("vm.builtin.tuple_getitem", {*t, I(0)})->as_int(), 1);
  ExpectError(Call("vm.builtin.tuple_getitem", {*t, I(2)}), "index 2 out of range");
  ExpectError(Call("vm.builtin.tuple_getitem", {I(3), I(0)}), "must be a Tuple");

  absl::StatusOr<Value> st = Call("relax.run.shape_to_tensor", {Value::Shape({4, 5})});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(Call("vm.builtin.tensor_to_shape", {*st})->as_shape(), (std::vector<int64_t>{4, 5}));
  Value i32 = MakeTensor({2}, kI32);
  static_cast<int32_t*>(i32.as_tensor().data())[1] = 9;
  EXPECT_EQ(Call("vm.builtin.tensor_to_shape", {i32})->as_shape(), (std::vector<int64_t>{0, 9}));
  ExpectError(Call("vm.builtin.tensor_to_shape", {MakeTensor({2})}), "1-d int tensor");
}

}  // namespace
}  // namespace kiln::vm
