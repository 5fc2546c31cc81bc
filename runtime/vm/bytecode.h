// The Relax VM's instruction set, in TVM's encoding (../shared/notes/tvm-reference.md §2.1): four
// opcodes, each instruction a run of int64 words in the executable's instr_data, and one 64-bit
// word per argument holding an 8-bit kind and a sign-extended 56-bit value.
//
//   Call = [1, dst, func_idx, num_args, arg_0 ... arg_{n-1}]
//   Ret  = [2, result_reg]
//   Goto = [3, pc_offset]            relative jump
//   If   = [4, cond_reg, false_off]  falls through when cond != 0, else pc += false_off (> 1)
//
// Header-only and dependency-free: the compiler's ExecBuilder writes these words and the runtime's
// loader and interpreter read them, so both sides share this one definition.
#ifndef KILN_RUNTIME_VM_BYTECODE_H_
#define KILN_RUNTIME_VM_BYTECODE_H_

#include <cstdint>

namespace kiln::vm {

enum class Opcode : int64_t { kCall = 1, kRet = 2, kGoto = 3, kIf = 4 };

// Register numbers are plain int64 values; two are special.
using RegName = int64_t;
inline constexpr RegName kVoidRegister = int64_t{1} << 54;       // "%void": the result is dropped
inline constexpr RegName kVMRegister = (int64_t{1} << 54) + 1;   // "%vm": the VM context itself

enum class ArgKind : uint8_t { kRegister = 0, kImmediate = 1, kConstIdx = 2, kFuncIdx = 3 };

// One argument word: bits 63..56 the kind, bits 55..0 the value (sign-extended on decode).
class InstrArg {
 public:
  static constexpr int kValueBits = 56;
  static constexpr int64_t kValueMax = (int64_t{1} << (kValueBits - 1)) - 1;  // immediates lie in ±kValueMax

  InstrArg() = default;
  explicit InstrArg(int64_t word) : word_(word) {}
  InstrArg(ArgKind kind, int64_t value)
      : word_(static_cast<int64_t>((static_cast<uint64_t>(kind) << kValueBits) |
                                   (static_cast<uint64_t>(value) & ((uint64_t{1} << kValueBits) - 1)))) {}

  static InstrArg Register(RegName r) { return InstrArg(ArgKind::kRegister, r); }
  static InstrArg Immediate(int64_t v) { return InstrArg(ArgKind::kImmediate, v); }
  static InstrArg ConstIdx(int64_t i) { return InstrArg(ArgKind::kConstIdx, i); }
  static InstrArg FuncIdx(int64_t i) { return InstrArg(ArgKind::kFuncIdx, i); }

  // The raw kind byte: a loader must check it is one of ArgKind before trusting kind().
  uint8_t kind_byte() const { return static_cast<uint8_t>(static_cast<uint64_t>(word_) >> kValueBits); }
  ArgKind kind() const { return static_cast<ArgKind>(kind_byte()); }
  int64_t value() const {
    return static_cast<int64_t>(static_cast<uint64_t>(word_) << (64 - kValueBits)) >> (64 - kValueBits);
  }
  int64_t word() const { return word_; }

 private:
  int64_t word_ = 0;
};

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_BYTECODE_H_
