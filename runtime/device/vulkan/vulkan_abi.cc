#include "runtime/device/vulkan/vulkan_abi.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::runtime::vulkan {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

bool IsHandle(DLDataType t) { return t.code == kDLOpaqueHandle; }

}  // namespace

absl::StatusOr<ArgLayout> ArgLayoutOf(const std::vector<DLDataType>& params) {
  ArgLayout out;
  for (size_t i = 0; i < params.size(); ++i) {
    DLDataType t = params[i];
    if (IsHandle(t)) {
      out.slots.push_back(out.num_buffers++);
      out.push_types.push_back(t);
      continue;
    }
    bool is_bool = t.code == kDLUInt && t.bits == 1;
    bool is_int = t.code == kDLInt || (t.code == kDLUInt && !is_bool);
    if (t.lanes != 1 || !(is_bool || (is_int && t.bits <= 64) || (t.code == kDLFloat && t.bits <= 64))) {
      return absl::InvalidArgumentError(absl::StrCat("Vulkan: scalar kernel parameter #", i, " (type code ", t.code,
                                                     ", ", t.bits, " bits, ", t.lanes, " lanes) has no push-constant form"));
    }
    DLDataType p = t;
    if (is_bool || (t.code == kDLInt && t.bits < 32)) p = DLDataType{kDLInt, 32, 1};
    if (t.code == kDLUInt && !is_bool && t.bits < 32) p = DLDataType{kDLUInt, 32, 1};
    if (t.code == kDLFloat && t.bits < 32) p = DLDataType{kDLFloat, 32, 1};
    uint32_t size = p.bits / 8;
    uint32_t offset = (out.push_constant_bytes + size - 1) / size * size;
    out.push_constant_bytes = offset + size;
    out.slots.push_back(offset);
    out.push_types.push_back(p);
  }
  return out;
}

std::vector<uint8_t> PackPushConstants(const std::vector<DLDataType>& params, const ArgLayout& layout,
                                       const KilnAny* args) {
  std::vector<uint8_t> out(layout.push_constant_bytes);
  for (size_t i = 0; i < params.size(); ++i) {
    if (IsHandle(params[i])) continue;
    DLDataType p = layout.push_types[i];
    uint8_t* dst = out.data() + layout.slots[i];
    const KilnAny& v = args[i];
    if (p.code == kDLFloat) {
      double d = v.type_index == kKilnFloat ? v.v_float64 : static_cast<double>(v.v_int64);
      if (p.bits == 32) {
        float f = static_cast<float>(d);
        std::memcpy(dst, &f, 4);
      } else {
        std::memcpy(dst, &d, 8);
      }
    } else {
      int64_t n = v.type_index == kKilnFloat ? static_cast<int64_t>(v.v_float64) : v.v_int64;
      if (p.bits == 32) {
        uint32_t w = static_cast<uint32_t>(n);
        std::memcpy(dst, &w, 4);
      } else {
        std::memcpy(dst, &n, 8);
      }
    }
  }
  return out;
}

std::string PackModules(const std::vector<std::vector<uint32_t>>& modules) {
  std::string out;
  for (const std::vector<uint32_t>& m : modules) {
    uint64_t n = m.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    for (uint32_t w : m) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((w >> (8 * i)) & 0xff));
    }
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<uint32_t>>> UnpackModules(absl::string_view code) {
  std::vector<std::vector<uint32_t>> out;
  size_t pos = 0;
  auto byte = [&](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(code[i])); };
  while (pos < code.size()) {
    if (code.size() - pos < 8) return absl::InvalidArgumentError(absl::StrCat("spirv blob: truncated at byte ", pos));
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= byte(pos + i) << (8 * i);
    pos += 8;
    if (n < 5 || n > (code.size() - pos) / 4) {
      return absl::InvalidArgumentError(absl::StrCat("spirv blob: module #", out.size(), " claims ", n,
                                                     " words with ", code.size() - pos, " bytes left"));
    }
    std::vector<uint32_t> words(n);
    for (uint64_t w = 0; w < n; ++w, pos += 4) {
      words[w] = static_cast<uint32_t>(byte(pos) | byte(pos + 1) << 8 | byte(pos + 2) << 16 | byte(pos + 3) << 24);
    }
    if (words[0] != kSpirvMagic) {
      return absl::InvalidArgumentError(absl::StrCat("spirv blob: module #", out.size(), " is not SPIR-V"));
    }
    out.push_back(std::move(words));
  }
  return out;
}

}  // namespace kiln::runtime::vulkan
