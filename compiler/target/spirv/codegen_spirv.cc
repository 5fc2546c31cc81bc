#include "compiler/target/spirv/codegen_spirv.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <cstring>
#include <map>
#include <optional>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/tir/analysis/device_kernel.h"
#include "compiler/tir/analysis/scalable_vectors.h"
#include "compiler/tir/functor.h"
#include "compiler/target/spirv/spirv_builder.h"
#include "compiler/target/spirv/spirv_tools.h"
#include "runtime/device/vulkan/vulkan_abi.h"

namespace kiln::codegen {
namespace {

using namespace ir;  // NOLINT
using spirv::Builder;

// Whether evaluating `e` reads memory or calls anything: such an operand of if_then_else, Select,
// && or || is evaluated only when taken (a guard such as `i < n and A[i] > 0` must not load A[n]).
bool ReadsMemory(const PrimExpr& e) {
  struct Finder : StmtExprVisitor {
    bool found = false;
    void VisitExpr_(const BufferLoadNode*) override { found = true; }
    void VisitExpr_(const CallNode* op) override {
      found = true;
      StmtExprVisitor::VisitExpr_(op);
    }
  } f;
  f.VisitExpr(e);
  return f.found;
}

// Where a buffer's elements live: a storage-buffer param (an array member of a Block struct), a
// Workgroup array or a Function array.
struct Base {
  uint32_t var = 0;
  spv::StorageClass storage = spv::StorageClassFunction;
  bool in_block = false;  // index 0 selects the runtime array inside the Block struct
  DataType elem;          // TIR element type
  uint32_t elem_type = 0;  // SPIR-V type of a stored element
};

class CodegenSPIRV : public ExprFunctor<uint32_t(const PrimExpr&)>, public StmtFunctor<void(const Stmt&)> {
 public:
  absl::StatusOr<SPIRVKernel> Run(const PrimFunc& f) {
    SPIRVKernel out;
    out.name = f->GetGlobalSymbol();
    name_ = out.name;
    if (out.name.empty()) return absl::InvalidArgumentError("SPIR-V codegen: a kernel without a global_symbol");
    b_.Capability(spv::CapabilityShader);

    // Element types the kernel accesses each data handle with.
    const auto accesses = tir::HandleAccesses(f->body);

    // Interface: storage buffers and the push-constant block as vulkan_abi.h lays them out, the
    // thread built-ins.
    std::vector<DLDataType> param_types;
    for (const Var& v : f->params) {
      DataType t = v.dtype();
      param_types.push_back(t.is_handle() ? DLDataType{kDLOpaqueHandle, 64, 1}
                                          : DLDataType{static_cast<uint8_t>(t.code()), static_cast<uint8_t>(t.bits()),
                                                       static_cast<uint16_t>(t.lanes())});
      if (!t.is_handle() && !CheckType(t, absl::StrCat("kernel parameter ", v->name))) return status_;
    }
    absl::StatusOr<runtime::vulkan::ArgLayout> layout = runtime::vulkan::ArgLayoutOf(param_types);
    if (!layout.ok()) return Error(std::string(layout.status().message()));
    std::vector<uint32_t> push_members;
    std::vector<uint32_t> push_offsets;
    std::vector<std::pair<const VarNode*, DataType>> scalars;  // with the type each travels as
    for (size_t i = 0; i < f->params.size(); ++i) {
      const Var& v = f->params[i];
      if (!v.dtype().is_handle()) {
        DLDataType p = layout->push_types[i];
        DataType pt(p.code, p.bits, 1);
        push_members.push_back(Type(pt));
        push_offsets.push_back(layout->slots[i]);
        scalars.push_back({v.get(), pt});
        continue;
      }
      DataType elem = DataType::UInt(32);  // a buffer the kernel never touches
      if (auto it = accesses.find(v.get()); it != accesses.end()) {
        if (it->second.mixed) {
          return Error(absl::StrCat("buffer parameter ", v->name, " is accessed with more than one element type"));
        }
        elem = it->second.first;
      }
      if (!CheckType(elem, v->name)) return status_;
      Base base;
      base.storage = spv::StorageClassStorageBuffer;
      base.in_block = true;
      base.elem = elem;
      base.elem_type = StorageType(elem);
      StorageCapabilities(elem);
      uint32_t rta = b_.TypeRuntimeArray(base.elem_type);
      b_.Decorate(rta, spv::DecorationArrayStride, {static_cast<uint32_t>(std::max(1, elem.bytes()))});
      uint32_t block = b_.TypeStruct({rta});
      b_.Decorate(block, spv::DecorationBlock);
      b_.MemberDecorate(block, 0, spv::DecorationOffset, {0});
      base.var = b_.GlobalVariable(b_.TypePointer(spv::StorageClassStorageBuffer, block), spv::StorageClassStorageBuffer);
      b_.Decorate(base.var, spv::DecorationDescriptorSet, {0});
      b_.Decorate(base.var, spv::DecorationBinding, {layout->slots[i]});
      b_.Name(base.var, v->name);
      bases_[v.get()] = base;
    }
    uint32_t push_var = 0;
    if (!push_members.empty()) {
      uint32_t block = b_.TypeStruct(push_members);
      b_.Decorate(block, spv::DecorationBlock);
      for (size_t i = 0; i < push_offsets.size(); ++i) {
        b_.MemberDecorate(block, static_cast<uint32_t>(i), spv::DecorationOffset, {push_offsets[i]});
      }
      push_var = b_.GlobalVariable(b_.TypePointer(spv::StorageClassPushConstant, block), spv::StorageClassPushConstant);
      b_.Name(push_var, "params");
    }
    uint32_t u32 = b_.TypeInt(32, false);
    uint32_t uvec3 = b_.TypeVector(u32, 3);
    local_id_ = b_.GlobalVariable(b_.TypePointer(spv::StorageClassInput, uvec3), spv::StorageClassInput);
    b_.Decorate(local_id_, spv::DecorationBuiltIn, {spv::BuiltInLocalInvocationId});
    group_id_ = b_.GlobalVariable(b_.TypePointer(spv::StorageClassInput, uvec3), spv::StorageClassInput);
    b_.Decorate(group_id_, spv::DecorationBuiltIn, {spv::BuiltInWorkgroupId});
    std::vector<uint32_t> size_parts;
    for (uint32_t d = 0; d < 3; ++d) size_parts.push_back(b_.SpecConstant(u32, 1, d));
    uint32_t wg_size = b_.SpecConstantComposite(uvec3, size_parts);
    b_.Decorate(wg_size, spv::DecorationBuiltIn, {spv::BuiltInWorkgroupSize});

    uint32_t void_type = b_.TypeVoid();
    uint32_t fn = b_.BeginFunction(void_type, b_.TypeFunction(void_type, {}), &label_);
    b_.Name(fn, out.name);
    for (size_t i = 0; i < scalars.size(); ++i) {
      const auto& [var, pt] = scalars[i];
      uint32_t ptr = b_.EmitValue(spv::OpAccessChain, b_.TypePointer(spv::StorageClassPushConstant, Type(pt)),
                                  {push_var, Int32(static_cast<int64_t>(i))});
      values_[var] = Convert(b_.EmitValue(spv::OpLoad, Type(pt), {ptr}), pt, var->dtype);
    }
    VisitStmt(f->body);
    if (!status_.ok()) return status_;
    if (!terminated_) b_.Emit(spv::OpReturn, {});
    b_.EndFunction();
    b_.EntryPoint(spv::ExecutionModelGLCompute, fn, out.name, {local_id_, group_id_});
    absl::StatusOr<std::vector<uint32_t>> words =
        spirv::ValidateAndOptimize(b_.Finish(spirv::kSpirvVersion), absl::StrCat("kernel ", out.name));
    if (!words.ok()) return words.status();
    out.words = *std::move(words);
    return out;
  }

 private:
  absl::Status Error(const std::string& msg) {
    Fail(msg);
    return status_;
  }
  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("SPIR-V codegen (", name_, "): ", msg));
  }

  bool CheckType(DataType t, const std::string& what) {
    bool ok = t.is_scalar() && (t.is_bool() || ((t.is_int() || t.is_uint()) && (t.bits() == 8 || t.bits() == 16 ||
                                                                                  t.bits() == 32 || t.bits() == 64)) ||
                                (t.is_float() && (t.bits() == 16 || t.bits() == 32 || t.bits() == 64)));
    if (!ok) Fail(absl::StrCat(what, " has type ", t.ToString(), ", which the SPIR-V backend does not support"));
    return ok;
  }

  // ---------------- types and constants ----------------
  uint32_t Type(DataType t) {
    if (t.is_vector()) {
      Fail(absl::StrCat("vector type ", t.ToString(), " is not supported"));
      return b_.TypeInt(32, true);
    }
    if (t.is_bool()) return b_.TypeBool();
    if (t.is_int()) return b_.TypeInt(t.bits(), true);
    if (t.is_uint()) return b_.TypeInt(t.bits(), false);
    if (t.is_float()) return b_.TypeFloat(t.bits());
    Fail(absl::StrCat("type ", t.ToString(), " is not supported"));
    return b_.TypeInt(32, true);
  }
  // The type of a stored element: bool occupies a byte, as on the host.
  uint32_t StorageType(DataType t) { return t.is_bool() ? b_.TypeInt(8, false) : Type(t); }
  void StorageCapabilities(DataType t) {
    int bits = t.is_bool() ? 8 : t.bits();
    if (bits == 8) {
      b_.Capability(spv::CapabilityStorageBuffer8BitAccess);
      b_.Extension("SPV_KHR_8bit_storage");
    } else if (bits == 16) {
      b_.Capability(spv::CapabilityStorageBuffer16BitAccess);
      b_.Extension("SPV_KHR_16bit_storage");
    }
  }
  uint32_t Int32(int64_t v) { return b_.Constant(b_.TypeInt(32, true), static_cast<uint64_t>(v)); }
  uint32_t ConstInt(DataType t, int64_t v) {
    if (t.is_bool()) return b_.ConstantBool(v != 0);
    if (t.is_float()) return ConstFloat(t, static_cast<double>(v));
    return b_.Constant(Type(t), static_cast<uint64_t>(v));
  }
  uint32_t ConstFloat(DataType t, double v) {
    if (!t.is_float()) return ConstInt(t, static_cast<int64_t>(v));
    uint64_t bits = 0;
    if (t.bits() == 64) {
      std::memcpy(&bits, &v, 8);
    } else if (t.bits() == 32) {
      float f = static_cast<float>(v);
      uint32_t w;
      std::memcpy(&w, &f, 4);
      bits = w;
    } else {
      _Float16 h = static_cast<_Float16>(v);
      uint16_t w;
      std::memcpy(&w, &h, 2);
      bits = w;
    }
    return b_.Constant(Type(t), bits);
  }

  // ---------------- control flow ----------------
  void StartBlock(uint32_t label) {
    b_.Label(label);
    label_ = label;
    terminated_ = false;
  }
  void Branch(uint32_t target) {
    if (terminated_) return;
    b_.Emit(spv::OpBranch, {target});
    terminated_ = true;
  }
  void BranchConditional(uint32_t cond, uint32_t t, uint32_t f) {
    b_.Emit(spv::OpBranchConditional, {cond, t, f});
    terminated_ = true;
  }
  // `cond ? a : b` with only the taken side evaluated (a selection construct and an OpPhi).
  template <typename A, typename B>
  uint32_t Conditional(uint32_t cond, uint32_t type, A then_value, B else_value) {
    uint32_t t = b_.NewId(), f = b_.NewId(), merge = b_.NewId();
    b_.Emit(spv::OpSelectionMerge, {merge, spv::SelectionControlMaskNone});
    BranchConditional(cond, t, f);
    StartBlock(t);
    uint32_t tv = then_value();
    uint32_t tl = label_;
    Branch(merge);
    StartBlock(f);
    uint32_t fv = else_value();
    uint32_t fl = label_;
    Branch(merge);
    StartBlock(merge);
    return b_.EmitValue(spv::OpPhi, type, {tv, tl, fv, fl});
  }

  // ---------------- conversions ----------------
  uint32_t Convert(uint32_t v, DataType from, DataType to) {
    if (from == to) return v;
    uint32_t type = Type(to);
    if (to.is_bool()) {
      if (from.is_float()) return b_.EmitValue(spv::OpFUnordNotEqual, type, {v, ConstFloat(from, 0)});
      return b_.EmitValue(spv::OpINotEqual, type, {v, ConstInt(from, 0)});
    }
    if (from.is_bool()) return b_.EmitValue(spv::OpSelect, type, {v, ConstInt(to, 1), ConstInt(to, 0)});
    if (to.is_float()) {
      if (from.is_float()) return b_.EmitValue(spv::OpFConvert, type, {v});
      return b_.EmitValue(from.is_int() ? spv::OpConvertSToF : spv::OpConvertUToF, type, {v});
    }
    if (from.is_float()) return b_.EmitValue(to.is_int() ? spv::OpConvertFToS : spv::OpConvertFToU, type, {v});
    if (from.bits() == to.bits()) return b_.EmitValue(spv::OpBitcast, type, {v});
    // Widen or narrow in the source's signedness (sign- or zero-extension), then reinterpret.
    uint32_t same_sign = b_.TypeInt(to.bits(), from.is_int());
    uint32_t r = b_.EmitValue(from.is_int() ? spv::OpSConvert : spv::OpUConvert, same_sign, {v});
    return same_sign == type ? r : b_.EmitValue(spv::OpBitcast, type, {r});
  }

  // ---------------- expressions ----------------
  uint32_t VisitExprDefault_(const Object* op) override {
    Fail(absl::StrCat("unsupported expression ", op->type_key()));
    return Int32(0);
  }
  uint32_t VisitExpr_(const VarNode* op) override {
    auto it = values_.find(op);
    if (it != values_.end()) return it->second;
    Fail(absl::StrCat("variable ", op->name, " has no value here (a buffer data handle used as a value?)"));
    return Int32(0);
  }
  uint32_t VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  uint32_t VisitExpr_(const IntImmNode* op) override { return ConstInt(op->dtype, op->value); }
  uint32_t VisitExpr_(const FloatImmNode* op) override { return ConstFloat(op->dtype, op->value); }
  uint32_t VisitExpr_(const CastNode* op) override {
    uint32_t v = VisitExpr(op->value);
    return Convert(v, op->value.dtype(), op->dtype);
  }

  uint32_t Arith(const BinaryNode* n, spv::Op int_op, spv::Op uint_op, spv::Op float_op) {
    DataType t = n->dtype;
    uint32_t a = VisitExpr(n->a), b = VisitExpr(n->b);
    if (t.is_bool()) {
      Fail("arithmetic on bool");
      return a;
    }
    return b_.EmitValue(t.is_float() ? float_op : t.is_int() ? int_op : uint_op, Type(t), {a, b});
  }
  uint32_t VisitExpr_(const AddNode* op) override { return Arith(op, spv::OpIAdd, spv::OpIAdd, spv::OpFAdd); }
  uint32_t VisitExpr_(const SubNode* op) override { return Arith(op, spv::OpISub, spv::OpISub, spv::OpFSub); }
  uint32_t VisitExpr_(const MulNode* op) override { return Arith(op, spv::OpIMul, spv::OpIMul, spv::OpFMul); }
  // TIR's Div and Mod truncate (C semantics); OpSRem takes the sign of the dividend, as C's %.
  uint32_t VisitExpr_(const DivNode* op) override { return Arith(op, spv::OpSDiv, spv::OpUDiv, spv::OpFDiv); }
  uint32_t VisitExpr_(const ModNode* op) override { return Arith(op, spv::OpSRem, spv::OpUMod, spv::OpFRem); }
  uint32_t VisitExpr_(const FloorDivNode* op) override {
    DataType t = op->dtype;
    uint32_t type = Type(t);
    uint32_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (t.is_float()) {
      uint32_t q = b_.EmitValue(spv::OpFDiv, type, {a, b});
      return Ext(GLSLstd450Floor, type, {q});
    }
    if (t.is_uint()) return b_.EmitValue(spv::OpUDiv, type, {a, b});
    // q = a / b (truncated); one less when the remainder is non-zero and the signs differ.
    uint32_t q = b_.EmitValue(spv::OpSDiv, type, {a, b});
    uint32_t r = b_.EmitValue(spv::OpSRem, type, {a, b});
    uint32_t adjust = SignsDiffer(r, b, t);
    uint32_t q1 = b_.EmitValue(spv::OpISub, type, {q, ConstInt(t, 1)});
    return b_.EmitValue(spv::OpSelect, type, {adjust, q1, q});
  }
  uint32_t VisitExpr_(const FloorModNode* op) override {
    DataType t = op->dtype;
    uint32_t type = Type(t);
    uint32_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (t.is_float()) {
      uint32_t q = Ext(GLSLstd450Floor, type, {b_.EmitValue(spv::OpFDiv, type, {a, b})});
      return b_.EmitValue(spv::OpFSub, type, {a, b_.EmitValue(spv::OpFMul, type, {q, b})});
    }
    if (t.is_uint()) return b_.EmitValue(spv::OpUMod, type, {a, b});
    uint32_t r = b_.EmitValue(spv::OpSRem, type, {a, b});
    uint32_t adjust = SignsDiffer(r, b, t);
    uint32_t r1 = b_.EmitValue(spv::OpIAdd, type, {r, b});
    return b_.EmitValue(spv::OpSelect, type, {adjust, r1, r});
  }
  // r != 0 && (r < 0) != (b < 0), for a signed remainder r of a by b.
  uint32_t SignsDiffer(uint32_t r, uint32_t b, DataType t) {
    uint32_t boolean = b_.TypeBool();
    uint32_t zero = ConstInt(t, 0);
    uint32_t nonzero = b_.EmitValue(spv::OpINotEqual, boolean, {r, zero});
    uint32_t rneg = b_.EmitValue(spv::OpSLessThan, boolean, {r, zero});
    uint32_t bneg = b_.EmitValue(spv::OpSLessThan, boolean, {b, zero});
    uint32_t differ = b_.EmitValue(spv::OpLogicalNotEqual, boolean, {rneg, bneg});
    return b_.EmitValue(spv::OpLogicalAnd, boolean, {nonzero, differ});
  }
  // min/max as `a < b ? a : b` (`a > b ? a : b`): what the C backend computes, NaNs included.
  uint32_t MinMax(const BinaryNode* op, bool is_min) {
    DataType t = op->dtype;
    uint32_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    uint32_t boolean = b_.TypeBool();
    spv::Op cmp = t.is_float() ? (is_min ? spv::OpFOrdLessThan : spv::OpFOrdGreaterThan)
                  : t.is_int() ? (is_min ? spv::OpSLessThan : spv::OpSGreaterThan)
                  : t.is_bool() ? (is_min ? spv::OpLogicalAnd : spv::OpLogicalOr)
                                : (is_min ? spv::OpULessThan : spv::OpUGreaterThan);
    if (t.is_bool()) return b_.EmitValue(cmp, boolean, {a, b});
    uint32_t c = b_.EmitValue(cmp, boolean, {a, b});
    return b_.EmitValue(spv::OpSelect, Type(t), {c, a, b});
  }
  uint32_t VisitExpr_(const MinNode* op) override { return MinMax(op, true); }
  uint32_t VisitExpr_(const MaxNode* op) override { return MinMax(op, false); }

  uint32_t Compare(const BinaryNode* op, spv::Op sop, spv::Op uop, spv::Op fop, spv::Op bop) {
    DataType t = op->a.dtype();
    uint32_t a = VisitExpr(op->a), b = VisitExpr(op->b);
    spv::Op o = t.is_float() ? fop : t.is_bool() ? bop : t.is_int() ? sop : uop;
    if (o == spv::OpNop) {
      Fail(absl::StrCat("ordered comparison of ", t.ToString(), " values"));
      return a;
    }
    return b_.EmitValue(o, b_.TypeBool(), {a, b});
  }
  uint32_t VisitExpr_(const EQNode* op) override {
    return Compare(op, spv::OpIEqual, spv::OpIEqual, spv::OpFOrdEqual, spv::OpLogicalEqual);
  }
  uint32_t VisitExpr_(const NENode* op) override {
    return Compare(op, spv::OpINotEqual, spv::OpINotEqual, spv::OpFUnordNotEqual, spv::OpLogicalNotEqual);
  }
  uint32_t VisitExpr_(const LTNode* op) override {
    return Compare(op, spv::OpSLessThan, spv::OpULessThan, spv::OpFOrdLessThan, spv::OpNop);
  }
  uint32_t VisitExpr_(const LENode* op) override {
    return Compare(op, spv::OpSLessThanEqual, spv::OpULessThanEqual, spv::OpFOrdLessThanEqual, spv::OpNop);
  }
  uint32_t VisitExpr_(const GTNode* op) override {
    return Compare(op, spv::OpSGreaterThan, spv::OpUGreaterThan, spv::OpFOrdGreaterThan, spv::OpNop);
  }
  uint32_t VisitExpr_(const GENode* op) override {
    return Compare(op, spv::OpSGreaterThanEqual, spv::OpUGreaterThanEqual, spv::OpFOrdGreaterThanEqual, spv::OpNop);
  }
  uint32_t Logical(const BinaryNode* op, bool is_and) {
    uint32_t boolean = b_.TypeBool();
    uint32_t a = VisitExpr(op->a);
    if (!ReadsMemory(op->b)) {
      return b_.EmitValue(is_and ? spv::OpLogicalAnd : spv::OpLogicalOr, boolean, {a, VisitExpr(op->b)});
    }
    uint32_t skip = b_.ConstantBool(!is_and);
    PrimExpr rhs = op->b;
    if (is_and) return Conditional(a, boolean, [&] { return VisitExpr(rhs); }, [&] { return skip; });
    return Conditional(a, boolean, [&] { return skip; }, [&] { return VisitExpr(rhs); });
  }
  uint32_t VisitExpr_(const AndNode* op) override { return Logical(op, true); }
  uint32_t VisitExpr_(const OrNode* op) override { return Logical(op, false); }
  uint32_t VisitExpr_(const NotNode* op) override {
    return b_.EmitValue(spv::OpLogicalNot, b_.TypeBool(), {VisitExpr(op->a)});
  }
  uint32_t Choose(const PrimExpr& cond, const PrimExpr& a, const PrimExpr& b, DataType t) {
    uint32_t c = VisitExpr(cond);
    if (!ReadsMemory(a) && !ReadsMemory(b)) {
      uint32_t x = VisitExpr(a), y = VisitExpr(b);
      return b_.EmitValue(spv::OpSelect, Type(t), {c, x, y});
    }
    return Conditional(c, Type(t), [&] { return VisitExpr(a); }, [&] { return VisitExpr(b); });
  }
  uint32_t VisitExpr_(const SelectNode* op) override {
    return Choose(op->condition, op->true_value, op->false_value, op->dtype);
  }
  uint32_t VisitExpr_(const LetNode* op) override {
    values_[op->var.get()] = VisitExpr(op->value);
    return VisitExpr(op->body);
  }

  // A pointer to element `index` of the buffer whose data var is `data`.
  uint32_t ElementPointer(const Buffer& buffer, const Array<PrimExpr>& indices, const Base** base_out) {
    if (indices.size() != 1) {
      Fail(absl::StrCat("buffer ", buffer->name, " is not flattened"));
      return 0;
    }
    auto it = bases_.find(buffer->data.get());
    if (it == bases_.end()) {
      Fail(absl::StrCat("buffer ", buffer->name, " has no storage in this kernel"));
      return 0;
    }
    const Base& base = it->second;
    if (base.elem != buffer->dtype) {
      Fail(absl::StrCat("buffer ", buffer->name, " is accessed as ", buffer->dtype.ToString(), " over storage of ",
                        base.elem.ToString()));
      return 0;
    }
    *base_out = &base;
    uint32_t index = VisitExpr(indices[0]);
    std::vector<uint32_t> chain = {base.var};
    if (base.in_block) chain.push_back(Int32(0));
    chain.push_back(index);
    return b_.EmitValue(spv::OpAccessChain, b_.TypePointer(base.storage, base.elem_type), chain);
  }
  uint32_t VisitExpr_(const BufferLoadNode* op) override {
    const Base* base = nullptr;
    uint32_t ptr = ElementPointer(op->buffer, op->indices, &base);
    if (ptr == 0) return ConstInt(op->dtype.element_of(), 0);
    uint32_t v = b_.EmitValue(spv::OpLoad, base->elem_type, {ptr});
    if (base->elem.is_bool() && base->in_block) {
      return b_.EmitValue(spv::OpINotEqual, b_.TypeBool(), {v, b_.Constant(b_.TypeInt(8, false), 0)});
    }
    return v;
  }

  uint32_t Ext(GLSLstd450 inst, uint32_t type, const std::vector<uint32_t>& args) {
    std::vector<uint32_t> ops = {b_.GLSLStd450(), static_cast<uint32_t>(inst)};
    ops.insert(ops.end(), args.begin(), args.end());
    return b_.EmitValue(spv::OpExtInst, type, ops);
  }

  uint32_t VisitExpr_(const CallNode* op) override {
    if (op->op.as<GlobalVarNode>() != nullptr) {
      Fail("calls between PrimFuncs in device code are not supported");
      return Int32(0);
    }
    const auto* o = op->op.as<OpNode>();
    if (o == nullptr) {
      Fail("call of a non-op");
      return Int32(0);
    }
    std::string name = o->name.rfind("tirx.", 0) == 0 ? o->name.substr(5) : o->name;
    const auto& args = op->args;
    DataType t = op->dtype;
    if (name == "tvm_storage_sync") return Barrier(args);
    if (name == "likely") return VisitExpr(args[0]);
    if (name == "if_then_else") return Choose(args[0], args[1], args[2], t);
    std::vector<uint32_t> a;
    for (const PrimExpr& x : args) a.push_back(VisitExpr(x));
    if (!status_.ok()) return Int32(0);
    uint32_t type = t.is_void() ? 0 : Type(t);
    if (t.is_float()) {
      static const std::map<std::string, GLSLstd450> kAnyWidth = {
          {"sqrt", GLSLstd450Sqrt},   {"rsqrt", GLSLstd450InverseSqrt}, {"fabs", GLSLstd450FAbs},
          {"abs", GLSLstd450FAbs},    {"floor", GLSLstd450Floor},       {"ceil", GLSLstd450Ceil},
          {"trunc", GLSLstd450Trunc}, {"round", GLSLstd450RoundEven},   {"nearbyint", GLSLstd450RoundEven},
          {"fma", GLSLstd450Fma}};
      // GLSL.std.450 defines these for 16- and 32-bit floats only.
      static const std::map<std::string, GLSLstd450> kUpTo32 = {
          {"exp", GLSLstd450Exp},     {"exp2", GLSLstd450Exp2},   {"log", GLSLstd450Log},
          {"log2", GLSLstd450Log2},   {"sin", GLSLstd450Sin},     {"cos", GLSLstd450Cos},
          {"tan", GLSLstd450Tan},     {"sinh", GLSLstd450Sinh},   {"cosh", GLSLstd450Cosh},
          {"tanh", GLSLstd450Tanh},   {"asin", GLSLstd450Asin},   {"acos", GLSLstd450Acos},
          {"atan", GLSLstd450Atan},   {"asinh", GLSLstd450Asinh}, {"acosh", GLSLstd450Acosh},
          {"atanh", GLSLstd450Atanh}, {"pow", GLSLstd450Pow},     {"atan2", GLSLstd450Atan2}};
      if (auto it = kAnyWidth.find(name); it != kAnyWidth.end()) return Ext(it->second, type, a);
      bool transcendental = kUpTo32.count(name) || name == "log10" || name == "exp10" || name == "sigmoid" ||
                            name == "log1p" || name == "expm1";
      if (transcendental && t.bits() == 64) {
        Fail(absl::StrCat("float64 ", name, " has no SPIR-V (GLSL.std.450) instruction"));
        return a[0];
      }
      if (auto it = kUpTo32.find(name); it != kUpTo32.end()) return Ext(it->second, type, a);
      uint32_t one = ConstFloat(t, 1);
      if (name == "log10") {
        return b_.EmitValue(spv::OpFMul, type, {Ext(GLSLstd450Log2, type, a), ConstFloat(t, 0.30102999566398119521)});
      }
      if (name == "exp10") {
        return Ext(GLSLstd450Exp2, type, {b_.EmitValue(spv::OpFMul, type, {a[0], ConstFloat(t, 3.32192809488736234787)})});
      }
      if (name == "sigmoid") {
        uint32_t e = Ext(GLSLstd450Exp, type, {b_.EmitValue(spv::OpFNegate, type, {a[0]})});
        return b_.EmitValue(spv::OpFDiv, type, {one, b_.EmitValue(spv::OpFAdd, type, {one, e})});
      }
      if (name == "log1p") return Ext(GLSLstd450Log, type, {b_.EmitValue(spv::OpFAdd, type, {one, a[0]})});
      if (name == "expm1") return b_.EmitValue(spv::OpFSub, type, {Ext(GLSLstd450Exp, type, a), one});
      if (name == "fmod") return b_.EmitValue(spv::OpFRem, type, a);
      if (name == "hypot") {
        uint32_t x2 = b_.EmitValue(spv::OpFMul, type, {a[0], a[0]});
        uint32_t y2 = b_.EmitValue(spv::OpFMul, type, {a[1], a[1]});
        return Ext(GLSLstd450Sqrt, type, {b_.EmitValue(spv::OpFAdd, type, {x2, y2})});
      }
    }
    if (name == "isnan") return b_.EmitValue(spv::OpIsNan, b_.TypeBool(), a);
    if (name == "isinf") return b_.EmitValue(spv::OpIsInf, b_.TypeBool(), a);
    if (name == "isfinite") {
      uint32_t boolean = b_.TypeBool();
      uint32_t bad = b_.EmitValue(spv::OpLogicalOr, boolean, {b_.EmitValue(spv::OpIsNan, boolean, a),
                                                              b_.EmitValue(spv::OpIsInf, boolean, a)});
      return b_.EmitValue(spv::OpLogicalNot, boolean, {bad});
    }
    if (t.is_int() || t.is_uint()) {
      if (name == "abs" || name == "fabs") {
        if (t.is_uint()) return a[0];
        uint32_t neg = b_.EmitValue(spv::OpSLessThan, b_.TypeBool(), {a[0], ConstInt(t, 0)});
        return b_.EmitValue(spv::OpSelect, type, {neg, b_.EmitValue(spv::OpSNegate, type, {a[0]}), a[0]});
      }
      if (name == "bitwise_and") return b_.EmitValue(spv::OpBitwiseAnd, type, a);
      if (name == "bitwise_or") return b_.EmitValue(spv::OpBitwiseOr, type, a);
      if (name == "bitwise_xor") return b_.EmitValue(spv::OpBitwiseXor, type, a);
      if (name == "bitwise_not") return b_.EmitValue(spv::OpNot, type, a);
      if (name == "shift_left") return b_.EmitValue(spv::OpShiftLeftLogical, type, a);
      if (name == "shift_right") {
        return b_.EmitValue(t.is_int() ? spv::OpShiftRightArithmetic : spv::OpShiftRightLogical, type, a);
      }
    }
    if (name == "reinterpret" && args[0].dtype().bits() == t.bits() && !t.is_bool()) {
      return b_.EmitValue(spv::OpBitcast, type, a);
    }
    Fail(absl::StrCat("intrinsic ", o->name, " (", t.ToString(), ") is not supported"));
    return a.empty() ? Int32(0) : a[0];
  }

  // T.tvm_storage_sync(scope): every invocation of the workgroup waits, and memory writes of the
  // scope are visible after it.
  uint32_t Barrier(const Array<PrimExpr>& args) {
    const auto* scope = args.empty() ? nullptr : args[0].as<StringImmNode>();
    uint32_t semantics = spv::MemorySemanticsAcquireReleaseMask | spv::MemorySemanticsWorkgroupMemoryMask;
    uint32_t memory_scope = spv::ScopeWorkgroup;
    if (scope != nullptr && scope->value == "global") {
      semantics |= spv::MemorySemanticsUniformMemoryMask;
      memory_scope = spv::ScopeDevice;
    } else if (scope == nullptr || scope->value != "shared") {
      Fail(absl::StrCat("T.tvm_storage_sync(", scope ? scope->value : "?", ") is not supported"));
      return Int32(0);
    }
    b_.Emit(spv::OpControlBarrier, {Int32(spv::ScopeWorkgroup), Int32(memory_scope), Int32(semantics)});
    return Int32(0);
  }

  // ---------------- statements ----------------
  void VisitStmtDefault_(const Object* op) override { Fail(absl::StrCat("unsupported statement ", op->type_key())); }

  void VisitStmt_(const LetStmtNode* op) override {
    values_[op->var.get()] = VisitExpr(op->value);
    VisitStmt(op->body);
  }
  void VisitStmt_(const AttrStmtNode* op) override {
    const auto* iv = op->node.as<IterVarNode>();
    if (op->attr_key != "thread_extent" || iv == nullptr) return VisitStmt(op->body);
    bool block = false;
    int dim = 0;
    if (!tir::ParseThreadTag(iv->thread_tag, &block, &dim)) {
      Fail(absl::StrCat("unsupported thread tag ", iv->thread_tag));
      return;
    }
    uint32_t u32 = b_.TypeInt(32, false);
    uint32_t vec = b_.EmitValue(spv::OpLoad, b_.TypeVector(u32, 3), {block ? group_id_ : local_id_});
    uint32_t idx = b_.EmitValue(spv::OpCompositeExtract, u32, {vec, static_cast<uint32_t>(dim)});
    values_[iv->var.get()] = Convert(idx, DataType::UInt(32), iv->var.dtype());
    VisitStmt(op->body);
  }
  void VisitStmt_(const AssertStmtNode*) override { Fail("assertions in device code are not supported"); }
  void VisitStmt_(const BufferStoreNode* op) override {
    uint32_t value = VisitExpr(op->value);
    const Base* base = nullptr;
    uint32_t ptr = ElementPointer(op->buffer, op->indices, &base);
    if (ptr == 0) return;
    if (base->elem.is_bool() && base->in_block) {
      uint32_t u8 = b_.TypeInt(8, false);
      value = b_.EmitValue(spv::OpSelect, u8, {value, b_.Constant(u8, 1), b_.Constant(u8, 0)});
    }
    b_.Emit(spv::OpStore, {ptr, value});
  }
  void VisitStmt_(const ForNode* op) override {
    DataType t = op->loop_var.dtype();
    uint32_t type = Type(t);
    uint32_t min = VisitExpr(op->min);
    uint32_t end = b_.EmitValue(spv::OpIAdd, type, {min, VisitExpr(op->extent)});
    uint32_t step = op->step.defined() ? VisitExpr(op->step) : ConstInt(t, 1);
    uint32_t pre = label_;
    uint32_t header = b_.NewId(), body = b_.NewId(), cont = b_.NewId(), merge = b_.NewId();
    uint32_t i = b_.NewId(), next = b_.NewId();
    Branch(header);
    StartBlock(header);
    b_.Emit(spv::OpPhi, {type, i, min, pre, next, cont});
    uint32_t c = b_.EmitValue(t.is_int() ? spv::OpSLessThan : spv::OpULessThan, b_.TypeBool(), {i, end});
    b_.Emit(spv::OpLoopMerge, {merge, cont, spv::LoopControlMaskNone});
    BranchConditional(c, body, merge);
    StartBlock(body);
    values_[op->loop_var.get()] = i;
    loops_.push_back({merge, cont});
    VisitStmt(op->body);
    loops_.pop_back();
    Branch(cont);
    StartBlock(cont);
    b_.Emit(spv::OpIAdd, {type, next, i, step});
    Branch(header);
    StartBlock(merge);
  }
  void VisitStmt_(const WhileNode* op) override {
    uint32_t header = b_.NewId(), check = b_.NewId(), body = b_.NewId(), cont = b_.NewId(), merge = b_.NewId();
    Branch(header);
    StartBlock(header);
    b_.Emit(spv::OpLoopMerge, {merge, cont, spv::LoopControlMaskNone});
    Branch(check);
    StartBlock(check);
    uint32_t c = VisitExpr(op->condition);
    BranchConditional(c, body, merge);
    StartBlock(body);
    loops_.push_back({merge, cont});
    VisitStmt(op->body);
    loops_.pop_back();
    Branch(cont);
    StartBlock(cont);
    Branch(header);
    StartBlock(merge);
  }
  // After a break or continue the rest of the block is unreachable; it goes to a block of its own.
  void VisitStmt_(const BreakNode*) override {
    if (loops_.empty()) return Fail("break outside a loop");
    Branch(loops_.back().first);
    StartBlock(b_.NewId());
  }
  void VisitStmt_(const ContinueNode*) override {
    if (loops_.empty()) return Fail("continue outside a loop");
    Branch(loops_.back().second);
    StartBlock(b_.NewId());
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    uint32_t c = VisitExpr(op->condition);
    uint32_t then_label = b_.NewId(), merge = b_.NewId();
    uint32_t else_label = op->else_case.defined() ? b_.NewId() : merge;
    b_.Emit(spv::OpSelectionMerge, {merge, spv::SelectionControlMaskNone});
    BranchConditional(c, then_label, else_label);
    StartBlock(then_label);
    VisitStmt(op->then_case);
    Branch(merge);
    if (op->else_case.defined()) {
      StartBlock(else_label);
      VisitStmt(op->else_case);
      Branch(merge);
    }
    StartBlock(merge);
  }
  void VisitStmt_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) VisitStmt(s);
  }
  void VisitStmt_(const EvaluateNode* op) override {
    if (driver::IsNoOpEvaluate(op)) return;
    if (driver::ReturnedValue(op).defined()) return Fail("return in device code");
    VisitExpr(op->value);
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    const Buffer& buf = op->buffer;
    std::optional<int64_t> count = tir::ConstantElementCount(buf);
    if (!count) return Fail(absl::StrCat("allocation ", buf->name, " has a non-constant size"));
    if (!CheckType(buf->dtype, absl::StrCat("allocation ", buf->name))) return;
    std::string scope = buf->scope();
    Base base;
    base.elem = buf->dtype;
    base.elem_type = Type(buf->dtype);
    uint32_t array = b_.TypeArray(base.elem_type, static_cast<uint32_t>(std::max<int64_t>(*count, 1)));
    if (scope == "shared") {
      base.storage = spv::StorageClassWorkgroup;
      base.var = b_.GlobalVariable(b_.TypePointer(spv::StorageClassWorkgroup, array), spv::StorageClassWorkgroup);
    } else if (scope == "local" || scope == "global") {
      // A "global" allocation inside a kernel is per-thread scratch, as in TVM's lowering.
      base.storage = spv::StorageClassFunction;
      base.var = b_.LocalVariable(b_.TypePointer(spv::StorageClassFunction, array));
    } else {
      return Fail(absl::StrCat("allocation ", buf->name, " in unsupported scope ", scope));
    }
    b_.Name(base.var, buf->name);
    bases_[buf->data.get()] = base;
    VisitStmt(op->body);
  }
  void VisitStmt_(const DeclBufferNode* op) override { VisitStmt(op->body); }

  Builder b_;
  std::string name_;
  absl::Status status_;
  uint32_t label_ = 0;  // the block being emitted
  bool terminated_ = false;
  uint32_t local_id_ = 0, group_id_ = 0;
  std::unordered_map<const VarNode*, uint32_t> values_;
  std::unordered_map<const VarNode*, Base> bases_;
  std::vector<std::pair<uint32_t, uint32_t>> loops_;  // (merge, continue) of the enclosing loops
};

}  // namespace

absl::StatusOr<std::vector<SPIRVKernel>> GenerateSPIRV(const std::vector<PrimFunc>& kernels) {
  absl::Status scalable = tir::RejectScalableVectors(kernels, "the SPIR-V backend");
  if (!scalable.ok()) return scalable;
  std::vector<SPIRVKernel> out;
  for (const PrimFunc& f : kernels) {
    absl::StatusOr<SPIRVKernel> k = CodegenSPIRV().Run(f);
    if (!k.ok()) return k.status();
    out.push_back(*std::move(k));
  }
  return out;
}

}  // namespace kiln::codegen
