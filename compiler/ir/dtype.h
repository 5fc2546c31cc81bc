// DataType: (type code, bits, lanes), laid out like DLPack's DLDataType so it crosses the kernel
// ABI unchanged. Spelled as TVMScript spells it: "float32", "int8x4", "bool", "handle", "void".
//
// Scalable vectors (Arm SVE, RISC-V V) have vscale * factor lanes, vscale being a hardware constant
// known only at run time. As in TVM, the lane field then holds -factor (read as int16), so a fixed
// vector has at most 32767 lanes and "float32xvscalex4" is (float, 32, -4). lanes() returns that
// signed encoding: code that sizes something by lanes() must first ask is_scalable_vector().
#ifndef KILN_COMPILER_IR_DTYPE_H_
#define KILN_COMPILER_IR_DTYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::ir {

class DataType {
 public:
  // DLPack type codes (dlpack.h, 1.x numbering for the 8-, 6- and 4-bit floats).
  enum Code : uint8_t {
    kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3, kBFloat = 4,
    kFloat8E3M4 = 7, kFloat8E4M3 = 8, kFloat8E4M3B11FNUZ = 9, kFloat8E4M3FN = 10,
    kFloat8E4M3FNUZ = 11, kFloat8E5M2 = 12, kFloat8E5M2FNUZ = 13, kFloat8E8M0FNU = 14,
    kFloat6E2M3FN = 15, kFloat6E3M2FN = 16, kFloat4E2M1FN = 17,
  };

  constexpr DataType() : code_(kHandle), bits_(0), lanes_(0) {}  // void
  constexpr DataType(uint8_t code, uint8_t bits, uint16_t lanes)
      : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  static constexpr DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  static constexpr DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  static constexpr DataType BFloat(int bits, int lanes = 1) { return DataType(kBFloat, bits, lanes); }
  static constexpr DataType Bool(int lanes = 1) { return DataType(kUInt, 1, lanes); }
  static constexpr DataType Handle() { return DataType(kHandle, 64, 1); }
  static constexpr DataType Void() { return DataType(kHandle, 0, 0); }
  // vscale * factor lanes of (code, bits); factor > 1, as TVM requires.
  static constexpr DataType ScalableVector(uint8_t code, int bits, int factor) {
    return DataType(code, bits, static_cast<uint16_t>(-factor));
  }

  // Parses "float32", "int8x4", "bool", "handle", "void", "bfloat16", "float8_e4m3fn",
  // "float32xvscalex4", ...
  static absl::StatusOr<DataType> Parse(absl::string_view s);
  // Parse without the error: false when `s` names no dtype. For callers that ask of many names
  // whether they are dtypes (the TVMScript parser, for every `T.xxx` call).
  static bool TryParse(absl::string_view s, DataType* out);

  uint8_t code() const { return code_; }
  int bits() const { return bits_; }
  // The lane count of a scalar or fixed vector; -factor for a scalable vector (see above).
  int lanes() const { return static_cast<int16_t>(lanes_); }
  int bytes() const { return (bits_ + 7) / 8; }
  // Bytes of one element including lanes; for a scalable vector, its size at vscale 1 (it has no
  // compile-time size: the stages that allocate reject scalable vectors before asking).
  int64_t StorageBytes() const {
    int n = is_scalable_vector() ? vscale_factor() : (lanes_ == 0 ? 1 : lanes_);
    return static_cast<int64_t>(bytes()) * n;
  }

  bool is_void() const { return code_ == kHandle && bits_ == 0 && lanes_ == 0; }
  bool is_handle() const { return code_ == kHandle && !is_void(); }
  bool is_bool() const { return code_ == kUInt && bits_ == 1; }
  bool is_int() const { return code_ == kInt; }
  bool is_uint() const { return code_ == kUInt && bits_ != 1; }
  bool is_integer() const { return code_ == kInt || (code_ == kUInt && bits_ != 1); }
  bool is_int_or_bool() const { return code_ == kInt || code_ == kUInt; }
  bool is_float() const { return code_ == kFloat; }
  bool is_bfloat() const { return code_ == kBFloat; }
  bool is_float8() const { return code_ >= kFloat8E3M4 && code_ <= kFloat8E8M0FNU; }
  bool is_float6() const { return code_ == kFloat6E2M3FN || code_ == kFloat6E3M2FN; }
  bool is_float4() const { return code_ == kFloat4E2M1FN; }
  bool is_floating() const { return is_float() || is_bfloat() || is_float8() || is_float6() || is_float4(); }
  bool is_scalar() const { return lanes_ == 1; }
  // Fixed or scalable.
  bool is_vector() const { return lanes() > 1 || is_scalable_vector(); }
  bool is_fixed_length_vector() const { return lanes() > 1; }
  bool is_scalable_vector() const { return lanes() < -1; }
  // The factor of a scalable vector's vscale * factor lanes; 0 for any other type.
  int vscale_factor() const { return is_scalable_vector() ? -lanes() : 0; }
  bool is_numeric() const { return is_int_or_bool() || is_floating(); }

  DataType element_of() const { return DataType(code_, bits_, 1); }
  // `lanes` in the encoding of lanes(): negative for a scalable vector.
  DataType with_lanes(int lanes) const { return DataType(code_, bits_, static_cast<uint16_t>(lanes)); }
  DataType with_scalable_vscale_factor(int factor) const { return ScalableVector(code_, bits_, factor); }
  DataType with_bits(int bits) const { return DataType(code_, bits, lanes_); }

  std::string ToString() const;

  bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }
  uint32_t Packed() const { return code_ | (bits_ << 8) | (static_cast<uint32_t>(lanes_) << 16); }
  static DataType FromPacked(uint32_t p) { return DataType(p & 0xff, (p >> 8) & 0xff, p >> 16); }

 private:
  uint8_t code_;
  uint8_t bits_;
  uint16_t lanes_;
};

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_DTYPE_H_
