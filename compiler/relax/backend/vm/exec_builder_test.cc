// ExecBuilder: the instruction encoding, immediates at the edge of their range, the constant pool's
// deduplication per kind, register renumbering, the function table (kinds, parameter names,
// forward declarations) and each misuse reported by Get().
#include "compiler/relax/backend/vm/exec_builder.h"

#include <cstring>

#include "gtest/gtest.h"
#include "runtime/vm/executable.h"

namespace kiln::relax::backend {
namespace {

using vm::FuncInfo;
using vm::InstrArg;

constexpr DLDataType kF32 = {kDLFloat, 32, 1};

TEST(ExecBuilder, EncodesInstructionsAndRenumbersRegisters) {
  ExecBuilder b;
  b.EmitFunction("main", {"x", "y"});
  // Registers 7 and 9 are defined in that order: they become %2 and %3.
  b.EmitCall("vm.builtin.copy", {InstrArg::Register(1)}, 7);
  b.EmitCall("add", {InstrArg::Register(0), InstrArg::Register(7)}, 9);
  b.EmitCall("sink", {InstrArg::Register(9), InstrArg::Register(vm::kVMRegister)}, vm::kVoidRegister);
  b.EmitRet(InstrArg::Register(9));
  b.EndFunction("main");
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_TRUE(exec.ok()) << exec.status();

  ASSERT_EQ(exec->func_table.size(), 4u);
  const FuncInfo& main = exec->func_table[0];
  EXPECT_EQ(main.kind, FuncInfo::Kind::kVMFunc);
  EXPECT_EQ(main.num_args, 2);
  EXPECT_EQ(main.param_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(main.register_file_size, 4);
  EXPECT_EQ(main.start_instr, 0);
  EXPECT_EQ(main.end_instr, 4);
  EXPECT_EQ(exec->func_table[1].kind, FuncInfo::Kind::kPackedFunc);
  EXPECT_EQ(exec->func_table[1].name, "vm.builtin.copy");
  EXPECT_EQ(exec->func_table[1].num_args, -2);  // TVM's marker for "arity unknown"
  EXPECT_EQ(exec->func_map.at("add"), 2);

  // Call = [1, dst, func, nargs, args...], Ret = [2, reg].
  std::vector<int64_t> expected = {1, 2, 1, 1, InstrArg::Register(1).word(),
                                   1, 3, 2, 2, InstrArg::Register(0).word(), InstrArg::Register(2).word(),
                                   1, vm::kVoidRegister, 3, 2, InstrArg::Register(3).word(),
                                   InstrArg::Register(vm::kVMRegister).word(),
                                   2, 3};
  EXPECT_EQ(exec->instr_data, expected);
  EXPECT_EQ(exec->instr_offset, (std::vector<int64_t>{0, 5, 11, 17}));
  EXPECT_EQ(exec->AsText(),
            "@main:\n"
            "  call  vm.builtin.copy  in: %1           dst: %2\n"
            "  call  add              in: %0, %2       dst: %3\n"
            "  call  sink             in: %3, %vm      dst: %void\n"
            "  ret   %3\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n"
            "@add packed_func;\n"
            "\n"
            "@sink packed_func;\n"
            "\n");
}

TEST(ExecBuilder, IntsWithinFiftyFiveBitsAreImmediates) {
  ExecBuilder b;
  const int64_t max = (int64_t{1} << 55) - 1;
  EXPECT_EQ(b.ConvertInt(0).kind(), vm::ArgKind::kImmediate);
  EXPECT_EQ(b.ConvertInt(max).kind(), vm::ArgKind::kImmediate);
  EXPECT_EQ(b.ConvertInt(max).value(), max);
  EXPECT_EQ(b.ConvertInt(-max).kind(), vm::ArgKind::kImmediate);
  EXPECT_EQ(b.ConvertInt(-max).value(), -max);
  InstrArg big = b.ConvertInt(max + 1);
  InstrArg small = b.ConvertInt(-max - 1);
  EXPECT_EQ(big.kind(), vm::ArgKind::kConstIdx);
  EXPECT_EQ(small.kind(), vm::ArgKind::kConstIdx);
  EXPECT_NE(big.value(), small.value());
  EXPECT_EQ(b.ConvertInt(max + 1).word(), big.word());  // deduplicated
  b.EmitFunction("f", {});
  b.EmitCall("g", {big, small}, 0);
  b.EmitRet(InstrArg::Register(0));
  b.EndFunction("f");
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_TRUE(exec.ok()) << exec.status();
  ASSERT_EQ(exec->constants.size(), 2u);
  EXPECT_EQ(exec->constants[0].tag, vm::ConstantTag::kInt);
  EXPECT_EQ(exec->constants[0].int_value, max + 1);
  EXPECT_EQ(exec->constants[1].int_value, -max - 1);
}

TEST(ExecBuilder, ConstantsAreDeduplicatedByValueAndKind) {
  ExecBuilder b;
  InstrArg s1 = b.ConvertShape({2, 3});
  InstrArg s2 = b.ConvertShape({2, 3});
  InstrArg s3 = b.ConvertShape({3, 2});
  InstrArg e = b.ConvertShape({});
  EXPECT_EQ(s1.word(), s2.word());
  EXPECT_NE(s1.word(), s3.word());
  EXPECT_NE(e.word(), s1.word());
  EXPECT_EQ(b.ConvertString("global").word(), b.ConvertString("global").word());
  EXPECT_NE(b.ConvertString("global").word(), b.ConvertString("shared").word());
  EXPECT_EQ(b.ConvertFloat(1.5).word(), b.ConvertFloat(1.5).word());
  EXPECT_NE(b.ConvertFloat(0.0).word(), b.ConvertFloat(-0.0).word());
  EXPECT_EQ(b.ConvertDataType(kF32).word(), b.ConvertDataType(kF32).word());
  EXPECT_NE(b.ConvertDataType(kF32).word(), b.ConvertDataType({kDLInt, 32, 1}).word());

  float data[2] = {1.0f, 2.0f};
  std::string bytes(reinterpret_cast<const char*>(data), sizeof(data));
  InstrArg t1 = b.ConvertTensor(kF32, {2}, bytes);
  InstrArg t2 = b.ConvertTensor(kF32, {2}, bytes);
  InstrArg t3 = b.ConvertTensor(kF32, {1, 2}, bytes);   // same bytes, other shape
  InstrArg t4 = b.ConvertTensor({kDLInt, 32, 1}, {2}, bytes);  // other dtype
  EXPECT_EQ(t1.word(), t2.word());
  EXPECT_NE(t1.word(), t3.word());
  EXPECT_NE(t1.word(), t4.word());
  // A string and a shape never share an entry, whatever their payload.
  EXPECT_NE(b.ConvertString("").word(), e.word());

  b.EmitFunction("f", {});
  b.EmitCall("g", {s1, s3, t1}, 0);
  b.EmitRet(InstrArg::Register(0));
  b.EndFunction("f");
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_TRUE(exec.ok()) << exec.status();
  // shapes {2,3} {3,2} {}, strings global shared, floats 1.5 0 -0, dtypes f32 i32, tensors x3, ""
  EXPECT_EQ(exec->constants.size(), 14u);
  const vm::Constant& t = exec->constants[t1.value()];
  ASSERT_EQ(t.tag, vm::ConstantTag::kTensor);
  EXPECT_EQ(t.tensor.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(std::memcmp(t.tensor.data(), data, sizeof(data)), 0);
  EXPECT_EQ(exec->constants[s3.value()].shape, (std::vector<int64_t>{3, 2}));
}

TEST(ExecBuilder, TensorBytesMustMatchTheShape) {
  ExecBuilder b;
  b.ConvertTensor(kF32, {3}, std::string(8, '\0'));
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.status().code(), absl::StatusCode::kInvalidArgument) << exec.status();
  EXPECT_NE(exec.status().message().find("holds 8 bytes"), std::string::npos) << exec.status();
}

TEST(ExecBuilder, IfAndGotoArePatchable) {
  ExecBuilder b;
  b.EmitFunction("f", {"c"});
  int64_t if_instr = b.NextInstrIndex();
  b.EmitIf(InstrArg::Register(0), 99);
  b.EmitCall("one", {}, 1);
  int64_t goto_instr = b.NextInstrIndex();
  b.EmitGoto(99);
  b.EmitCall("two", {}, 1);
  b.SetInstrWord(if_instr, 2, 3);
  b.SetInstrWord(goto_instr, 1, 2);
  b.EmitRet(InstrArg::Register(1));
  b.EndFunction("f");
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->AsText(),
            "@f:\n"
            "  If    %0, 3\n"
            "  call  one              in:              dst: %1\n"
            "  goto  2\n"
            "  call  two              in:              dst: %1\n"
            "  ret   %1\n"
            "\n"
            "@one packed_func;\n"
            "\n"
            "@two packed_func;\n"
            "\n");
}

TEST(ExecBuilder, ForwardDeclaredVMFunctionsAndMemoryScopes) {
  ExecBuilder b;
  b.DeclareFunction("callee", FuncInfo::Kind::kVMFunc);
  InstrArg f = b.GetFunction("callee");
  b.EmitFunction("main", {"x"});
  b.EmitCall(f, {InstrArg::Register(0)}, 1);
  b.EmitRet(InstrArg::Register(1));
  b.EndFunction("main");
  b.EmitFunction("callee", {"y"});
  b.EmitRet(InstrArg::Register(0));
  b.EndFunction("callee");
  InstrArg c = b.ConvertTensor(kF32, {}, std::string(4, '\0'));
  b.SaveMemoryScope(c, "global.texture");
  absl::StatusOr<vm::Executable> exec = b.Get();
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_EQ(exec->func_map.at("callee"), 0);
  EXPECT_EQ(exec->func_table[0].param_names, (std::vector<std::string>{"y"}));
  EXPECT_EQ(exec->func_table[0].start_instr, 2);
  EXPECT_EQ(exec->func_table[0].register_file_size, 1);
  ASSERT_EQ(exec->memory_scopes.size(), 1u);
  EXPECT_EQ(exec->memory_scopes[0], (std::pair<int64_t, std::string>{0, "global.texture"}));
}

// Each misuse comes back from Get() as an error naming the function, never as a crash.
TEST(ExecBuilder, ReportsMisuse) {
  auto error_of = [](auto build) {
    ExecBuilder b;
    build(b);
    absl::StatusOr<vm::Executable> exec = b.Get();
    return exec.ok() ? std::string("ok") : std::string(exec.status().message());
  };
  auto has = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };

  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.DeclareFunction("f", FuncInfo::Kind::kPackedFunc);
                    b.DeclareFunction("f", FuncInfo::Kind::kVMFunc);
                  }),
                  "two different kinds"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.EmitFunction("f", {});
                    b.EmitCall("g", {InstrArg::Register(3)}, 4);
                    b.EmitRet(InstrArg::Register(4));
                    b.EndFunction("f");
                  }),
                  "register %3 of f is used at instruction 0 before it is defined"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.DeclareFunction("later", FuncInfo::Kind::kVMFunc);
                    b.EmitFunction("f", {});
                    b.EmitCall(b.GetFunction("later"), {}, 0);
                    b.EmitRet(InstrArg::Register(0));
                    b.EndFunction("f");
                  }),
                  "later is called but never defined"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.EmitFunction("f", {});
                    b.EmitRet(InstrArg::Register(0));
                    b.EndFunction("f");
                    b.EmitFunction("f", {});
                  }),
                  "defined twice"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.EmitFunction("f", {});
                    b.EmitRet(InstrArg::Immediate(1));
                  }),
                  "Ret takes a register"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) { b.GetFunction("nope"); }), "nope is not declared"));
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.EmitFunction("f", {});
                    b.EndFunction("f");
                  }),
                  "f has no instructions"));
  // Executable::Validate runs last: a function that does not end with ret is rejected there.
  EXPECT_TRUE(has(error_of([](ExecBuilder& b) {
                    b.EmitFunction("f", {"x"});
                    b.EmitCall("g", {InstrArg::Register(0)}, 1);
                    b.EndFunction("f");
                  }),
                  "invalid executable"));
}

}  // namespace
}  // namespace kiln::relax::backend
