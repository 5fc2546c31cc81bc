#include "compiler/target/spirv/spirv_builder.h"

namespace kiln::codegen::spirv {

std::vector<uint32_t> Builder::StringWords(const std::string& s) {
  std::vector<uint32_t> words((s.size() + 4) / 4, 0);  // room for the terminating nul
  for (size_t i = 0; i < s.size(); ++i) words[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(s[i])) << (8 * (i % 4));
  return words;
}

void Builder::Append(std::vector<uint32_t>* out, spv::Op op, const std::vector<uint32_t>& operands) {
  out->push_back(static_cast<uint32_t>((operands.size() + 1) << 16) | static_cast<uint32_t>(op));
  out->insert(out->end(), operands.begin(), operands.end());
}

void Builder::Capability(spv::Capability c) { capabilities_.insert(static_cast<uint32_t>(c)); }
void Builder::Extension(const std::string& name) { extensions_.insert(name); }

uint32_t Builder::GLSLStd450() {
  if (glsl_ == 0) glsl_ = NewId();
  return glsl_;
}

uint32_t Builder::TypeVoid() {
  auto key = std::make_tuple(0, 0, 0);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second;
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeVoid, {id});
  return types_[key] = id;
}

uint32_t Builder::TypeBool() {
  auto key = std::make_tuple(1, 0, 0);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second;
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeBool, {id});
  return types_[key] = id;
}

uint32_t Builder::TypeInt(int bits, bool is_signed) {
  auto key = std::make_tuple(2, bits, is_signed ? 1 : 0);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second;
  if (bits == 8) Capability(spv::CapabilityInt8);
  if (bits == 16) Capability(spv::CapabilityInt16);
  if (bits == 64) Capability(spv::CapabilityInt64);
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeInt, {id, static_cast<uint32_t>(bits), is_signed ? 1u : 0u});
  int_types_[id] = {bits, is_signed};
  return types_[key] = id;
}

uint32_t Builder::TypeFloat(int bits) {
  auto key = std::make_tuple(3, bits, 0);
  auto it = types_.find(key);
  if (it != types_.end()) return it->second;
  if (bits == 16) Capability(spv::CapabilityFloat16);
  if (bits == 64) Capability(spv::CapabilityFloat64);
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeFloat, {id, static_cast<uint32_t>(bits)});
  float_types_[id] = bits;
  return types_[key] = id;
}

uint32_t Builder::TypeVector(uint32_t elem, uint32_t count) {
  auto it = vectors_.find({elem, count});
  if (it != vectors_.end()) return it->second;
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeVector, {id, elem, count});
  return vectors_[{elem, count}] = id;
}

uint32_t Builder::TypeArray(uint32_t elem, uint32_t length) {
  auto it = arrays_.find({elem, length});
  if (it != arrays_.end()) return it->second;
  uint32_t len = Constant(TypeInt(32, false), length);
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeArray, {id, elem, len});
  return arrays_[{elem, length}] = id;
}

uint32_t Builder::TypeRuntimeArray(uint32_t elem) {
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypeRuntimeArray, {id, elem});
  return id;
}

uint32_t Builder::TypeStruct(const std::vector<uint32_t>& members) {
  uint32_t id = NewId();
  std::vector<uint32_t> ops = {id};
  ops.insert(ops.end(), members.begin(), members.end());
  Append(&globals_, spv::OpTypeStruct, ops);
  return id;
}

uint32_t Builder::TypePointer(spv::StorageClass storage, uint32_t pointee) {
  auto key = std::make_pair(static_cast<uint32_t>(storage), pointee);
  auto it = pointers_.find(key);
  if (it != pointers_.end()) return it->second;
  uint32_t id = NewId();
  Append(&globals_, spv::OpTypePointer, {id, static_cast<uint32_t>(storage), pointee});
  return pointers_[key] = id;
}

uint32_t Builder::TypeFunction(uint32_t ret, const std::vector<uint32_t>& params) {
  std::vector<uint32_t> key = {ret};
  key.insert(key.end(), params.begin(), params.end());
  auto it = function_types_.find(key);
  if (it != function_types_.end()) return it->second;
  uint32_t id = NewId();
  std::vector<uint32_t> ops = {id};
  ops.insert(ops.end(), key.begin(), key.end());
  Append(&globals_, spv::OpTypeFunction, ops);
  return function_types_[key] = id;
}

uint32_t Builder::Constant(uint32_t type, uint64_t bits) {
  int width = 32;
  bool is_signed = false;
  if (auto it = int_types_.find(type); it != int_types_.end()) {
    width = it->second.first;
    is_signed = it->second.second;
  } else if (auto f = float_types_.find(type); f != float_types_.end()) {
    width = f->second;
  }
  if (width < 64) {
    uint64_t mask = (uint64_t{1} << width) - 1;
    bits &= mask;
    if (is_signed && width < 32 && (bits >> (width - 1)) & 1) bits |= ~mask & 0xffffffffu;
  }
  auto key = std::make_pair(type, bits);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  uint32_t id = NewId();
  if (width == 64) {
    Append(&globals_, spv::OpConstant, {type, id, static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)});
  } else {
    Append(&globals_, spv::OpConstant, {type, id, static_cast<uint32_t>(bits)});
  }
  return constants_[key] = id;
}

uint32_t Builder::ConstantBool(bool value) {
  uint32_t& slot = value ? true_ : false_;
  if (slot == 0) {
    uint32_t type = TypeBool();
    slot = NewId();
    Append(&globals_, value ? spv::OpConstantTrue : spv::OpConstantFalse, {type, slot});
  }
  return slot;
}

uint32_t Builder::SpecConstant(uint32_t type, uint32_t default_value, uint32_t spec_id) {
  uint32_t id = NewId();
  Append(&globals_, spv::OpSpecConstant, {type, id, default_value});
  Decorate(id, spv::DecorationSpecId, {spec_id});
  return id;
}

uint32_t Builder::SpecConstantComposite(uint32_t type, const std::vector<uint32_t>& parts) {
  uint32_t id = NewId();
  std::vector<uint32_t> ops = {type, id};
  ops.insert(ops.end(), parts.begin(), parts.end());
  Append(&globals_, spv::OpSpecConstantComposite, ops);
  return id;
}

void Builder::Name(uint32_t id, const std::string& name) {
  std::vector<uint32_t> ops = {id};
  std::vector<uint32_t> s = StringWords(name);
  ops.insert(ops.end(), s.begin(), s.end());
  Append(&names_, spv::OpName, ops);
}

void Builder::Decorate(uint32_t id, spv::Decoration d, const std::vector<uint32_t>& literals) {
  std::vector<uint32_t> ops = {id, static_cast<uint32_t>(d)};
  ops.insert(ops.end(), literals.begin(), literals.end());
  Append(&decorations_, spv::OpDecorate, ops);
}

void Builder::MemberDecorate(uint32_t struct_id, uint32_t member, spv::Decoration d,
                             const std::vector<uint32_t>& literals) {
  std::vector<uint32_t> ops = {struct_id, member, static_cast<uint32_t>(d)};
  ops.insert(ops.end(), literals.begin(), literals.end());
  Append(&decorations_, spv::OpMemberDecorate, ops);
}

uint32_t Builder::GlobalVariable(uint32_t pointer_type, spv::StorageClass storage) {
  uint32_t id = NewId();
  Append(&globals_, spv::OpVariable, {pointer_type, id, static_cast<uint32_t>(storage)});
  return id;
}

void Builder::EntryPoint(spv::ExecutionModel model, uint32_t function, const std::string& name,
                         const std::vector<uint32_t>& interface) {
  std::vector<uint32_t> ops = {static_cast<uint32_t>(model), function};
  std::vector<uint32_t> s = StringWords(name);
  ops.insert(ops.end(), s.begin(), s.end());
  ops.insert(ops.end(), interface.begin(), interface.end());
  Append(&entry_points_, spv::OpEntryPoint, ops);
}

uint32_t Builder::BeginFunction(uint32_t return_type, uint32_t function_type, uint32_t* first_label) {
  uint32_t id = NewId();
  function_head_.clear();
  local_vars_.clear();
  function_body_.clear();
  Append(&function_head_, spv::OpFunction, {return_type, id, static_cast<uint32_t>(spv::FunctionControlMaskNone), function_type});
  *first_label = NewId();
  Append(&function_head_, spv::OpLabel, {*first_label});
  return id;
}

uint32_t Builder::LocalVariable(uint32_t pointer_type) {
  uint32_t id = NewId();
  Append(&local_vars_, spv::OpVariable, {pointer_type, id, static_cast<uint32_t>(spv::StorageClassFunction)});
  return id;
}

void Builder::EndFunction() {
  Append(&function_body_, spv::OpFunctionEnd, {});
  functions_.insert(functions_.end(), function_head_.begin(), function_head_.end());
  functions_.insert(functions_.end(), local_vars_.begin(), local_vars_.end());
  functions_.insert(functions_.end(), function_body_.begin(), function_body_.end());
  function_head_.clear();
  local_vars_.clear();
  function_body_.clear();
}

void Builder::Emit(spv::Op op, const std::vector<uint32_t>& operands) { Append(&function_body_, op, operands); }

uint32_t Builder::EmitValue(spv::Op op, uint32_t result_type, const std::vector<uint32_t>& operands) {
  uint32_t id = NewId();
  std::vector<uint32_t> ops = {result_type, id};
  ops.insert(ops.end(), operands.begin(), operands.end());
  Append(&function_body_, op, ops);
  return id;
}

void Builder::Label(uint32_t label) { Append(&function_body_, spv::OpLabel, {label}); }

std::vector<uint32_t> Builder::Finish(uint32_t version) const {
  std::vector<uint32_t> out = {spv::MagicNumber, version, 0 /* generator */, next_id_, 0};
  for (uint32_t c : capabilities_) Append(&out, spv::OpCapability, {c});
  for (const std::string& e : extensions_) Append(&out, spv::OpExtension, StringWords(e));
  if (glsl_ != 0) {
    std::vector<uint32_t> ops = {glsl_};
    std::vector<uint32_t> s = StringWords("GLSL.std.450");
    ops.insert(ops.end(), s.begin(), s.end());
    Append(&out, spv::OpExtInstImport, ops);
  }
  Append(&out, spv::OpMemoryModel, {spv::AddressingModelLogical, spv::MemoryModelGLSL450});
  for (const auto* section : {&entry_points_, &names_, &decorations_, &globals_, &functions_}) {
    out.insert(out.end(), section->begin(), section->end());
  }
  return out;
}

}  // namespace kiln::codegen::spirv
