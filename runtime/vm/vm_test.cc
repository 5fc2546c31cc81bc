// The VM end to end on hand-assembled executables that call a real kernel library: a C file that
// implements the kernel ABI by hand, compiled with the system C compiler when the suite starts and
// carried in the executable's library section.
#include "runtime/vm/vm.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/vm/testing/assembler.h"

namespace kiln::vm {
namespace {

using testing::Assembler;
using testing::C;
using testing::Imm;
using testing::R;
using testing::VM;
using testing::Void;

constexpr char kKernelSource[] = R"C(
#include <stdint.h>
#include <dlpack/dlpack.h>
typedef struct {
  int32_t type_index;
  uint32_t zero_padding;
  union { int64_t v_int64; double v_float64; void* v_ptr; };
} KilnAny;
enum { kInt = 1, kBool = 2, kFloat = 3, kTensor = 7, kError = 65 };
static int32_t fail(KilnAny* r, const char* m) { r->type_index = kError; r->v_ptr = (void*)m; return -1; }
static float* fdata(const DLTensor* t) { return (float*)((char*)t->data + t->byte_offset); }

int32_t add_one(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  if (n != 2 || a[0].type_index != kTensor || a[1].type_index != kTensor) return fail(r, "TypeError: add_one takes two tensors");
  const DLTensor* x = a[0].v_ptr;
  const DLTensor* y = a[1].v_ptr;
  if (x->ndim != 1 || y->ndim != 1 || x->shape[0] != y->shape[0]) return fail(r, "ValueError: add_one: shape mismatch");
  if (x->dtype.code != kDLFloat || x->dtype.bits != 32) return fail(r, "ValueError: add_one: expects float32");
  for (int64_t i = 0; i < x->shape[0]; ++i) fdata(y)[i] = fdata(x)[i] + 1.0f;
  return 0;
}
int32_t int_gt0(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  if (n != 1 || a[0].type_index != kInt) return fail(r, "TypeError: int_gt0 takes an int");
  r->type_index = kBool;
  r->v_int64 = a[0].v_int64 > 0;
  return 0;
}
int32_t int_sub(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  if (n != 2 || a[0].type_index != kInt || a[1].type_index != kInt) return fail(r, "TypeError: int_sub takes two ints");
  r->type_index = kInt;
  r->v_int64 = a[0].v_int64 - a[1].v_int64;
  return 0;
}
int32_t int_mul(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  if (n != 2 || a[0].type_index != kInt || a[1].type_index != kInt) return fail(r, "TypeError: int_mul takes two ints");
  r->type_index = kInt;
  r->v_int64 = a[0].v_int64 * a[1].v_int64;
  return 0;
}
int32_t always_fail(void* self, const KilnAny* a, int32_t n, KilnAny* r) { return fail(r, "ValueError: always_fail: boom"); }
/* Whether the runtime lent the kernel a parallel-for environment. */
int32_t has_env(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  r->type_index = kBool;
  r->v_int64 = self != 0;
  return 0;
}
const char kiln_kernel_names[] = "add_one\0int_gt0\0int_sub\0int_mul\0always_fail\0has_env\0";
)C";

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

// A kernel library's bytes and path.
struct KernelLib {
  std::string path;
  std::string bytes;
  std::string error;
};

KernelLib BuildKernels(const std::string& stem, const char* source) {
  KernelLib k;
  std::string src = TmpDir() + "/" + stem + "_" + std::to_string(getpid()) + ".c";
  k.path = TmpDir() + "/" + stem + "_" + std::to_string(getpid()) + ".so";
  std::ofstream(src) << source;
  std::string cmd = "cc -shared -fPIC -O1 -o " + k.path + " " + src + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    k.error = "cannot compile the test kernels with: " + cmd;
    return k;
  }
  std::ifstream in(k.path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  k.bytes = ss.str();
  return k;
}

// kKernelSource's library, built once per test binary.
const KernelLib& Kernels() {
  static const KernelLib* lib = new KernelLib(BuildKernels("vm_test_kernels", kKernelSource));
  return *lib;
}

constexpr DLDataType kF32{kDLFloat, 32, 1};

// main(x: R.Tensor((n,), "float32")) -> x + 1, the way VMCodeGen lowers it: shape heap,
// parameter checks, storage and tensor allocation, the kernel call, killing the storage.
void EmitMain(Assembler& a) {
  int64_t f32 = a.DTypeConst(kF32);
  int64_t ctx = a.StrConst("ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n,), \"float32\"))");
  int64_t global = a.StrConst("global");
  a.Begin("main", 1, {"x"});
  a.Call("vm.builtin.alloc_shape_heap", {VM(), Imm(1)}, 1);
  a.Call("vm.builtin.check_tensor_info", {R(0), Imm(1), C(f32), C(ctx)});
  a.Call("vm.builtin.match_shape", {R(0), R(1), Imm(1), Imm(1), Imm(0), C(ctx)});
  a.Call("vm.builtin.make_shape", {R(1), Imm(1), Imm(1), Imm(0)}, 2);
  a.Call("vm.builtin.alloc_storage", {VM(), R(2), Imm(0), C(f32), C(global)}, 3);
  a.Call("vm.builtin.alloc_tensor", {R(3), Imm(0), R(2), C(f32)}, 4);
  a.Call("add_one", {R(0), R(4)});
  a.Call("vm.builtin.null_value", {}, 3);
  a.Ret(4);
  a.End();
}

// fixed(x: R.Tensor((2, 3), "float32")) -> x
void EmitFixed(Assembler& a) {
  int64_t f32 = a.DTypeConst(kF32);
  int64_t ctx = a.StrConst("ErrorContext(fn=fixed, loc=param[0], param=x)");
  a.Begin("fixed", 1, {"x"});
  a.Call("vm.builtin.check_tensor_info", {R(0), Imm(2), C(f32), C(ctx)});
  a.Call("vm.builtin.match_shape", {R(0), Void(), Imm(2), Imm(0), Imm(2), Imm(0), Imm(3), C(ctx)});
  a.Ret(0);
  a.End();
}

// fact(n) = n > 0 ? n * fact(n - 1) : 1, with If on the kernel's bool.
void EmitFact(Assembler& a) {
  a.Begin("fact", 1, {"n"});
  a.Call("int_gt0", {R(0)}, 1);
  a.If(1, 5);
  a.Call("int_sub", {R(0), Imm(1)}, 2);
  a.Call("fact", {R(2)}, 3);
  a.Call("int_mul", {R(0), R(3)}, 4);
  a.Ret(4);
  a.Call("vm.builtin.copy", {Imm(1)}, 5);
  a.Ret(5);
  a.End();
}

Executable WithKernels(Assembler& a) {
  Executable e = a.Finish();
  e.libraries.push_back({"host-so", "llvm", "host", Kernels().bytes});
  return e;
}

runtime::Tensor Floats(std::vector<float> v) {
  runtime::Tensor t = *runtime::Tensor::Empty({static_cast<int64_t>(v.size())}, kF32);
  std::memcpy(t.data(), v.data(), v.size() * 4);
  return t;
}

std::vector<float> FloatsOf(const Value& v) {
  const runtime::Tensor& t = v.as_tensor();
  const float* p = static_cast<const float*>(t.data());
  return std::vector<float>(p, p + t.numel());
}

class VMTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(Kernels().error.empty()) << Kernels().error; }

  std::unique_ptr<VirtualMachine> Make(Executable e, VMOptions o = {}) {
    o.num_threads = 1;
    absl::StatusOr<std::unique_ptr<VirtualMachine>> vm = VirtualMachine::Create(
        std::make_shared<const Executable>(std::move(e)), o);
    EXPECT_TRUE(vm.ok()) << vm.status();
    return vm.ok() ? *std::move(vm) : nullptr;
  }
  // An executable with main, fixed and fact, and its kernels in the library section.
  Executable Standard() {
    Assembler a;
    EmitMain(a);
    EmitFixed(a);
    EmitFact(a);
    return WithKernels(a);
  }
};

TEST_F(VMTest, RunsAKernelFromTheLibrarySection) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  absl::StatusOr<Value> r = vm->Invoke("main", {Value::Tensor(Floats({1, 2, 3}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(FloatsOf(*r), (std::vector<float>{2, 3, 4}));
  // A different n through the same code (the shape heap, dynamic allocation).
  r = vm->Invoke("main", {Value::Tensor(Floats({5, 6, 7, 8, 9}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(FloatsOf(*r), (std::vector<float>{6, 7, 8, 9, 10}));
}

// Two executables with different libraries loaded at once, the second while the first is alive:
// each VM resolves its own kernels. (The first library's memory file once closed its descriptor,
// the second got the same /proc/self/fd/N path, and dlopen handed back the first library.)
TEST_F(VMTest, LibrariesOfLiveVMsStayDistinct) {
  constexpr char kOther[] = R"C(
#include <stdint.h>
typedef struct { int32_t type_index; uint32_t zero_padding; union { int64_t v_int64; double v_float64; void* v_ptr; }; } KilnAny;
int32_t int_neg(void* self, const KilnAny* a, int32_t n, KilnAny* r) {
  r->type_index = 1;
  r->v_int64 = -a[0].v_int64;
  return 0;
}
const char kiln_kernel_names[] = "int_neg\0";
)C";
  KernelLib other = BuildKernels("vm_test_other", kOther);
  ASSERT_TRUE(other.error.empty()) << other.error;
  auto first = Make(Standard());
  ASSERT_NE(first, nullptr);
  Assembler a;
  a.Begin("neg", 1, {"n"});
  a.Call("int_neg", {R(0)}, 1);
  a.Ret(1);
  a.End();
  Executable e = a.Finish();
  e.libraries.push_back({"host-so", "llvm", "host", other.bytes});
  auto second = Make(std::move(e));
  ASSERT_NE(second, nullptr);
  absl::StatusOr<Value> r = second->Invoke("neg", {Value::Int(5)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->as_int(), -5);
  EXPECT_TRUE(first->Invoke("fact", {Value::Int(4)}).ok());
}

TEST_F(VMTest, SurvivesASerializeRoundTrip) {
  absl::StatusOr<Executable> e = Executable::Deserialize(Standard().Serialize());
  ASSERT_TRUE(e.ok()) << e.status();
  auto vm = Make(*std::move(e));
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(FloatsOf(*vm->Invoke("main", {Value::Tensor(Floats({0.5f}))})), (std::vector<float>{1.5f}));
}

TEST_F(VMTest, ExtraModulesResolveKernelsWithoutALibrarySection) {
  absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib = runtime::KernelLibrary::Load(Kernels().path);
  ASSERT_TRUE(lib.ok()) << lib.status();
  Assembler a;
  EmitMain(a);
  VMOptions o;
  o.extra_modules = {lib->get()};
  auto vm = Make(a.Finish(), o);
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(FloatsOf(*vm->Invoke("main", {Value::Tensor(Floats({1}))})), (std::vector<float>{2}));
}

TEST_F(VMTest, CreateNamesAnUnresolvedFunction) {
  Assembler a;
  EmitMain(a);
  absl::StatusOr<std::unique_ptr<VirtualMachine>> vm =
      VirtualMachine::Create(std::make_shared<const Executable>(a.Finish()));
  ASSERT_FALSE(vm.ok());
  EXPECT_EQ(vm.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(vm.status().message().find("\"add_one\""), std::string::npos) << vm.status();

  Executable bad = Standard();
  bad.libraries.push_back({"ptx", "cuda -arch=sm_90", "dev", "x"});
  EXPECT_EQ(VirtualMachine::Create(std::make_shared<const Executable>(bad)).status().code(),
            absl::StatusCode::kUnimplemented);
  Executable corrupt = Standard();
  corrupt.libraries[0].bytes = "not an ELF file";
  EXPECT_FALSE(VirtualMachine::Create(std::make_shared<const Executable>(corrupt)).ok());
}

TEST_F(VMTest, BadArgumentsAreErrorsNotCrashes) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  absl::StatusOr<Value> r = vm->Invoke("main", {Value::Int(3)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("TypeError: ErrorContext(fn=main, loc=param[0], param=x"), std::string::npos)
      << r.status();
  r = vm->Invoke("main", {Value::Tensor(*runtime::Tensor::Empty({2, 2}, kF32))});
  EXPECT_NE(r.status().message().find("expect Tensor with ndim 1 but get 2"), std::string::npos) << r.status();
  r = vm->Invoke("main", {Value::Tensor(*runtime::Tensor::Empty({2}, DLDataType{kDLInt, 32, 1}))});
  EXPECT_NE(r.status().message().find("expect Tensor with dtype float32 but get int32"), std::string::npos);
  r = vm->Invoke("main", {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(vm->Invoke("nope", {}).status().code(), absl::StatusCode::kNotFound);
  // The kernel's own checks: fact's kernels get a tensor.
  r = vm->Invoke("fact", {Value::Tensor(Floats({1}))});
  EXPECT_NE(r.status().message().find("TypeError: int_gt0 takes an int"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("in call to int_gt0 (function fact, instruction 0)"), std::string::npos);
}

TEST_F(VMTest, KernelFailureIsTheError) {
  Assembler a;
  a.Begin("main", 0);
  a.Call("always_fail", {}, 0);
  a.Ret(0);
  a.End();
  auto vm = Make(WithKernels(a));
  ASSERT_NE(vm, nullptr);
  absl::StatusOr<Value> r = vm->Invoke("main", {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().substr(0, 29), "ValueError: always_fail: boom");
}

TEST_F(VMTest, RecursionAndIf) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  absl::StatusOr<Value> r = vm->Invoke("fact", {Value::Int(10)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->as_int(), 3628800);
  EXPECT_EQ(vm->Invoke("fact", {Value::Int(0)})->as_int(), 1);
}

TEST_F(VMTest, DeepRecursionIsAnErrorNotAStackOverflow) {
  VMOptions o;
  o.max_call_depth = 100;
  auto vm = Make(Standard(), o);
  ASSERT_NE(vm, nullptr);
  EXPECT_TRUE(vm->Invoke("fact", {Value::Int(90)}).ok());
  absl::StatusOr<Value> r = vm->Invoke("fact", {Value::Int(1000000)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("maximum VM call depth 100"), std::string::npos);
  EXPECT_LT(r.status().message().size(), 1000u) << r.status();  // a bounded traceback
  // The VM is still usable afterwards.
  EXPECT_EQ(vm->Invoke("fact", {Value::Int(3)})->as_int(), 6);
  auto deep = Make(Standard());  // the default depth
  EXPECT_EQ(deep->Invoke("fact", {Value::Int(1000000)}).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(VMTest, IfOnTensorsAndPrims) {
  Assembler a;
  a.Begin("pick", 1, {"c"});
  a.If(0, 3);
  a.Call("vm.builtin.copy", {Imm(10)}, 1);
  a.Goto(2);
  a.Call("vm.builtin.copy", {Imm(20)}, 1);
  a.Ret(1);
  a.End();
  auto vm = Make(a.Finish());
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(vm->Invoke("pick", {Value::Bool(true)})->as_int(), 10);
  EXPECT_EQ(vm->Invoke("pick", {Value::Int(0)})->as_int(), 20);
  runtime::Tensor t = *runtime::Tensor::Empty({}, DLDataType{kDLInt, 32, 1});
  EXPECT_EQ(vm->Invoke("pick", {Value::Tensor(t)})->as_int(), 20);
  *static_cast<int32_t*>(t.data()) = 7;
  EXPECT_EQ(vm->Invoke("pick", {Value::Tensor(t)})->as_int(), 10);
  runtime::Tensor b = *runtime::Tensor::Empty({}, DLDataType{runtime::kDLBoolCode, 8, 1});
  *static_cast<uint8_t*>(b.data()) = 1;
  EXPECT_EQ(vm->Invoke("pick", {Value::Tensor(b)})->as_int(), 10);
  absl::StatusOr<Value> r = vm->Invoke("pick", {Value::String("x")});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("If condition"), std::string::npos);
  EXPECT_FALSE(vm->Invoke("pick", {Value::Tensor(Floats({1}))}).ok());
}

TEST_F(VMTest, ClosuresBindTheLastArguments) {
  Assembler a;
  // vsub(a, b) = a - b as a VM function.
  a.Begin("vsub", 2, {"a", "b"});
  a.Call("int_sub", {R(0), R(1)}, 2);
  a.Ret(2);
  a.End();
  // apply(x) = (make_closure(vsub, 5))(x) + (make_closure(int_sub, 100))(x) computed as two calls.
  a.Begin("apply", 1, {"x"});
  a.Call("vm.builtin.make_closure", {a.F("vsub"), Imm(5)}, 1);
  a.Call("vm.builtin.invoke_closure", {VM(), R(1), R(0)}, 2);
  a.Call("vm.builtin.make_closure", {a.F("int_sub"), Imm(100)}, 3);
  a.Call("vm.builtin.invoke_closure", {VM(), R(3), R(0)}, 4);
  a.Call("vm.builtin.make_tuple", {R(2), R(4)}, 5);
  a.Ret(5);
  a.End();
  auto vm = Make(WithKernels(a));
  ASSERT_NE(vm, nullptr);
  absl::StatusOr<Value> r = vm->Invoke("apply", {Value::Int(12)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->as_tuple()[0].as_int(), 7);     // vsub(12, 5)
  EXPECT_EQ(r->as_tuple()[1].as_int(), -88);   // int_sub(12, 100)
  // A function value returned to the caller can be called back through Invoke's closure path.
  Assembler b;
  b.Begin("get", 0);
  b.Call("vm.builtin.copy", {b.F("int_sub")}, 0);
  b.Ret(0);
  b.End();
  auto vm2 = Make(WithKernels(b));
  Value f = *vm2->Invoke("get", {});
  ASSERT_TRUE(f.is_closure());
}

TEST_F(VMTest, CallTirDynAppendsShapeValues) {
  Assembler a;
  int64_t shape = a.ShapeConst({9, 4});
  a.Begin("main", 0);
  a.Call("vm.builtin.call_tir_dyn", {a.F("int_sub"), C(shape)}, 0);
  a.Ret(0);
  a.End();
  auto vm = Make(WithKernels(a));
  EXPECT_EQ(vm->Invoke("main", {})->as_int(), 5);
}

// pair(x) = (x, (x, 3))
void EmitPair(Assembler& a) {
  a.Begin("pair", 1, {"x"});
  a.Call("vm.builtin.make_tuple", {R(0), Imm(3)}, 1);
  a.Call("vm.builtin.make_tuple", {R(0), R(1)}, 2);
  a.Ret(2);
  a.End();
}

TEST_F(VMTest, StatefulApi) {
  Assembler a;
  EmitMain(a);
  EmitFixed(a);
  EmitPair(a);
  a.Begin("shape_param", 1, {"s"});
  a.Call("vm.builtin.check_shape_info", {R(0), Imm(2), Void()});
  a.Call("vm.builtin.match_shape", {R(0), Void(), Imm(2), Imm(0), Imm(4), Imm(2), Imm(0), Void()});
  a.Ret(0);
  a.End();
  auto vm = Make(WithKernels(a));
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(vm->InvokeStateful("main").code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(vm->SetInput("main", {Value::Tensor(Floats({1, 2}))}).ok());
  ASSERT_TRUE(vm->InvokeStateful("main").ok());
  EXPECT_EQ(FloatsOf(*vm->GetOutput("main")), (std::vector<float>{2, 3}));
  EXPECT_EQ(*vm->GetOutputArity("main"), -1);

  ASSERT_TRUE(vm->SetInput("pair", {Value::Tensor(Floats({4}))}).ok());
  ASSERT_TRUE(vm->InvokeStateful("pair").ok());
  EXPECT_EQ(*vm->GetOutputArity("pair"), 2);
  EXPECT_EQ(*vm->GetOutputArity("pair", {1}), 2);
  std::vector<int64_t> idx = {1, 1};
  EXPECT_EQ(vm->GetOutput("pair", idx)->as_int(), 3);
  EXPECT_FALSE(vm->GetOutput("pair", {2}).ok());
  absl::StatusOr<std::vector<Value>> outs = vm->GetOutputs("pair");
  ASSERT_TRUE(outs.ok());
  ASSERT_EQ(outs->size(), 3u);  // x, x, 3: depth-first
  EXPECT_EQ((*outs)[2].as_int(), 3);

  // set_input checks what the function's prologue states.
  absl::Status st = vm->SetInput("fixed", {Value::Tensor(*runtime::Tensor::Empty({2, 4}, kF32))});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("set_input(fixed): argument 0 (x): expect shape (2, 3) but got (2, 4)"), std::string::npos) << st;
  st = vm->SetInput("fixed", {Value::Tensor(*runtime::Tensor::Empty({2, 3, 1}, kF32))});
  EXPECT_NE(st.message().find("expect ndim 2 but got 3"), std::string::npos) << st;
  st = vm->SetInput("main", {Value::Tensor(*runtime::Tensor::Empty({3}, DLDataType{kDLInt, 8, 1}))});
  EXPECT_NE(st.message().find("expect dtype float32 but got int8"), std::string::npos) << st;
  st = vm->SetInput("main", {Value::Int(1)});
  EXPECT_NE(st.message().find("expect a Tensor but got int"), std::string::npos) << st;
  EXPECT_EQ(vm->SetInput("main", {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(vm->SetInput("fixed", {Value::Tensor(*runtime::Tensor::Empty({2, 3}, kF32))}).ok());
  // An R.Shape([4, n]) parameter is checked by match_shape alone: a Shape passes, a tensor's shape too.
  EXPECT_TRUE(vm->SetInput("shape_param", {Value::Shape({4, 9})}).ok());
  st = vm->SetInput("shape_param", {Value::Shape({5, 9})});
  EXPECT_NE(st.message().find("expect shape (4, ?) but got (5, 9)"), std::string::npos) << st;
  st = vm->SetInput("shape_param", {Value::Int(4)});
  EXPECT_NE(st.message().find("expect a Tensor or Shape but got int"), std::string::npos) << st;

  EXPECT_EQ(*vm->GetFunctionArity("main"), 1);
  EXPECT_EQ(*vm->GetFunctionParamName("main", 0), "x");
  EXPECT_FALSE(vm->GetFunctionParamName("main", 1).ok());
}

TEST_F(VMTest, SaveFunction) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  ASSERT_TRUE(vm->SaveFunction("fact", "fact5", {Value::Int(5)}, true).ok());
  ASSERT_TRUE(vm->SaveFunction("fact", "fact5_void", {Value::Int(5)}, false).ok());
  EXPECT_EQ(vm->Invoke("fact5", {})->as_int(), 120);
  EXPECT_TRUE(vm->Invoke("fact5_void", {})->is_none());
  EXPECT_FALSE(vm->Invoke("fact5", {Value::Int(1)}).ok());
  EXPECT_FALSE(vm->SaveFunction("fact", "bad", {}, true).ok());
}

TEST_F(VMTest, InstrumentSeesEveryCallAndCanSkip) {
  Assembler a;
  a.Begin("inplace", 2, {"x", "out"});
  a.Call("add_one", {R(0), R(1)});
  a.Call("vm.builtin.copy", {R(1)}, 2);
  a.Ret(2);
  a.End();
  auto vm = Make(WithKernels(a));
  ASSERT_NE(vm, nullptr);
  std::vector<std::string> log;
  vm->SetInstrument([&](absl::string_view sym, bool before, const Value& ret, absl::Span<const Value> args) {
    log.push_back(absl::StrCat(before ? "before " : "after ", sym, "/", args.size()));
    return before && sym == "add_one" ? InstrumentAction::kSkipRun : InstrumentAction::kNoOp;
  });
  runtime::Tensor out = Floats({0, 0});
  ASSERT_TRUE(vm->Invoke("inplace", {Value::Tensor(Floats({1, 2})), Value::Tensor(out)}).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"before add_one/2", "before vm.builtin.copy/1", "after vm.builtin.copy/1"}));
  EXPECT_EQ(FloatsOf(Value::Tensor(out)), (std::vector<float>{0, 0}));  // skipped
  vm->SetInstrument(nullptr);
  ASSERT_TRUE(vm->Invoke("inplace", {Value::Tensor(Floats({1, 2})), Value::Tensor(out)}).ok());
  EXPECT_EQ(FloatsOf(Value::Tensor(out)), (std::vector<float>{2, 3}));
}

TEST_F(VMTest, ProfilingCountsCallees) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  vm->EnableProfiling(true);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(vm->Invoke("main", {Value::Tensor(Floats({1, 2}))}).ok());
  ProfileReport r = vm->GetProfileReport();
  std::map<std::string, int64_t> counts;
  for (const ProfileEntry& e : r.entries) counts[e.name] = e.count;
  EXPECT_EQ(counts["add_one"], 3);
  EXPECT_EQ(counts["vm.builtin.alloc_storage"], 3);
  EXPECT_EQ(counts.count("fact"), 0u);
  EXPECT_GT(r.total_seconds, 0);
  EXPECT_NE(r.ToString().find("add_one"), std::string::npos);
  vm->ResetProfile();
  vm->EnableProfiling(false);
  ASSERT_TRUE(vm->Invoke("main", {Value::Tensor(Floats({1}))}).ok());
  EXPECT_TRUE(vm->GetProfileReport().entries.empty());
}

TEST_F(VMTest, TimeEvaluator) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  profiling::TimeEvalOptions o;
  o.number = 2;
  o.repeat = 3;
  absl::StatusOr<std::vector<double>> r = vm->TimeEvaluator("fact", {Value::Int(6)}, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 3u);
  for (double t : *r) EXPECT_GT(t, 0);
  ASSERT_TRUE(vm->SetInput("main", {Value::Tensor(Floats({1, 2, 3}))}).ok());
  r = vm->TimeEvaluatorStateful("main", o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 3u);
  ASSERT_TRUE(vm->SaveFunction("fact", "f6", {Value::Int(6)}, false).ok());
  EXPECT_TRUE(vm->TimeEvaluator("f6", {}, o).ok());
  EXPECT_FALSE(vm->TimeEvaluator("fact", {Value::Tensor(Floats({1}))}, o).ok());  // the call's error
  o.repeat = 0;
  EXPECT_EQ(vm->TimeEvaluator("fact", {Value::Int(1)}, o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(VMTest, PooledAllocatorReusesAcrossInvocations) {
  auto vm = Make(Standard());
  ASSERT_NE(vm, nullptr);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(vm->Invoke("main", {Value::Tensor(Floats({1, 2, 3}))}).ok());
  AllocatorStats host = vm->allocator_at(0).stats();
  // Per invocation: the shape heap and the output storage; both return to the pool.
  EXPECT_EQ(host.device_allocs, 2);
  EXPECT_EQ(host.reused, 8);
  VMOptions naive;
  naive.allocator = AllocatorKind::kNaive;
  auto vm2 = Make(Standard(), naive);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(vm2->Invoke("main", {Value::Tensor(Floats({1, 2, 3}))}).ok());
  EXPECT_EQ(vm2->allocator_at(0).stats().device_allocs, 10);
  EXPECT_EQ(vm2->allocator_at(0).stats().reused, 0);
  vm->ClearAllocatorCaches();
  EXPECT_EQ(vm->allocator_at(0).stats().bytes_cached, 0);
}

TEST_F(VMTest, VMsShareOneExecutableAcrossThreads) {
  auto exec = std::make_shared<const Executable>(Standard());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      VMOptions o;
      o.num_threads = 1;
      absl::StatusOr<std::unique_ptr<VirtualMachine>> vm = VirtualMachine::Create(exec, o);
      if (!vm.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<Value> r = (*vm)->Invoke("fact", {Value::Int(t + 5)});
        if (!r.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(VMTest, KernelsGetTheParallelEnvironment) {
  Assembler a;
  a.Begin("main", 0);
  a.Call("has_env", {}, 0);
  a.Ret(0);
  a.End();
  Executable e = WithKernels(a);
  auto run = [&](VMOptions o) {
    auto vm = VirtualMachine::Create(std::make_shared<const Executable>(e), o);
    EXPECT_TRUE(vm.ok()) << vm.status();
    return (*vm)->Invoke("main", {})->as_bool();
  };
  VMOptions serial;
  serial.num_threads = 1;
  EXPECT_FALSE(run(serial));
  EXPECT_TRUE(run(VMOptions()));  // the VM's own pool
  runtime::ThreadPool pool(2);
  VMOptions lent;
  lent.kernel_env = pool.env();
  EXPECT_TRUE(run(lent));
}

TEST_F(VMTest, ConstantsReachFunctions) {
  Assembler a;
  int64_t t = a.TensorConst(Floats({7, 8}));
  int64_t f = a.FloatConst(0.25);
  a.Begin("main", 0);
  a.Call("vm.builtin.make_tuple", {C(t), C(f)}, 0);
  a.Ret(0);
  a.End();
  auto vm = Make(a.Finish());
  Value r = *vm->Invoke("main", {});
  EXPECT_EQ(FloatsOf(r.as_tuple()[0]), (std::vector<float>{7, 8}));
  EXPECT_EQ(r.as_tuple()[1].as_float(), 0.25);
}

}  // namespace
}  // namespace kiln::vm
