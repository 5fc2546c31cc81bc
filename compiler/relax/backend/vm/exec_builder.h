// ExecBuilder: writes a Relax VM executable (runtime/vm/executable.h) one instruction at a time,
// as TVM's relax.ExecBuilder does. VMCodeGen (codegen_vm.h) drives it; tests drive it directly.
//
//   * The function table: DeclareFunction adds a kPackedFunc (a kernel, builtin or extern name,
//     resolved by the VM at load time) or reserves a kVMFunc by name so calls can refer to it
//     before its body is emitted; EmitFunction ... EndFunction emits a kVMFunc body and records
//     its parameter names.
//   * Instructions: EmitCall / EmitRet / EmitGoto / EmitIf in the encoding of runtime/vm/bytecode.h.
//     Jumps are relative; the codegen emits them with a placeholder and patches them with
//     SetInstrWord once the target is known.
//   * Constants: an int within ±(2^55-1) becomes an immediate argument; everything else (larger
//     ints, floats, strings, dtypes, shapes, tensors) goes into the constant pool, deduplicated by
//     value (two equal shapes share one pool entry).
//   * Get() renumbers the registers of each VM function in order of first definition (parameters
//     keep 0..n-1), sets register_file_size, checks that every register is defined before use and
//     every jump is sane, and runs Executable::Validate().
//
// Misuse (redeclaring a name with another kind, defining a function twice, a non-register Ret)
// does not abort: the first error is kept and returned by Get(), so callers emit without checking
// each step. Not thread-safe; one builder per executable.
#ifndef KILN_COMPILER_RELAX_BACKEND_VM_EXEC_BUILDER_H_
#define KILN_COMPILER_RELAX_BACKEND_VM_EXEC_BUILDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/vm/bytecode.h"
#include "runtime/vm/executable.h"

namespace kiln::relax::backend {

class ExecBuilder {
 public:
  // Adds `name` to the function table unless it is there already (then `kind` must match).
  void DeclareFunction(const std::string& name, vm::FuncInfo::Kind kind);
  // The kFuncIdx argument of a declared function (an error, kept, if it is not declared).
  vm::InstrArg GetFunction(const std::string& name);

  // Starts the body of VM function `name` (declaring it if needed). One name per parameter.
  void EmitFunction(const std::string& name, const std::vector<std::string>& param_names);
  void EndFunction(const std::string& name);

  // Call = [1, dst, func_idx, num_args, args...]. `func` must be a kFuncIdx argument; the string
  // form declares a packed function of that name first.
  void EmitCall(vm::InstrArg func, const std::vector<vm::InstrArg>& args, vm::RegName dst);
  void EmitCall(const std::string& func, const std::vector<vm::InstrArg>& args, vm::RegName dst);
  void EmitRet(vm::InstrArg result);
  void EmitGoto(int64_t pc_offset);
  void EmitIf(vm::InstrArg cond, int64_t false_offset);

  // The index the next instruction will get, and word `word` (0 = opcode) of instruction `instr`
  // overwritten: how jumps emitted before their target are patched.
  int64_t NextInstrIndex() const { return static_cast<int64_t>(exec_.instr_offset.size()); }
  void SetInstrWord(int64_t instr, int word, int64_t value);

  // Constant arguments: an immediate where one fits, else a deduplicated pool entry.
  vm::InstrArg ConvertInt(int64_t value);
  vm::InstrArg ConvertFloat(double value);
  vm::InstrArg ConvertString(const std::string& value);
  vm::InstrArg ConvertDataType(DLDataType value);
  vm::InstrArg ConvertShape(const std::vector<int64_t>& value);
  // A dense C-order tensor from its little-endian bytes (bytes.size() must equal its byte size).
  vm::InstrArg ConvertTensor(DLDataType dtype, const std::vector<int64_t>& shape, const std::string& bytes);
  // Records the memory scope a pool tensor is to be placed in (TVM's memory-scope section).
  void SaveMemoryScope(vm::InstrArg const_idx, const std::string& scope);

  // The first error so far (OK if none).
  const absl::Status& status() const { return status_; }
  // Finishes the executable (see the header comment). Call once; the builder is spent after it.
  absl::StatusOr<vm::Executable> Get();

 private:
  void Fail(absl::Status st);
  void PushInstr(std::initializer_list<int64_t> words);
  vm::InstrArg AddConstant(std::string key, vm::Constant c);
  void Formalize();
  absl::Status CheckFunctions() const;

  vm::Executable exec_;
  // Value key (tag + payload; a tensor's data only hashed) -> pool indices with that key.
  std::multimap<std::string, int64_t> const_index_;
  absl::Status status_;
};

}  // namespace kiln::relax::backend

#endif  // KILN_COMPILER_RELAX_BACKEND_VM_EXEC_BUILDER_H_
