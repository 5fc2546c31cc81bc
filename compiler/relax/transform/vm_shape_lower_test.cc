#include "compiler/relax/transform/passes.h"

#include <string>
#include <vector>

#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/transform/test_util.h"
#include "compiler/relax/transform/vm_check.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform {
namespace {

// The expected texts below are kiln's own printer output for the pass's result, checked by
// reading: a change detector, not an oracle. The oracle is the Relax VM: the lowered module, built
// and run (vm_check.h), must return the shapes and values the test states, and reject arguments
// whose shapes, ranks or dtypes break the signature with the ErrorContext the pass wrote. The
// last fixture calls a packed function no library defines and is an IR shape only.
absl::StatusOr<ir::IRModule> Lowered(const std::string& source) {
  absl::StatusOr<ir::IRModule> out = VMShapeLower(testing::Parse(source));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return out;
  absl::Status form = CheckVMLoweredForm(*out);
  EXPECT_TRUE(form.ok()) << form;
  return out;
}

// Lowers `source`, checks the VM-lowered form and returns main's printed body.
std::string Lower(const std::string& source, std::string* shape_func = nullptr) {
  absl::StatusOr<ir::IRModule> out = Lowered(source);
  if (!out.ok()) return "";
  if (shape_func != nullptr) *shape_func = testing::PrintBody(*out, "shape_func");
  return testing::PrintBody(*out);
}

// main of the lowered `source`, run on the VM with `args`.
absl::StatusOr<vm::Value> RunLowered(const std::string& source, const std::vector<vm::Value>& args) {
  absl::StatusOr<ir::IRModule> out = Lowered(source);
  if (!out.ok()) return out.status();
  return testing::RunAfterPass("VMShapeLower", *out, args);
}

// The dims of a shape value (empty, with a gtest failure, for anything else).
std::vector<int64_t> Dims(const absl::StatusOr<vm::Value>& value) {
  EXPECT_TRUE(value.ok()) << value.status();
  if (!value.ok()) return {};
  EXPECT_TRUE(value->is_shape()) << value->DebugString();
  return value->is_shape() ? value->as_shape() : std::vector<int64_t>{};
}

// `result` is an error whose message holds `fragment` (the ErrorContext of the failing check).
void ExpectRejected(const absl::StatusOr<vm::Value>& result, const std::string& fragment) {
  ASSERT_FALSE(result.ok()) << result->DebugString();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  EXPECT_NE(result.status().message().find(fragment), std::string::npos) << result.status();
}

// Static parameters are checked, their dims compared with immediates; no heap slot is needed.
TEST(VMShapeLower, StaticParametersAreCheckedAgainstImmediates) {
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return x
)";
  EXPECT_EQ(Lower(source),
            R"(    shape_heap: R.Any = R.null_value()
    R.ExternFunc("vm.builtin.check_tensor_info")(x, 2, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2, 3), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(x, shape_heap, 2, 0, 2, 0, 3, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2, 3), dtype=\"float32\")) "))
    return x
)");
  absl::StatusOr<vm::Value> same = RunLowered(source, {testing::F32({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(testing::F32Values(*same), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ExpectRejected(RunLowered(source, {testing::F32({3, 2}, {1, 2, 3, 4, 5, 6})}), "param=x");
  ExpectRejected(RunLowered(source, {testing::F32({6}, {1, 2, 3, 4, 5, 6})}), "param=x");
}

// n is stored from the parameter; n * 2 is computed by a shape_func into its own slot; the ShapeExpr becomes make_shape.
TEST(VMShapeLower, SymbolicDimsAreStoredAndCompoundShapesComputed) {
  std::string shape_func;
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Shape(ndim=2):
        n = T.int64()
        s = R.shape([n * 2, 4])
        return s
)";
  EXPECT_EQ(Lower(source, &shape_func),
            R"(    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (2,), ty_args=R.Tensor(dtype="int64", ndim=1))
    R.ExternFunc("vm.builtin.check_tensor_info")(x, 2, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 4), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(x, shape_heap, 2, 1, 0, 0, 4, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 4), dtype=\"float32\")) "))
    shape_func(shape_heap)
    s: R.Shape([n * 2, 4]) = R.ExternFunc("vm.builtin.make_shape")(shape_heap, 2, 1, 1, 0, 4)
    return s
)");
  EXPECT_EQ(shape_func, R"(    H[T.int64(1)] = H[T.int64(0)] * T.int64(2)
)");
  EXPECT_EQ(Dims(RunLowered(source, {testing::F32({3, 4}, std::vector<float>(12, 1))})), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(Dims(RunLowered(source, {testing::F32({5, 4}, std::vector<float>(20, 1))})), (std::vector<int64_t>{10, 4}));
  ExpectRejected(RunLowered(source, {testing::F32({5, 3}, std::vector<float>(15, 1))}), "param=x");
}

// match_cast of a value whose rank and dtype are known needs no check_tensor_info, only the match.
TEST(VMShapeLower, MatchCastMatchesAndBecomesABinding) {
  std::string shape_func;
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Shape(ndim=1):
        m = T.int64()
        k = T.int64()
        y = R.match_cast(x, R.Tensor((m, k), dtype="float32"))
        s = R.shape([m * k])
        return s
)";
  EXPECT_EQ(Lower(source, &shape_func),
            R"(    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (3,), ty_args=R.Tensor(dtype="int64", ndim=1))
    R.ExternFunc("vm.builtin.check_tensor_info")(x, 2, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor(ndim=2, dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(x, shape_heap, 2, 1, 0, 1, 1, R.str("ErrorContext(match_cast, ty=R.Tensor((m, k), dtype=\"float32\")) "))
    shape_func(shape_heap)
    y: R.Tensor((m, k), dtype="float32") = x
    s: R.Shape([m * k]) = R.ExternFunc("vm.builtin.make_shape")(shape_heap, 1, 1, 2)
    return s
)");
  EXPECT_EQ(shape_func, R"(    H[T.int64(2)] = H[T.int64(0)] * H[T.int64(1)]
)");
  EXPECT_EQ(Dims(RunLowered(source, {testing::F32({3, 5}, std::vector<float>(15, 1))})), (std::vector<int64_t>{15}));
  ExpectRejected(RunLowered(source, {testing::F32({15}, std::vector<float>(15, 1))}), "param=x");
}

// A tuple parameter is checked, then each field; an R.Prim(value=n) is matched against the slot its tuple field stored.
TEST(VMShapeLower, TupleAndPrimParameters) {
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor(("n",), dtype="float32"), R.Tensor((2,), dtype="float32")), p: T.int64, q: R.Prim(value="n")) -> T.int64:
        return p
)";
  EXPECT_EQ(Lower(source),
            R"(    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=R.Tensor(dtype="int64", ndim=1))
    R.ExternFunc("vm.builtin.check_tuple_info")(t, 2, R.str("ErrorContext(fn=main, loc=param[0], param=t, annotation=R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))) "))
    field: R.Tensor((n,), dtype="float32") = t[0]
    R.ExternFunc("vm.builtin.check_tensor_info")(field, 1, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=t, annotation=R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))) "))
    field_1: R.Tensor((2,), dtype="float32") = t[1]
    R.ExternFunc("vm.builtin.check_tensor_info")(field_1, 1, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=t, annotation=R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))) "))
    R.ExternFunc("vm.builtin.check_prim_value_info")(p, R.dtype("int64"), R.str("ErrorContext(fn=main, loc=param[1], param=p, annotation=R.Prim(\"int64\")) "))
    R.ExternFunc("vm.builtin.check_prim_value_info")(q, R.dtype("int64"), R.str("ErrorContext(fn=main, loc=param[2], param=q, annotation=R.Prim(value=n)) "))
    R.ExternFunc("vm.builtin.match_shape")(field, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=param[0], param=t, annotation=R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))) "))
    R.ExternFunc("vm.builtin.match_shape")(field_1, shape_heap, 1, 0, 2, R.str("ErrorContext(fn=main, loc=param[0], param=t, annotation=R.Tuple(R.Tensor((n,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\"))) "))
    R.ExternFunc("vm.builtin.match_prim_value")(q, shape_heap, 3, 0, R.str("ErrorContext(fn=main, loc=param[2], param=q, annotation=R.Prim(value=n)) "))
    return p
)");
  const vm::Value t = vm::Value::Tuple({testing::F32({3}, {1, 2, 3}), testing::F32({2}, {4, 5})});
  absl::StatusOr<vm::Value> p = RunLowered(source, {t, vm::Value::Int(7), vm::Value::Int(3)});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->is_int()) << p->DebugString();
  EXPECT_EQ(p->as_int(), 7);
  // q must equal n, the length of t[0]; t[1] must have 2 elements.
  ExpectRejected(RunLowered(source, {t, vm::Value::Int(7), vm::Value::Int(4)}), "param=q");
  const vm::Value bad = vm::Value::Tuple({testing::F32({3}, {1, 2, 3}), testing::F32({3}, {4, 5, 6})});
  ExpectRejected(RunLowered(source, {bad, vm::Value::Int(7), vm::Value::Int(3)}), "param=t");
}

// With num_input = 1, w (static) is not checked, v (symbolic) is.
TEST(VMShapeLower, ParametersPastNumInputAreCheckedOnlyWhenSymbolic) {
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="float32"), w: R.Tensor((2,), dtype="float32"), v: R.Tensor(("n",), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.func_attr({"num_input": 1})
        return x
)";
  EXPECT_EQ(Lower(source),
            R"(    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (1,), ty_args=R.Tensor(dtype="int64", ndim=1))
    R.ExternFunc("vm.builtin.check_tensor_info")(x, 1, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2,), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.check_tensor_info")(v, 1, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[2], param=v, annotation=R.Tensor((n,), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(x, shape_heap, 1, 0, 2, R.str("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2,), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(v, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=param[2], param=v, annotation=R.Tensor((n,), dtype=\"float32\")) "))
    return x
)");
  const vm::Value x = testing::F32({2}, {1, 2});
  absl::StatusOr<vm::Value> got = RunLowered(source, {x, testing::F32({5}, {0, 0, 0, 0, 0}), testing::F32({3}, {0, 0, 0})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(testing::F32Values(*got), (std::vector<float>{1, 2}));
  ExpectRejected(RunLowered(source, {testing::F32({3}, {1, 2, 3}), x, x}), "param=x");
}

// Shapes inside If branches become make_shape too.
TEST(VMShapeLower, IfBranchesUseTheHeap) {
  std::string shape_func;
  const std::string source = R"(
@I.ir_module
class Module:
    @R.function
    def main(c: T.bool, x: R.Tensor(("n",), dtype="float32")) -> R.Shape(ndim=1):
        n = T.int64()
        if c:
            a = R.shape([n + 1])
            r = a
        else:
            r = R.shape([n])
        s = R.shape([n + 1])
        return s
)";
  EXPECT_EQ(Lower(source, &shape_func),
            R"(    shape_heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (2,), ty_args=R.Tensor(dtype="int64", ndim=1))
    R.ExternFunc("vm.builtin.check_prim_value_info")(c, R.dtype("bool"), R.str("ErrorContext(fn=main, loc=param[0], param=c, annotation=R.Prim(\"bool\")) "))
    R.ExternFunc("vm.builtin.check_tensor_info")(x, 1, R.dtype("float32"), R.str("ErrorContext(fn=main, loc=param[1], param=x, annotation=R.Tensor((n,), dtype=\"float32\")) "))
    R.ExternFunc("vm.builtin.match_shape")(x, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=param[1], param=x, annotation=R.Tensor((n,), dtype=\"float32\")) "))
    shape_func(shape_heap)
    if c:
        a: R.Shape([n + 1]) = R.ExternFunc("vm.builtin.make_shape")(shape_heap, 1, 1, 1)
        r: R.Shape(ndim=1) = a
    else:
        lv: R.Shape([n]) = R.ExternFunc("vm.builtin.make_shape")(shape_heap, 1, 1, 0)
        r: R.Shape(ndim=1) = lv
    s: R.Shape([n + 1]) = R.ExternFunc("vm.builtin.make_shape")(shape_heap, 1, 1, 1)
    return s
)");
  EXPECT_EQ(shape_func, R"(    H[T.int64(1)] = H[T.int64(0)] + T.int64(1)
)");
  for (bool c : {true, false}) {
    SCOPED_TRACE(c);
    EXPECT_EQ(Dims(RunLowered(source, {vm::Value::Bool(c), testing::F32({4}, {1, 2, 3, 4})})), (std::vector<int64_t>{5}));
  }
}

// A call whose result type names a variable nothing defined yet (m, from the callee's own
// match_cast) stores it from the result. The parser's well-formedness check would reject this
// module; passes can produce it.
TEST(VMShapeLower, CallResultsDefineNewVariables) {
  absl::StatusOr<ir::IRModule> out = VMShapeLower(testing::Parse(R"(
@I.ir_module
class Module:
    @R.function(pure=False)
    def unique(x: R.Tensor((4,), dtype="float32")) -> R.Tensor(("m",), dtype="float32"):
        m = T.int64()
        y = R.call_packed("unique", x, ty_args=R.Tensor(dtype="float32", ndim=1))
        z = R.match_cast(y, R.Tensor((m,), dtype="float32"))
        return z

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Shape(ndim=1):
        cls = Module
        y = cls.unique(x)
        s = R.shape_of(y)
        return s
)", /*verify=*/false));
  ASSERT_TRUE(out.ok()) << out.status();
  std::string text = testing::PrintBody(*out);
  EXPECT_NE(text.find(R"(    y: R.Tensor((m,), dtype="float32") = unique(x)
    R.ExternFunc("vm.builtin.match_shape")(y, shape_heap, 1, 1, 0, R.str("ErrorContext(fn=main, loc=binding y) "))
)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kiln::relax::transform
