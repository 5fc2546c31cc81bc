// Fuzz target: the VM executable loader (runtime/vm/executable.h), and the VM on what it accepts.
// Whatever the bytes, Deserialize returns an executable or an error -- never a crash, a hang or an
// allocation beyond the input's size. An accepted executable must print (as_text, as_python,
// stats), re-serialize to bytes that load again, and -- when it carries no library (dlopen of
// arbitrary bytes is code execution, not something a loader can make safe) -- run each function
// in a VM without crashing: every bad dynamic value must come back as a Status.
//
// Seeds are hand-assembled executables; the custom mutator overwrites aligned words with hostile
// counts, offsets, register numbers, jump offsets and argument kinds.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/vm/executable.h"
#include "runtime/vm/testing/assembler.h"
#include "runtime/vm/vm.h"
#include "tests/fuzz/fuzz_driver.h"

// Huge requests (a shape constant of 2^47 bytes, say) must fail as RESOURCE_EXHAUSTED, as they do
// in production, rather than abort inside ASan's allocator; legal but large ones (16 GiB of
// storage) are refused too, so that one input cannot spend seconds mapping shadow memory.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:max_allocation_size_mb=256"; }

namespace {

using namespace kiln::vm;           // NOLINT
using namespace kiln::vm::testing;  // NOLINT

void RunFunctions(const Executable& exec) {
  VMOptions o;
  o.num_threads = 1;
  o.max_call_depth = 16;
  absl::StatusOr<std::unique_ptr<VirtualMachine>> vm =
      VirtualMachine::Create(std::make_shared<const Executable>(exec), o);
  if (!vm.ok()) return;
  // Programs cannot loop, but recursion can branch: a call budget keeps every input fast.
  int64_t budget = 2000;
  (*vm)->SetInstrument([&](absl::string_view, bool before, const Value&, absl::Span<const Value>) {
    return before && --budget < 0 ? InstrumentAction::kSkipRun : InstrumentAction::kNoOp;
  });
  absl::StatusOr<kiln::runtime::Tensor> t = kiln::runtime::Tensor::Empty({2, 3}, DLDataType{kDLFloat, 32, 1});
  for (const FuncInfo& f : exec.func_table) {
    if (f.kind != FuncInfo::Kind::kVMFunc || f.num_args > 8) continue;
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<Value> args;
      for (int64_t i = 0; i < f.num_args; ++i) {
        args.push_back(variant == 0 ? Value::Tensor(*t) : variant == 1 ? Value::Int(i + 1) : Value::Shape({2, 3}));
      }
      (void)(*vm)->Invoke(f.name, args);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Executable> exec = Executable::Deserialize(input);
  if (!exec.ok()) {
    if (exec.status().code() != absl::StatusCode::kInvalidArgument) __builtin_trap();
    return 0;
  }
  (void)exec->AsText();
  (void)exec->AsPython();
  (void)exec->Stats();
  std::string again = exec->Serialize();
  absl::StatusOr<Executable> back = Executable::Deserialize(again);
  if (!back.ok() || back->Serialize() != again) __builtin_trap();  // accepted executables round-trip
  if (exec->libraries.empty()) RunFunctions(*exec);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (size < 8) return size;
  std::mt19937_64 rng(seed);
  static const int64_t kInteresting[] = {
      0, 1, -1, 2, 3, 4, 5, 7, 8, 16, 255, 1024, INT32_MAX, INT64_MAX, INT64_MIN,
      kVoidRegister, kVMRegister, kVoidRegister - 1, int64_t{1} << 40, int64_t{1} << 56,
      InstrArg::Register(1).word(), InstrArg::Immediate(-1).word(), InstrArg::ConstIdx(0).word(),
      InstrArg::ConstIdx(99).word(), InstrArg::FuncIdx(0).word(), InstrArg::FuncIdx(1).word(),
      int64_t{4} << 56};
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    int64_t v = kInteresting[rng() % (sizeof(kInteresting) / sizeof(kInteresting[0]))];
    if (rng() % 4 == 0) v = static_cast<int64_t>(static_cast<uint64_t>(v) + rng() % 5 - 2);  // wraps
    // Words sit at arbitrary byte offsets (strings shift them), so any offset is fair game.
    size_t off = rng() % (size - 7);
    size_t width = rng() % 3 == 0 ? 4 : 8;
    std::memcpy(data + off, &v, width);
  }
  if (rng() % 8 == 0 && size > 16) size -= 1 + rng() % std::min<size_t>(size - 8, 64);  // truncate
  return std::min(size, max_size);
}

std::vector<std::string> KilnFuzzSeeds() {
  std::vector<std::string> seeds;
  {
    Assembler a;  // a VMCodeGen-like main: shape heap, checks, storage, tensors, tuples
    int64_t f32 = a.DTypeConst(DLDataType{kDLFloat, 32, 1});
    int64_t ctx = a.StrConst("ErrorContext(fn=main, loc=param[0], param=x)");
    int64_t shape = a.ShapeConst({2, 3});
    int64_t scope = a.StrConst("global");
    a.Begin("main", 1, {"x"});
    a.Call("vm.builtin.alloc_shape_heap", {VM(), Imm(2)}, 1);
    a.Call("vm.builtin.check_tensor_info", {R(0), Imm(2), C(f32), C(ctx)});
    a.Call("vm.builtin.match_shape", {R(0), R(1), Imm(2), Imm(1), Imm(0), Imm(1), Imm(1), C(ctx)});
    a.Call("vm.builtin.make_shape", {R(1), Imm(2), Imm(1), Imm(0), Imm(1), Imm(1)}, 2);
    a.Call("vm.builtin.alloc_storage", {VM(), C(shape), Imm(0), C(f32), C(scope)}, 3);
    a.Call("vm.builtin.alloc_tensor", {R(3), Imm(0), R(2), C(f32)}, 4);
    a.Call("vm.builtin.reshape", {R(4), C(shape)}, 5);
    a.Call("vm.builtin.shape_of", {R(5)}, 6);
    a.Call("vm.builtin.tensor_to_shape", {R(0)}, 7);
    a.Call("vm.builtin.make_tuple", {R(5), R(6), Void()}, 8);
    a.Call("vm.builtin.tuple_getitem", {R(8), Imm(1)}, 9);
    a.Call("vm.builtin.null_value", {}, 3);
    a.Ret(8);
    a.End();
    Executable e = a.Finish();
    e.memory_scopes.push_back({scope, "global"});
    seeds.push_back(e.Serialize());
  }
  {
    Assembler a;  // control flow, closures and recursion
    a.Begin("f", 1, {"n"});
    a.Call("vm.builtin.read_if_cond", {R(0)}, 1);
    a.If(1, 4);
    a.Call("vm.builtin.make_closure", {a.F("f"), Imm(0)}, 2);
    a.Call("vm.builtin.invoke_closure", {VM(), R(2)}, 3);
    a.Goto(2);
    a.Call("vm.builtin.copy", {Imm(7)}, 3);
    a.Ret(3);
    a.End();
    a.Begin("g", 2, {"a", "b"});
    a.Call("f", {R(1)}, 2);
    a.Call("vm.builtin.call_tir_dyn", {a.F("vm.builtin.make_tuple"), R(0), C(a.ShapeConst({4}))}, 3);
    a.Call("vm.builtin.to_device", {R(0), Imm(1), Imm(0)}, 4);
    a.Call("vm.builtin.ensure_zero_offset", {R(0)}, 5);
    a.Call("vm.builtin.check_tuple_info", {R(3), Imm(2), Void()});
    a.Ret(3);
    a.End();
    seeds.push_back(a.Finish().Serialize());
  }
  {
    Assembler a;  // every constant kind and a library section
    a.IntConst(3);
    a.FloatConst(1.5);
    a.StrConst("s");
    a.TensorConst(*kiln::runtime::Tensor::Empty({2, 2}, DLDataType{kDLInt, 8, 1}));
    a.Begin("main", 0);
    a.Call("vm.builtin.make_tuple", {C(0), C(1), C(2), C(3)}, 0);
    a.Ret(0);
    a.End();
    Executable e = a.Finish();
    seeds.push_back(e.Serialize());
    e.libraries.push_back({"host-so", "llvm", "host", "\x7f" "ELF"});
    seeds.push_back(e.Serialize());
  }
  return seeds;
}
