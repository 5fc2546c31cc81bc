#include "compiler/ir/dtype.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#include <cstring>

namespace kiln::ir {
namespace {

struct Named { const char* name; DataType::Code code; int bits; };
// Fixed-width names that do not follow the <prefix><bits> rule.
constexpr Named kSpecial[] = {
    {"float8_e3m4", DataType::kFloat8E3M4, 8},
    {"float8_e4m3", DataType::kFloat8E4M3, 8},
    {"float8_e4m3b11fnuz", DataType::kFloat8E4M3B11FNUZ, 8},
    {"float8_e4m3fn", DataType::kFloat8E4M3FN, 8},
    {"float8_e4m3fnuz", DataType::kFloat8E4M3FNUZ, 8},
    {"float8_e5m2", DataType::kFloat8E5M2, 8},
    {"float8_e5m2fnuz", DataType::kFloat8E5M2FNUZ, 8},
    {"float8_e8m0fnu", DataType::kFloat8E8M0FNU, 8},
    {"float6_e2m3fn", DataType::kFloat6E2M3FN, 6},
    {"float6_e3m2fn", DataType::kFloat6E3M2FN, 6},
    {"float4_e2m1fn", DataType::kFloat4E2M1FN, 4},
};

bool ValidBits(DataType::Code code, int bits) {
  switch (code) {
    // int1 and float8 (no format suffix) are accepted by TVM too: sub-byte mma operands, views.
    case DataType::kInt: return bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case DataType::kUInt: return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64 || bits == 4;
    case DataType::kFloat: return bits == 8 || bits == 16 || bits == 32 || bits == 64;
    case DataType::kBFloat: return bits == 16;
    default: return true;
  }
}

}  // namespace

bool DataType::TryParse(absl::string_view s, DataType* out) {
  if (s == "void") {
    *out = Void();
    return true;
  }
  if (s == "handle") {
    *out = Handle();
    return true;
  }
  absl::string_view base = s;
  int lanes = 1;
  // A lane suffix "x4" follows the element name; "xvscalex4" makes it scalable (vscale * 4 lanes).
  // Lanes fit TVM's int16 lane field: up to 32767 fixed, a factor of 2 to 32767 scalable.
  size_t x = s.rfind('x');
  if (x != absl::string_view::npos && x + 1 < s.size() && x > 0 &&
      absl::ascii_isdigit(static_cast<unsigned char>(s[x + 1]))) {
    if (!absl::SimpleAtoi(s.substr(x + 1), &lanes) || lanes < 1 || lanes > 32767) return false;
    base = s.substr(0, x);
    constexpr absl::string_view kScalable = "xvscale";
    if (absl::EndsWith(base, kScalable)) {
      if (lanes < 2) return false;
      lanes = -lanes;
      base.remove_suffix(kScalable.size());
    }
  }
  if (base == "bool") {
    *out = Bool().with_lanes(lanes);
    return true;
  }
  for (const Named& n : kSpecial) {
    if (base == n.name) {
      *out = DataType(n.code, n.bits, 1).with_lanes(lanes);
      return true;
    }
  }
  struct Prefix { const char* p; Code code; };
  // Longer prefixes first: "uint" before "int", "bfloat" before "float".
  constexpr Prefix kPrefixes[] = {{"uint", kUInt}, {"int", kInt}, {"bfloat", kBFloat}, {"float", kFloat}};
  for (const Prefix& p : kPrefixes) {
    if (!absl::StartsWith(base, p.p)) continue;
    absl::string_view digits = base.substr(strlen(p.p));
    // A bare "int", "uint" or "float" is 32 bits wide, as in TVM ("float" is float32).
    int bits = 32;
    if (digits.empty() ? p.code == kBFloat : !absl::SimpleAtoi(digits, &bits)) return false;
    if (!ValidBits(p.code, bits)) return false;
    *out = DataType(p.code, bits, 1).with_lanes(lanes);
    return true;
  }
  return false;
}

absl::StatusOr<DataType> DataType::Parse(absl::string_view s) {
  DataType t;
  if (!TryParse(s, &t)) return absl::InvalidArgumentError(absl::StrCat("unknown dtype \"", s, "\""));
  return t;
}

std::string DataType::ToString() const {
  if (is_void()) return "void";
  std::string s;
  if (code_ == kHandle) {
    s = "handle";
  } else if (is_bool()) {
    // TVM spells a scalable bool vector (an SVE predicate, as get_active_lane_mask makes) uint1;
    // kiln's bool is uint1, so both spellings read back as this one type.
    s = is_scalable_vector() ? "uint1" : "bool";
  } else {
    bool special = false;
    for (const Named& n : kSpecial) {
      if (n.code == code_) { s = n.name; special = true; }
    }
    if (!special) {
      switch (code_) {
        case kInt: s = absl::StrCat("int", bits_); break;
        case kUInt: s = absl::StrCat("uint", bits_); break;
        case kFloat: s = absl::StrCat("float", bits_); break;
        case kBFloat: s = absl::StrCat("bfloat", bits_); break;
        default: s = absl::StrCat("custom", int(code_), "_", bits_); break;
      }
    }
  }
  if (is_scalable_vector()) {
    absl::StrAppend(&s, "xvscalex", vscale_factor());
  } else if (lanes_ != 1) {
    absl::StrAppend(&s, "x", lanes_);
  }
  return s;
}

}  // namespace kiln::ir
