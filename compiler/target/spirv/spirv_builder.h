// A small SPIR-V module builder: binary words, written section by section in the order the SPIR-V
// spec's logical layout requires (capabilities, extensions, ext-inst imports, memory model, entry
// points, names, decorations, types/constants/globals, functions), so a caller
// emits instructions in whatever order is convenient and Finish() puts them where they belong.
//
// Types and constants are interned (asking twice for int32 gives the same id), and a type that
// needs a capability (Int8, Int16, Int64, Float16, Float64) declares it on first use. Function-
// scope OpVariables go to the first block of the function, where SPIR-V requires them.
//
// The builder knows nothing of TIR; compiler/target/spirv/codegen_spirv.cc drives it.
#ifndef KILN_COMPILER_TARGET_SPIRV_SPIRV_BUILDER_H_
#define KILN_COMPILER_TARGET_SPIRV_SPIRV_BUILDER_H_

#include <spirv/unified1/spirv.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::codegen::spirv {

class Builder {
 public:
  Builder() = default;

  uint32_t NewId() { return next_id_++; }

  void Capability(spv::Capability c);
  void Extension(const std::string& name);
  // The id of the GLSL.std.450 extended instruction set (imported on first use).
  uint32_t GLSLStd450();

  // ---- types (interned) ----
  uint32_t TypeVoid();
  uint32_t TypeBool();
  uint32_t TypeInt(int bits, bool is_signed);
  uint32_t TypeFloat(int bits);
  uint32_t TypeVector(uint32_t elem, uint32_t count);
  uint32_t TypeArray(uint32_t elem, uint32_t length);  // length: a literal, made a uint32 constant
  uint32_t TypeRuntimeArray(uint32_t elem);           // not interned: each may get its own ArrayStride
  uint32_t TypeStruct(const std::vector<uint32_t>& members);  // not interned: each has its own layout
  uint32_t TypePointer(spv::StorageClass storage, uint32_t pointee);
  uint32_t TypeFunction(uint32_t ret, const std::vector<uint32_t>& params);

  // ---- constants (interned by type and bits) ----
  // `bits` is the value's bit pattern; types narrower than 32 bits take the low bits (sign-
  // extended into the word for signed types, as the spec requires).
  uint32_t Constant(uint32_t type, uint64_t bits);
  uint32_t ConstantBool(bool value);
  uint32_t SpecConstant(uint32_t type, uint32_t default_value, uint32_t spec_id);
  uint32_t SpecConstantComposite(uint32_t type, const std::vector<uint32_t>& parts);

  // ---- module-level declarations ----
  void Name(uint32_t id, const std::string& name);
  void Decorate(uint32_t id, spv::Decoration d, const std::vector<uint32_t>& literals = {});
  void MemberDecorate(uint32_t struct_id, uint32_t member, spv::Decoration d, const std::vector<uint32_t>& literals = {});
  uint32_t GlobalVariable(uint32_t pointer_type, spv::StorageClass storage);
  void EntryPoint(spv::ExecutionModel model, uint32_t function, const std::string& name,
                  const std::vector<uint32_t>& interface);

  // ---- functions ----
  // Begins a function (OpFunction + its first label, whose id goes to `first_label`); returns the
  // function id.
  uint32_t BeginFunction(uint32_t return_type, uint32_t function_type, uint32_t* first_label);
  // A function-scope OpVariable, placed in the function's first block.
  uint32_t LocalVariable(uint32_t pointer_type);
  void EndFunction();
  // Emits `op` with `operands` into the current function.
  void Emit(spv::Op op, const std::vector<uint32_t>& operands);
  // Emits `op` with a fresh result id of `result_type`; returns that id.
  uint32_t EmitValue(spv::Op op, uint32_t result_type, const std::vector<uint32_t>& operands);
  // Starts block `label` (emits OpLabel).
  void Label(uint32_t label);

  // The finished module: header (SPIR-V `version`, e.g. 0x00010300) and every section.
  std::vector<uint32_t> Finish(uint32_t version) const;

  // Words of a literal string operand (nul-terminated, padded to a word).
  static std::vector<uint32_t> StringWords(const std::string& s);

 private:
  static void Append(std::vector<uint32_t>* out, spv::Op op, const std::vector<uint32_t>& operands);

  uint32_t next_id_ = 1;
  std::set<uint32_t> capabilities_;
  std::set<std::string> extensions_;
  uint32_t glsl_ = 0;
  std::vector<uint32_t> entry_points_, names_, decorations_, globals_;
  std::vector<uint32_t> function_head_;  // OpFunction + first OpLabel of the current function
  std::vector<uint32_t> local_vars_;     // its OpVariables
  std::vector<uint32_t> function_body_;  // the rest of it
  std::vector<uint32_t> functions_;      // finished functions

  std::map<std::tuple<int, int, int>, uint32_t> types_;  // (kind, a, b) -> id for scalar types
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> vectors_, arrays_, pointers_;
  std::map<std::vector<uint32_t>, uint32_t> function_types_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> constants_;
  std::map<uint32_t, std::pair<int, bool>> int_types_;  // id -> (bits, signed), for constant words
  std::map<uint32_t, int> float_types_;                 // id -> bits
  uint32_t true_ = 0, false_ = 0;
};

}  // namespace kiln::codegen::spirv

#endif  // KILN_COMPILER_TARGET_SPIRV_SPIRV_BUILDER_H_
