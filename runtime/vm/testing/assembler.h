// A test-only assembler for VM executables: declares functions, emits instructions with symbolic
// callee names and registers, and computes register file sizes, so runtime tests can build
// executables without the compiler.
#ifndef KILN_RUNTIME_VM_TESTING_ASSEMBLER_H_
#define KILN_RUNTIME_VM_TESTING_ASSEMBLER_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "runtime/vm/executable.h"

namespace kiln::vm::testing {

inline InstrArg R(int64_t reg) { return InstrArg::Register(reg); }
inline InstrArg Imm(int64_t v) { return InstrArg::Immediate(v); }
inline InstrArg C(int64_t i) { return InstrArg::ConstIdx(i); }
inline InstrArg VM() { return InstrArg::Register(kVMRegister); }
inline InstrArg Void() { return InstrArg::Register(kVoidRegister); }

class Assembler {
 public:
  // Declares (or finds) a function by name; packed by default.
  int64_t Func(const std::string& name, FuncInfo::Kind kind = FuncInfo::Kind::kPackedFunc) {
    auto it = exec_.func_map.find(name);
    if (it != exec_.func_map.end()) return it->second;
    FuncInfo f;
    f.kind = kind;
    f.name = name;
    f.num_args = -2;
    exec_.func_map[name] = static_cast<int64_t>(exec_.func_table.size());
    exec_.func_table.push_back(f);
    return static_cast<int64_t>(exec_.func_table.size()) - 1;
  }
  InstrArg F(const std::string& name) { return InstrArg::FuncIdx(Func(name)); }

  int64_t AddConstant(Constant c) {
    exec_.constants.push_back(std::move(c));
    return static_cast<int64_t>(exec_.constants.size()) - 1;
  }
  int64_t IntConst(int64_t v) { Constant c; c.tag = ConstantTag::kInt; c.int_value = v; return AddConstant(c); }
  int64_t FloatConst(double v) { Constant c; c.tag = ConstantTag::kFloat; c.float_value = v; return AddConstant(c); }
  int64_t ShapeConst(std::vector<int64_t> s) { Constant c; c.tag = ConstantTag::kShape; c.shape = std::move(s); return AddConstant(c); }
  int64_t StrConst(std::string s) { Constant c; c.tag = ConstantTag::kStr; c.str = std::move(s); return AddConstant(c); }
  int64_t DTypeConst(DLDataType t) { Constant c; c.tag = ConstantTag::kDataType; c.dtype = t; return AddConstant(c); }
  int64_t TensorConst(runtime::Tensor t) { Constant c; c.tag = ConstantTag::kTensor; c.tensor = std::move(t); return AddConstant(c); }

  // Starts a VM function; registers 0..num_args-1 hold its arguments.
  void Begin(const std::string& name, int64_t num_args, std::vector<std::string> params = {}) {
    cur_ = Func(name, FuncInfo::Kind::kVMFunc);
    FuncInfo& f = exec_.func_table[cur_];
    f.kind = FuncInfo::Kind::kVMFunc;
    f.num_args = num_args;
    f.param_names = std::move(params);
    f.start_instr = static_cast<int64_t>(exec_.instr_offset.size());
    max_reg_ = num_args - 1;
  }
  void Call(const std::string& callee, const std::vector<InstrArg>& args, int64_t dst = kVoidRegister) {
    int64_t fidx = Func(callee);
    Emit({static_cast<int64_t>(Opcode::kCall), dst, fidx, static_cast<int64_t>(args.size())});
    for (InstrArg a : args) {
      exec_.instr_data.push_back(a.word());
      if (a.kind() == ArgKind::kRegister) Use(a.value());
    }
    Use(dst);
  }
  void Ret(int64_t reg) { Emit({static_cast<int64_t>(Opcode::kRet), reg}); Use(reg); }
  void Goto(int64_t offset) { Emit({static_cast<int64_t>(Opcode::kGoto), offset}); }
  void If(int64_t cond, int64_t false_offset) { Emit({static_cast<int64_t>(Opcode::kIf), cond, false_offset}); Use(cond); }
  // Index of the next instruction, relative to the current function (for jump offsets).
  int64_t pc() const { return static_cast<int64_t>(exec_.instr_offset.size()); }
  void End() {
    FuncInfo& f = exec_.func_table[cur_];
    f.end_instr = static_cast<int64_t>(exec_.instr_offset.size());
    f.register_file_size = max_reg_ + 1;
  }

  Executable& exec() { return exec_; }
  Executable Finish() { return exec_; }

 private:
  void Emit(std::initializer_list<int64_t> words) {
    exec_.instr_offset.push_back(static_cast<int64_t>(exec_.instr_data.size()));
    exec_.instr_data.insert(exec_.instr_data.end(), words);
  }
  void Use(int64_t reg) {
    if (reg < kVoidRegister) max_reg_ = std::max(max_reg_, reg);
  }

  Executable exec_;
  int64_t cur_ = -1;
  int64_t max_reg_ = -1;
};

}  // namespace kiln::vm::testing

#endif  // KILN_RUNTIME_VM_TESTING_ASSEMBLER_H_
