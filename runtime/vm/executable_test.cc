#include "runtime/vm/executable.h"

#include <cstring>

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

// The function of TVM's sample output in tvm-reference.md §2.2 (trimmed there), rebuilt
// instruction by instruction; the expected text is the sample's lines verbatim.
Executable TvmSample() {
  Assembler a;
  a.Begin("get_image_embeddings", 4);
  a.Call("vm.builtin.check_tensor_info", {R(0), Imm(4), C(0), C(1)});
  a.Call("vm.builtin.match_shape",
         {R(0), Void(), Imm(4), Imm(0), Imm(1), Imm(0), Imm(3), Imm(0), Imm(1024), Imm(0), Imm(1024), C(1)});
  a.Call("vm.builtin.alloc_storage", {VM(), C(2), Imm(0), C(3), C(4)}, 315);
  a.Call("vm.builtin.alloc_tensor", {R(315), Imm(0), C(5), C(6)}, 316);
  a.Call("conv2d", {R(0), R(2), R(316)});
  a.Call("vm.builtin.reshape", {R(3), C(7)}, 317);
  a.Call("add", {R(316), R(317), R(319)});
  a.Call("vm.builtin.null_value", {}, 317);
  a.Call("vm.builtin.make_tuple", {R(1624), R(1625)}, 1626);
  a.Ret(1626);
  a.End();
  a.Func("ones2");
  a.Func("cumsum");
  a.Begin("_initialize_effect", 0);
  a.Call("vm.builtin.make_tuple", {Void()}, 0);
  a.Call("vm.builtin.null_value", {});
  a.Ret(0);
  a.End();
  return a.Finish();
}

TEST(ExecutableTest, AsTextMatchesTvmByteForByte) {
  // Packed functions print in table order: the builtins the first function declared come first.
  std::string text = TvmSample().AsText();
  const char* kMain =
      "@get_image_embeddings:\n"
      "  call  vm.builtin.check_tensor_info in: %0, i4, c[0], c[1] dst: %void\n"
      "  call  vm.builtin.match_shape in: %0, %void, i4, i0, i1, i0, i3, i0, i1024, i0, i1024, c[1] dst: %void\n"
      "  call  vm.builtin.alloc_storage in: %vm, c[2], i0, c[3], c[4] dst: %315\n"
      "  call  vm.builtin.alloc_tensor in: %315, i0, c[5], c[6] dst: %316\n"
      "  call  conv2d           in: %0, %2, %316 dst: %void\n"
      "  call  vm.builtin.reshape in: %3, c[7]     dst: %317\n"
      "  call  add              in: %316, %317, %319 dst: %void\n"
      "  call  vm.builtin.null_value in:              dst: %317\n"
      "  call  vm.builtin.make_tuple in: %1624, %1625 dst: %1626\n"
      "  ret   %1626\n"
      "\n"
      "@vm.builtin.check_tensor_info packed_func;\n"
      "\n";
  EXPECT_EQ(text.substr(0, std::strlen(kMain)), kMain);
  EXPECT_NE(text.find("@ones2 packed_func;\n\n@cumsum packed_func;\n\n"), std::string::npos);
  const char* kInit =
      "@_initialize_effect:\n"
      "  call  vm.builtin.make_tuple in: %void        dst: %0\n"
      "  call  vm.builtin.null_value in:              dst: %void\n"
      "  ret   %0\n"
      "\n";
  ASSERT_GE(text.size(), std::strlen(kInit));
  EXPECT_EQ(text.substr(text.size() - std::strlen(kInit)), kInit);
}

Executable Branchy() {
  Assembler a;
  a.Begin("main", 1, {"x"});
  a.If(0, 3);
  a.Call("vm.builtin.copy", {Imm(1)}, 1);
  a.Goto(2);
  a.Call("vm.builtin.copy", {a.F("helper")}, 1);
  a.Ret(1);
  a.End();
  a.exec().func_table[a.Func("helper")].kind = FuncInfo::Kind::kVMTIRFunc;
  a.exec().func_table[a.Func("helper")].num_args = 2;
  a.exec().func_table[a.Func("helper")].register_file_size = 3;
  return a.Finish();
}

TEST(ExecutableTest, AsTextControlFlowAndFunctionKinds) {
  EXPECT_EQ(Branchy().AsText(),
            "@main:\n"
            "  If    %0, 3\n"
            "  call  vm.builtin.copy  in: i1           dst: %1\n"
            "  goto  2\n"
            "  call  vm.builtin.copy  in: f[helper]    dst: %1\n"
            "  ret   %1\n"
            "\n"
            "@vm.builtin.copy packed_func;\n"
            "\n"
            "@helper num_inputs=2 vm_tir_func;\n"
            "\n");
}

TEST(ExecutableTest, AsPython) {
  EXPECT_EQ(Branchy().AsPython(),
            "ib = rx.Builder()\n"
            "with ib.function(\"main\", num_inputs=1):\n"
            "    ib.emit_if(ib.r(0), 3)\n"
            "    ib.emit_call(\"vm.builtin.copy\", args=[ib.imm(1)], dst=ib.r(1))\n"
            "    ib.emit_goto(2)\n"
            "    ib.emit_call(\"vm.builtin.copy\", args=[ib.f(\"helper\")], dst=ib.r(1))\n"
            "    ib.emit_ret(ib.r(1))\n");
  Assembler a;
  a.Begin("f", 0);
  a.Call("vm.builtin.alloc_storage", {VM(), C(0)}, 0);
  a.Call("vm.builtin.null_value", {});
  a.Ret(0);
  a.End();
  EXPECT_EQ(a.Finish().AsPython(),
            "ib = rx.Builder()\n"
            "with ib.function(\"f\", num_inputs=0):\n"
            "    ib.emit_call(\"vm.builtin.alloc_storage\", args=[ib.r(vm), ib.c(0)], dst=ib.r(0))\n"
            "    ib.emit_call(\"vm.builtin.null_value\", args=[])\n"
            "    ib.emit_ret(ib.r(0))\n");
}

runtime::Tensor MakeTensor(std::vector<int64_t> shape, std::vector<float> values) {
  runtime::Tensor t = *runtime::Tensor::Empty(shape, DLDataType{kDLFloat, 32, 1});
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

// Every constant kind, memory scopes and a library.
Executable Full() {
  Assembler a;
  a.IntConst(-7);
  a.FloatConst(2.5);
  a.DTypeConst(DLDataType{kDLFloat, 16, 1});
  a.StrConst("global");
  a.ShapeConst({2, 3});
  a.TensorConst(MakeTensor({2, 2}, {1, 2, 3, 4}));
  a.TensorConst(MakeTensor({}, {9}));
  a.ShapeConst({});
  a.Begin("main", 2, {"x", "y"});
  a.Call("add", {R(0), R(1), C(5), Imm(-3), a.F("add")}, 2);
  a.Ret(2);
  a.End();
  a.exec().memory_scopes.push_back({5, "global.texture"});
  a.exec().libraries.push_back({"host-so", "llvm -mtriple=x86_64-linux-gnu", "host", std::string("\x7f" "ELF\0\1", 6)});
  return a.Finish();
}

TEST(ExecutableTest, RoundTrip) {
  Executable e = Full();
  ASSERT_TRUE(e.Validate().ok()) << e.Validate();
  std::string bytes = e.Serialize();
  absl::StatusOr<Executable> back = Executable::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(back->AsText(), e.AsText());
  EXPECT_EQ(back->func_map.at("main"), 0);
  ASSERT_EQ(back->constants.size(), e.constants.size());
  EXPECT_EQ(back->constants[0].int_value, -7);
  EXPECT_EQ(back->constants[1].float_value, 2.5);
  EXPECT_EQ(back->constants[2].dtype.bits, 16);
  EXPECT_EQ(back->constants[3].str, "global");
  EXPECT_EQ(back->constants[4].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back->constants[5].tensor.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(static_cast<float*>(back->constants[5].tensor.data())[3], 4.0f);
  EXPECT_EQ(back->constants[6].tensor.ndim(), 0);
  EXPECT_EQ(back->memory_scopes, e.memory_scopes);
  ASSERT_EQ(back->libraries.size(), 1u);
  EXPECT_EQ(back->libraries[0].bytes, e.libraries[0].bytes);
  EXPECT_EQ(back->libraries[0].target, e.libraries[0].target);
}

int64_t ReadI64(const std::string& s, size_t off) {
  int64_t v;
  std::memcpy(&v, s.data() + off, 8);
  return v;
}

TEST(ExecutableTest, TvmLayout) {
  Assembler a;
  a.Func("k");
  a.Begin("main", 0);
  a.Call("k", {Imm(5)}, 0);
  a.Ret(0);
  a.End();
  std::string b = a.Finish().Serialize();
  // magic (LE) | "0.14"
  EXPECT_EQ(b.substr(0, 8), std::string("\x1e\x15\x14\x42\x2f\xde\x25\xd2", 8));
  EXPECT_EQ(ReadI64(b, 8), 4);
  EXPECT_EQ(b.substr(16, 4), "0.14");
  // global section: 2 functions; the first is packed "k".
  EXPECT_EQ(ReadI64(b, 20), 2);
  int32_t kind;
  std::memcpy(&kind, b.data() + 28, 4);
  EXPECT_EQ(kind, 0);
  EXPECT_EQ(ReadI64(b, 32), 1);
  EXPECT_EQ(b[40], 'k');
  // No libraries: the file ends with the code section, as TVM writes it; its last word is Ret's
  // register, then the Call's immediate argument word sits 3 words earlier.
  EXPECT_EQ(ReadI64(b, b.size() - 8), 0);
  EXPECT_EQ(ReadI64(b, b.size() - 16), 2);  // Ret opcode
  EXPECT_EQ(ReadI64(b, b.size() - 24), InstrArg::Immediate(5).word());
  EXPECT_EQ(static_cast<uint64_t>(ReadI64(b, b.size() - 24)) >> 56, 1u);
}

TEST(ExecutableTest, V1MagicHasNoMemoryScopeSection) {
  Assembler a;
  a.Begin("main", 1);
  a.Ret(0);
  a.End();
  std::string v2 = a.Finish().Serialize();
  // Drop the (empty) memory-scope section: it sits after the header and the global section.
  std::string header_and_globals = v2.substr(0, v2.size() - (8 + 8 + 8 + 8 + 8 + 2 * 8) - 8);
  std::string v1 = header_and_globals + v2.substr(header_and_globals.size() + 8);
  uint64_t m = kExecutableMagicV1;
  std::memcpy(&v1[0], &m, 8);
  absl::StatusOr<Executable> e = Executable::Deserialize(v1);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->func_table[0].name, "main");
}

TEST(ExecutableTest, StatsReport) {
  EXPECT_EQ(Full().Stats(),
            "Relax VM executable statistics:\n"
            "  Constant pool (# 8): [-7, 2.5, float16, \"global\", shapetuple[2, 3], [2, 2], scalar, shapetuple[]]\n"
            "  Globals (#2): [main, add]\n"
            "  Libraries (#1): [host (host-so, llvm -mtriple=x86_64-linux-gnu, 6 bytes)]\n");
}

// --- Loading hostile input: every failure is INVALID_ARGUMENT with a message. -------------------

void ExpectInvalid(const std::string& bytes, const std::string& needle) {
  absl::StatusOr<Executable> e = Executable::Deserialize(bytes);
  ASSERT_FALSE(e.ok()) << "accepted; expected an error containing \"" << needle << "\"";
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find(needle), std::string::npos) << e.status();
}

TEST(ExecutableTest, EveryTruncationFails) {
  std::string b = Full().Serialize();
  for (size_t n = 0; n < b.size(); ++n) {
    absl::StatusOr<Executable> e = Executable::Deserialize(b.substr(0, n));
    // A cut exactly at the end of the code section is a valid TVM (library-less) file.
    if (e.ok()) {
      EXPECT_TRUE(e->libraries.empty()) << n;
      continue;
    }
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(ExecutableTest, HeaderErrors) {
  std::string b = Full().Serialize();
  std::string bad_magic = b;
  bad_magic[0] ^= 1;
  ExpectInvalid(bad_magic, "bad magic");
  std::string bad_version = b;
  bad_version[18] = '2';
  ExpectInvalid(bad_version, "version \"0.24\"");
  std::string trailing = b + "x";
  ExpectInvalid(trailing, "trailing");
  std::string bad_checksum = b;
  bad_checksum[b.size() - 1] ^= 1;
  ExpectInvalid(bad_checksum, "checksum mismatch");
}

TEST(ExecutableTest, HostileCounts) {
  std::string b = Full().Serialize();
  std::string huge = b;
  int64_t n = int64_t{1} << 60;
  std::memcpy(&huge[20], &n, 8);  // function count
  ExpectInvalid(huge, "function count");
  std::string long_name = b;
  std::memcpy(&long_name[32], &n, 8);  // the first function's name length
  ExpectInvalid(long_name, "string length");
}

// Builds with the assembler, then corrupts one word of the code.
std::string WithWord(int64_t word_index, int64_t value) {
  Executable e = Branchy();
  e.instr_data[word_index] = value;
  return e.Serialize();
}

TEST(ExecutableTest, CodeErrors) {
  // Branchy's words: [4 0 3] [1 1 f 1 i1] [3 2] [1 1 f 1 fidx] [2 1]
  ExpectInvalid(WithWord(0, 9), "malformed");                        // opcode
  ExpectInvalid(WithWord(1, 7), "condition register 7");             // If cond
  ExpectInvalid(WithWord(2, 1), "not > 1");                          // If false offset
  ExpectInvalid(WithWord(2, 9), "leaves the function");
  ExpectInvalid(WithWord(4, 2), "destination register 2");           // Call dst
  ExpectInvalid(WithWord(4, kVMRegister), "destination register");
  ExpectInvalid(WithWord(5, 99), "function index 99");               // callee
  ExpectInvalid(WithWord(6, 1 << 20), "malformed");                  // num_args beyond the data
  ExpectInvalid(WithWord(6, -1), "malformed");
  ExpectInvalid(WithWord(7, InstrArg::Register(5).word()), "register 5");
  ExpectInvalid(WithWord(7, InstrArg::ConstIdx(0).word()), "constant index 0");
  ExpectInvalid(WithWord(7, InstrArg::FuncIdx(-1).word()), "function index -1");
  ExpectInvalid(WithWord(7, int64_t{7} << 56), "unknown kind 7");
  ExpectInvalid(WithWord(9, 0), "backward");                         // Goto 0: a loop
  ExpectInvalid(WithWord(9, -2), "backward");
  ExpectInvalid(WithWord(9, 5), "leaves the function");
  ExpectInvalid(WithWord(15, 3), "leaves the function");             // Ret -> Goto 3
  ExpectInvalid(WithWord(16, -1), "result register -1");
  Assembler a;
  a.Begin("main", 0);
  a.Call("f", {});
  a.End();
  ExpectInvalid(a.Finish().Serialize(), "not ret");
}

TEST(ExecutableTest, TableErrors) {
  Executable e = Branchy();
  e.func_table[0].end_instr = 99;
  ExpectInvalid(e.Serialize(), "instruction range");
  e = Branchy();
  e.func_table[0].register_file_size = int64_t{1} << 40;
  ExpectInvalid(e.Serialize(), "register_file_size");
  e = Branchy();
  e.func_table[0].num_args = 5;
  ExpectInvalid(e.Serialize(), "parameter names");
  e = Branchy();
  e.instr_offset[2] = 1000;
  ExpectInvalid(e.Serialize(), "instruction 2 at word 1000");
  e = Branchy();
  e.memory_scopes.push_back({3, "global"});
  ExpectInvalid(e.Serialize(), "memory scope for constant 3");
  e = Branchy();
  e.func_table[1].name = "main";
  ExpectInvalid(e.Serialize(), "appears twice");
  // Validate() sees the same problems in memory.
  e = Branchy();
  e.func_map["nope"] = 7;
  EXPECT_FALSE(e.Validate().ok());
}

TEST(ExecutableTest, ConstantErrors) {
  Assembler a;
  a.TensorConst(MakeTensor({2}, {1, 2}));
  a.Begin("main", 0);
  a.Call("f", {C(0)}, 0);
  a.Ret(0);
  a.End();
  std::string b = a.Finish().Serialize();
  // The constant section starts after header (20), globals and the memory-scope count.
  size_t tag_at = b.find(std::string("\x46\0\0\0", 4));
  ASSERT_NE(tag_at, std::string::npos);
  std::string bad_tag = b;
  bad_tag[tag_at] = 66;
  ExpectInvalid(bad_tag, "unknown constant type tag 66");
  std::string bad_tensor_magic = b;
  bad_tensor_magic[tag_at + 4] ^= 1;
  ExpectInvalid(bad_tensor_magic, "bad tensor magic");
  // ndim (at tag + 4 + 8 + 8 + 8) made huge, then negative.
  std::string bad_ndim = b;
  int32_t ndim = 1 << 30;
  std::memcpy(&bad_ndim[tag_at + 28], &ndim, 4);
  ExpectInvalid(bad_ndim, "ndim");
  // The byte size (after dtype and one dim) disagreeing with the shape.
  std::string bad_size = b;
  int64_t nbytes = 12;
  std::memcpy(&bad_size[tag_at + 28 + 4 + 4 + 8], &nbytes, 8);
  ExpectInvalid(bad_size, "byte size");
  // An empty tensor whose other dims overflow: (0,) made (0, 2^40, 2^40) is rejected, not passed on.
  {
    Assembler e;
    e.TensorConst(*runtime::Tensor::Empty({0, 1, 1}, DLDataType{kDLFloat, 32, 1}));
    e.Begin("main", 0);
    e.Call("f", {C(0)}, 0);
    e.Ret(0);
    e.End();
    std::string z = e.Finish().Serialize();
    size_t at = z.find(std::string("\x46\0\0\0", 4));
    int64_t big = int64_t{1} << 40;
    std::memcpy(&z[at + 28 + 4 + 4 + 8], &big, 8);
    std::memcpy(&z[at + 28 + 4 + 4 + 16], &big, 8);
    ExpectInvalid(z, "tensor dimensions overflow");
  }
  std::string neg_dim = b;
  int64_t dim = -1;
  std::memcpy(&neg_dim[tag_at + 28 + 4 + 4], &dim, 8);
  ExpectInvalid(neg_dim, "negative tensor dimension");
}

}  // namespace
}  // namespace kiln::vm
