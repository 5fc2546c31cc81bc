#include "compiler/relax/backend/vm/exec_builder.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/tensor.h"

namespace kiln::relax::backend {
namespace {

using vm::ArgKind;
using vm::FuncInfo;
using vm::InstrArg;
using vm::Opcode;

// TVM marks a declared but not yet defined function with num_args -2 (packed functions keep it:
// their arity is the callee's business), and so does the serialized form.
constexpr int64_t kUndefinedArgs = -2;

bool IsSpecial(vm::RegName r) { return r == vm::kVoidRegister || r == vm::kVMRegister; }

template <typename T>
void AppendRaw(std::string* key, const T& v) {
  key->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

void ExecBuilder::Fail(absl::Status st) {
  if (status_.ok()) status_ = std::move(st);
}

void ExecBuilder::DeclareFunction(const std::string& name, FuncInfo::Kind kind) {
  auto it = exec_.func_map.find(name);
  if (it != exec_.func_map.end()) {
    if (exec_.func_table[it->second].kind != kind) {
      Fail(absl::InternalError(absl::StrCat("VM codegen: function ", name, " is declared with two different kinds")));
    }
    return;
  }
  FuncInfo info;
  info.kind = kind;
  info.name = name;
  info.num_args = kUndefinedArgs;
  exec_.func_map[name] = static_cast<int64_t>(exec_.func_table.size());
  exec_.func_table.push_back(std::move(info));
}

InstrArg ExecBuilder::GetFunction(const std::string& name) {
  auto it = exec_.func_map.find(name);
  if (it == exec_.func_map.end()) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: function ", name, " is not declared")));
    return InstrArg::FuncIdx(0);
  }
  return InstrArg::FuncIdx(it->second);
}

void ExecBuilder::EmitFunction(const std::string& name, const std::vector<std::string>& param_names) {
  DeclareFunction(name, FuncInfo::Kind::kVMFunc);
  FuncInfo& info = exec_.func_table[exec_.func_map.at(name)];
  if (info.kind != FuncInfo::Kind::kVMFunc) return;  // the kind clash is already reported
  if (info.num_args != kUndefinedArgs) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: function ", name, " is defined twice")));
    return;
  }
  info.num_args = static_cast<int64_t>(param_names.size());
  info.param_names = param_names;
  info.register_file_size = 0;
  info.start_instr = NextInstrIndex();
}

void ExecBuilder::EndFunction(const std::string& name) {
  auto it = exec_.func_map.find(name);
  if (it == exec_.func_map.end() || exec_.func_table[it->second].num_args == kUndefinedArgs) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: EndFunction(", name, ") without EmitFunction")));
    return;
  }
  FuncInfo& info = exec_.func_table[it->second];
  if (info.end_instr != 0) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: function ", name, " is ended twice")));
    return;
  }
  info.end_instr = NextInstrIndex();
}

void ExecBuilder::PushInstr(std::initializer_list<int64_t> words) {
  exec_.instr_offset.push_back(static_cast<int64_t>(exec_.instr_data.size()));
  exec_.instr_data.insert(exec_.instr_data.end(), words.begin(), words.end());
}

void ExecBuilder::EmitCall(InstrArg func, const std::vector<InstrArg>& args, vm::RegName dst) {
  if (func.kind_byte() != static_cast<uint8_t>(ArgKind::kFuncIdx) || func.value() < 0 ||
      func.value() >= static_cast<int64_t>(exec_.func_table.size())) {
    Fail(absl::InternalError("VM codegen: a call's callee must be a declared function index"));
    return;
  }
  PushInstr({static_cast<int64_t>(Opcode::kCall), dst, func.value(), static_cast<int64_t>(args.size())});
  for (const InstrArg& a : args) exec_.instr_data.push_back(a.word());
}

void ExecBuilder::EmitCall(const std::string& func, const std::vector<InstrArg>& args, vm::RegName dst) {
  DeclareFunction(func, FuncInfo::Kind::kPackedFunc);
  EmitCall(InstrArg::FuncIdx(exec_.func_map.at(func)), args, dst);
}

void ExecBuilder::EmitRet(InstrArg result) {
  if (result.kind_byte() != static_cast<uint8_t>(ArgKind::kRegister)) {
    Fail(absl::InternalError("VM codegen: Ret takes a register"));
    return;
  }
  PushInstr({static_cast<int64_t>(Opcode::kRet), result.value()});
}

void ExecBuilder::EmitGoto(int64_t pc_offset) { PushInstr({static_cast<int64_t>(Opcode::kGoto), pc_offset}); }

void ExecBuilder::EmitIf(InstrArg cond, int64_t false_offset) {
  if (cond.kind_byte() != static_cast<uint8_t>(ArgKind::kRegister)) {
    Fail(absl::InternalError("VM codegen: If takes its condition in a register"));
    return;
  }
  PushInstr({static_cast<int64_t>(Opcode::kIf), cond.value(), false_offset});
}

void ExecBuilder::SetInstrWord(int64_t instr, int word, int64_t value) {
  if (instr < 0 || instr >= NextInstrIndex()) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: no instruction ", instr, " to patch")));
    return;
  }
  size_t pos = static_cast<size_t>(exec_.instr_offset[instr]) + word;
  size_t end = instr + 1 < NextInstrIndex() ? static_cast<size_t>(exec_.instr_offset[instr + 1]) : exec_.instr_data.size();
  if (word < 1 || pos >= end) {
    Fail(absl::InternalError(absl::StrCat("VM codegen: instruction ", instr, " has no word ", word)));
    return;
  }
  exec_.instr_data[pos] = value;
}

// ---- constants

InstrArg ExecBuilder::AddConstant(std::string key, vm::Constant c) {
  auto [first, last] = const_index_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    // A key holds the whole value except a tensor's data, which it only hashes: compare that.
    const vm::Constant& old = exec_.constants[it->second];
    if (c.tag != vm::ConstantTag::kTensor ||
        std::memcmp(old.tensor.data(), c.tensor.data(), static_cast<size_t>(c.tensor.nbytes())) == 0) {
      return InstrArg::ConstIdx(it->second);
    }
  }
  int64_t index = static_cast<int64_t>(exec_.constants.size());
  const_index_.emplace(std::move(key), index);
  exec_.constants.push_back(std::move(c));
  return InstrArg::ConstIdx(index);
}

InstrArg ExecBuilder::ConvertInt(int64_t value) {
  if (value <= InstrArg::kValueMax && value >= -InstrArg::kValueMax) return InstrArg::Immediate(value);
  vm::Constant c;
  c.tag = vm::ConstantTag::kInt;
  c.int_value = value;
  std::string key = "i";
  AppendRaw(&key, value);
  return AddConstant(std::move(key), std::move(c));
}

InstrArg ExecBuilder::ConvertFloat(double value) {
  vm::Constant c;
  c.tag = vm::ConstantTag::kFloat;
  c.float_value = value;
  std::string key = "f";
  AppendRaw(&key, value);  // by bit pattern: 0.0 and -0.0 stay apart, a NaN matches itself
  return AddConstant(std::move(key), std::move(c));
}

InstrArg ExecBuilder::ConvertString(const std::string& value) {
  vm::Constant c;
  c.tag = vm::ConstantTag::kStr;
  c.str = value;
  return AddConstant("s" + value, std::move(c));
}

InstrArg ExecBuilder::ConvertDataType(DLDataType value) {
  vm::Constant c;
  c.tag = vm::ConstantTag::kDataType;
  c.dtype = value;
  std::string key = "d";
  AppendRaw(&key, value.code);
  AppendRaw(&key, value.bits);
  AppendRaw(&key, value.lanes);
  return AddConstant(std::move(key), std::move(c));
}

InstrArg ExecBuilder::ConvertShape(const std::vector<int64_t>& value) {
  vm::Constant c;
  c.tag = vm::ConstantTag::kShape;
  c.shape = value;
  std::string key = "S";
  for (int64_t d : value) AppendRaw(&key, d);
  return AddConstant(std::move(key), std::move(c));
}

InstrArg ExecBuilder::ConvertTensor(DLDataType dtype, const std::vector<int64_t>& shape, const std::string& bytes) {
  absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty(shape, dtype);
  if (!t.ok()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("VM codegen: constant tensor: ", t.status().message())));
    return InstrArg::ConstIdx(0);
  }
  if (static_cast<int64_t>(bytes.size()) != t->nbytes()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("VM codegen: constant tensor holds ", bytes.size(),
                                                 " bytes, its shape and dtype need ", t->nbytes())));
    return InstrArg::ConstIdx(0);
  }
  if (!bytes.empty()) std::memcpy(t->data(), bytes.data(), bytes.size());
  vm::Constant c;
  c.tag = vm::ConstantTag::kTensor;
  c.tensor = *t;
  std::string key = "T";
  AppendRaw(&key, dtype.code);
  AppendRaw(&key, dtype.bits);
  AppendRaw(&key, dtype.lanes);
  AppendRaw(&key, static_cast<uint64_t>(shape.size()));
  for (int64_t d : shape) AppendRaw(&key, d);
  // FNV-1a of the data: weights can be large, so the key does not copy them.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : bytes) h = (h ^ ch) * 0x100000001b3ULL;
  AppendRaw(&key, h);
  return AddConstant(std::move(key), std::move(c));
}

void ExecBuilder::SaveMemoryScope(InstrArg const_idx, const std::string& scope) {
  if (const_idx.kind_byte() != static_cast<uint8_t>(ArgKind::kConstIdx)) {
    Fail(absl::InternalError("VM codegen: a memory scope belongs to a constant"));
    return;
  }
  for (auto& [idx, s] : exec_.memory_scopes) {
    if (idx == const_idx.value()) {
      s = scope;
      return;
    }
  }
  exec_.memory_scopes.emplace_back(const_idx.value(), scope);
}

// ---- finishing

// Registers are numbered by the codegen as it goes (with gaps, e.g. for values that end up
// unused); this renumbers each VM function's registers in order of first definition, after its
// parameters, as TVM's ExecBuilder::Formalize does, so the register file is as small as the
// function needs and the text matches TVM's.
void ExecBuilder::Formalize() {
  for (FuncInfo& f : exec_.func_table) {
    if (f.kind != FuncInfo::Kind::kVMFunc) continue;
    const int64_t num_inputs = f.num_args;
    int64_t next = num_inputs;
    std::unordered_map<vm::RegName, vm::RegName> renamed;
    auto rename_use = [&](int64_t* word) {
      auto it = renamed.find(*word);
      if (it != renamed.end()) *word = it->second;
    };
    for (int64_t i = f.start_instr; i < f.end_instr; ++i) {
      int64_t* w = &exec_.instr_data[exec_.instr_offset[i]];
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall: {
          for (int64_t a = 0; a < w[3]; ++a) {
            InstrArg arg(w[4 + a]);
            if (arg.kind() != ArgKind::kRegister || IsSpecial(arg.value())) continue;
            auto it = renamed.find(arg.value());
            if (it != renamed.end()) w[4 + a] = InstrArg::Register(it->second).word();
          }
          if (w[1] >= num_inputs && !IsSpecial(w[1])) {
            auto [it, inserted] = renamed.emplace(w[1], next);
            if (inserted) ++next;
            w[1] = it->second;
          }
          break;
        }
        case Opcode::kRet:
        case Opcode::kIf:
          rename_use(&w[1]);
          break;
        case Opcode::kGoto:
          break;
      }
    }
    f.register_file_size = next;
  }
}

absl::Status ExecBuilder::CheckFunctions() const {
  for (const FuncInfo& f : exec_.func_table) {
    if (f.kind != FuncInfo::Kind::kVMFunc) continue;
    if (f.num_args == kUndefinedArgs) {
      return absl::InternalError(absl::StrCat("VM codegen: function ", f.name, " is called but never defined"));
    }
    if (f.start_instr >= f.end_instr) {
      return absl::InternalError(absl::StrCat("VM codegen: function ", f.name, " has no instructions"));
    }
    std::unordered_set<vm::RegName> defined;
    auto check_use = [&](vm::RegName r, int64_t instr) -> absl::Status {
      if (IsSpecial(r) || (r >= 0 && r < f.num_args) || defined.count(r)) return absl::OkStatus();
      return absl::InternalError(absl::StrCat("VM codegen: register %", r, " of ", f.name, " is used at instruction ",
                                              instr, " before it is defined"));
    };
    for (int64_t i = f.start_instr; i < f.end_instr; ++i) {
      const int64_t* w = &exec_.instr_data[exec_.instr_offset[i]];
      switch (static_cast<Opcode>(w[0])) {
        case Opcode::kCall:
          for (int64_t a = 0; a < w[3]; ++a) {
            InstrArg arg(w[4 + a]);
            if (arg.kind() != ArgKind::kRegister) continue;
            if (absl::Status st = check_use(arg.value(), i); !st.ok()) return st;
          }
          if (w[1] != vm::kVoidRegister) defined.insert(w[1]);
          break;
        case Opcode::kRet:
          if (absl::Status st = check_use(w[1], i); !st.ok()) return st;
          break;
        case Opcode::kGoto:
          if (w[1] == 0) return absl::InternalError(absl::StrCat("VM codegen: goto 0 in ", f.name));
          break;
        case Opcode::kIf:
          if (w[2] <= 1) return absl::InternalError(absl::StrCat("VM codegen: If with false offset ", w[2], " in ", f.name));
          if (absl::Status st = check_use(w[1], i); !st.ok()) return st;
          break;
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<vm::Executable> ExecBuilder::Get() {
  if (!status_.ok()) return status_;
  Formalize();
  if (absl::Status st = CheckFunctions(); !st.ok()) return st;
  if (absl::Status st = exec_.Validate(); !st.ok()) {
    return absl::InternalError(absl::StrCat("VM codegen produced an invalid executable: ", st.message()));
  }
  return std::move(exec_);
}

}  // namespace kiln::relax::backend
