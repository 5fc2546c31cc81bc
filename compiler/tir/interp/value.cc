// Per-lane arithmetic, casts and memory access of the TIR reference interpreter (see value.h).
#include "compiler/tir/interp/value.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::tir::interp {

using ir::DataType;

namespace {

// Undefined behaviour in the program (see value.h): an error rather than a made-up value.
absl::Status Undefined(const std::string& what) {
  return absl::OutOfRangeError(absl::StrCat("undefined behaviour: ", what));
}

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

// The largest value of integer type t, as an unsigned number.
uint64_t MaxUnsigned(DataType t) {
  return t.bits() >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << t.bits()) - 1;
}

// Arithmetic of the result type on the float lanes: float32 in float (as the backends compute it),
// every other float in double, then rounded to the type.
template <typename Fn>
double FloatArith(DataType t, double a, double b, Fn fn) {
  if (t.bits() == 32 && t.is_float()) {
    return static_cast<double>(fn(static_cast<float>(a), static_cast<float>(b)));
  }
  return RoundFloat(fn(a, b), t);
}

}  // namespace

Value Value::Int(DataType t, int64_t v) {
  Value out;
  out.dtype = t;
  Lane l;
  l.i = WrapInt(v, t);
  out.lanes.assign(t.lanes() < 1 ? 1 : t.lanes(), l);
  return out;
}

Value Value::Float(DataType t, double v) {
  Value out;
  out.dtype = t;
  Lane l;
  l.f = RoundFloat(v, t);
  out.lanes.assign(t.lanes() < 1 ? 1 : t.lanes(), l);
  return out;
}

Value Value::Bool(bool v) { return Int(DataType::Bool(), v ? 1 : 0); }

Value Value::Handle(const void* p) {
  Value out;
  out.dtype = DataType::Handle();
  Lane l;
  l.i = static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
  out.lanes.assign(1, l);
  return out;
}

absl::Status CheckSupported(DataType t) {
  if (t.is_float8() || t.is_float4() || (t.is_float() && t.bits() != 16 && t.bits() != 32 && t.bits() != 64) ||
      (t.is_bfloat() && t.bits() != 16) || (t.is_int_or_bool() && t.bits() > 64) || t.code() > DataType::kBFloat) {
    return absl::UnimplementedError(absl::StrCat("the interpreter does not support dtype ", t.ToString()));
  }
  return absl::OkStatus();
}

int64_t WrapInt(int64_t v, DataType t) {
  int bits = t.bits();
  if (t.is_bool()) return v != 0 ? 1 : 0;
  if (bits >= 64 || bits <= 0) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (bits - 1)) != 0) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

uint16_t DoubleToHalf(double v) {
  uint64_t x = Bits(v);
  uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000);
  int exp = static_cast<int>((x >> 52) & 0x7ff);
  uint64_t mant = x & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) return sign | 0x7c00 | (mant != 0 ? 0x200 : 0);  // inf, quiet NaN
  int e = exp - 1023 + 15;                                           // biased half exponent
  if (e >= 0x1f) return sign | 0x7c00;                               // overflow: inf
  // The magnitude as an integer number of half ulps at this exponent, plus the dropped remainder.
  int shift;
  uint64_t sig;
  if (e <= 0) {  // half subnormal (or zero): unit 2^-24
    if (exp == 0 || e < -11) return sign;  // double subnormals and tiny values round to zero
    sig = mant | (uint64_t{1} << 52);
    shift = 42 + 1 - e;
  } else {
    sig = mant;
    shift = 42;
  }
  uint64_t kept = sig >> shift;
  uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  uint64_t half = uint64_t{1} << (shift - 1);
  uint32_t out = e <= 0 ? static_cast<uint32_t>(kept) : (static_cast<uint32_t>(e) << 10) | static_cast<uint32_t>(kept);
  if (rem > half || (rem == half && (out & 1))) ++out;  // a carry into the exponent is still right
  return sign | static_cast<uint16_t>(out);
}

double HalfToDouble(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(static_cast<double>(mant), -24);
  return sign * std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
}

uint16_t FloatToBFloat16(float v) {
  uint32_t x;
  std::memcpy(&x, &v, sizeof(x));
  if (std::isnan(v)) return static_cast<uint16_t>((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

float BFloat16ToFloat(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}

double RoundFloat(double v, DataType t) {
  if (t.is_bfloat()) return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(v)));
  switch (t.bits()) {
    case 16: return HalfToDouble(DoubleToHalf(v));
    case 32: return static_cast<double>(static_cast<float>(v));
    default: return v;
  }
}

absl::Status CastLane(Lane in, DataType from, DataType to, Lane* out) {
  from = from.element_of();
  to = to.element_of();
  if (to.is_handle()) {
    if (!from.is_handle() && !from.is_int_or_bool()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot cast ", from.ToString(), " to handle"));
    }
    out->i = in.i;
    return absl::OkStatus();
  }
  if (from.is_handle()) return absl::InvalidArgumentError(absl::StrCat("cannot cast a handle to ", to.ToString()));
  if (from.is_int_or_bool()) {
    if (to.is_int_or_bool()) {
      out->i = WrapInt(in.i, to);
    } else if (to.is_float() && to.bits() == 32) {
      // One rounding straight to float, as C converts; going through double could round twice.
      out->f = from.is_uint() ? static_cast<float>(static_cast<uint64_t>(in.i)) : static_cast<float>(in.i);
    } else {
      double d = from.is_uint() ? static_cast<double>(static_cast<uint64_t>(in.i)) : static_cast<double>(in.i);
      out->f = RoundFloat(d, to);
    }
    return absl::OkStatus();
  }
  // From a float.
  if (to.is_floating()) {
    out->f = RoundFloat(in.f, to);
    return absl::OkStatus();
  }
  if (to.is_bool()) {
    out->i = in.f != 0 ? 1 : 0;
    return absl::OkStatus();
  }
  double t = std::trunc(in.f);
  bool fits;
  if (to.is_uint()) {
    fits = t >= 0 && t <= static_cast<double>(MaxUnsigned(to)) && t < 18446744073709551616.0;
  } else {
    double lo = -std::ldexp(1.0, to.bits() - 1);
    fits = t >= lo && t < -lo;
  }
  if (!fits) {  // also NaN
    return Undefined(absl::StrCat("casting ", from.ToString(), " value ", in.f, " to ", to.ToString(),
                                  ", which cannot represent it"));
  }
  out->i = to.is_uint() ? static_cast<int64_t>(static_cast<uint64_t>(t)) : static_cast<int64_t>(t);
  return absl::OkStatus();
}

absl::Status CastValue(const Value& v, DataType to, Value* out) {
  int lanes = std::max(1, to.lanes());
  if (static_cast<int>(v.lanes.size()) != lanes && v.lanes.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot cast ", v.dtype.ToString(), " to ", to.ToString(), ": lane counts differ"));
  }
  Value r;
  r.dtype = to;
  r.lanes.resize(lanes);
  for (int i = 0; i < lanes; ++i) {
    absl::Status st = CastLane(v.lanes[v.lanes.size() == 1 ? 0 : i], v.dtype, to, &r.lanes[i]);
    if (!st.ok()) return st;
  }
  *out = std::move(r);
  return absl::OkStatus();
}

absl::Status ArithLane(ArithOp op, DataType t, Lane a, Lane b, Lane* out) {
  t = t.element_of();
  if (t.is_handle()) return absl::InvalidArgumentError("arithmetic on a handle");
  if (t.is_floating()) {
    double x = a.f, y = b.f;
    switch (op) {
      case ArithOp::kAdd: out->f = FloatArith(t, x, y, [](auto p, auto q) { return p + q; }); break;
      case ArithOp::kSub: out->f = FloatArith(t, x, y, [](auto p, auto q) { return p - q; }); break;
      case ArithOp::kMul: out->f = FloatArith(t, x, y, [](auto p, auto q) { return p * q; }); break;
      case ArithOp::kDiv: out->f = FloatArith(t, x, y, [](auto p, auto q) { return p / q; }); break;
      case ArithOp::kMod: out->f = FloatArith(t, x, y, [](auto p, auto q) { return std::fmod(p, q); }); break;
      case ArithOp::kFloorDiv:
        out->f = FloatArith(t, x, y, [](auto p, auto q) { return std::floor(p / q); });
        break;
      case ArithOp::kFloorMod:
        // x - floor(x / y) * y, each step rounded like the backends compute it.
        out->f = FloatArith(t, x, y, [](auto p, auto q) { return p - std::floor(p / q) * q; });
        break;
      // a < b ? a : b and b < a ? a : b: what both backends emit (NaN picks the second operand).
      case ArithOp::kMin: out->f = x < y ? x : y; break;
      case ArithOp::kMax: out->f = y < x ? x : y; break;
    }
    return absl::OkStatus();
  }
  bool is_signed = t.is_int();
  uint64_t ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
  switch (op) {
    case ArithOp::kAdd: out->i = WrapInt(static_cast<int64_t>(ua + ub), t); return absl::OkStatus();
    case ArithOp::kSub: out->i = WrapInt(static_cast<int64_t>(ua - ub), t); return absl::OkStatus();
    case ArithOp::kMul: out->i = WrapInt(static_cast<int64_t>(ua * ub), t); return absl::OkStatus();
    case ArithOp::kMin:
      out->i = (is_signed ? a.i < b.i : ua < ub) ? a.i : b.i;
      return absl::OkStatus();
    case ArithOp::kMax:
      out->i = (is_signed ? b.i < a.i : ub < ua) ? a.i : b.i;
      return absl::OkStatus();
    default: break;
  }
  // Division and remainder.
  // OUT_OF_RANGE as the other faults (and a checked-mode kernel's failed check).
  if (b.i == 0) return absl::OutOfRangeError(absl::StrCat(t.ToString(), " division by zero"));
  if (!is_signed) {
    bool div = op == ArithOp::kDiv || op == ArithOp::kFloorDiv;
    out->i = WrapInt(static_cast<int64_t>(div ? ua / ub : ua % ub), t);
    return absl::OkStatus();
  }
  int64_t min_value = t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1));
  if (a.i == min_value && b.i == -1) {
    if (op == ArithOp::kMod || op == ArithOp::kFloorMod) {
      out->i = 0;  // the remainder is well defined (0); only the quotient overflows
      return absl::OkStatus();
    }
    return Undefined(absl::StrCat(t.ToString(), " division overflow (", a.i, " / -1)"));
  }
  int64_t q = a.i / b.i, r = a.i % b.i;
  bool adjust = r != 0 && ((r < 0) != (b.i < 0));  // floor differs from truncation
  switch (op) {
    case ArithOp::kDiv: out->i = q; break;
    case ArithOp::kMod: out->i = r; break;
    case ArithOp::kFloorDiv: out->i = adjust ? q - 1 : q; break;
    case ArithOp::kFloorMod: out->i = adjust ? r + b.i : r; break;
    default: break;
  }
  return absl::OkStatus();
}

namespace {
template <typename T>
bool Compare(CompareOp op, T x, T y) {
  switch (op) {
    case CompareOp::kEQ: return x == y;
    case CompareOp::kNE: return x != y;
    case CompareOp::kLT: return x < y;
    case CompareOp::kLE: return x <= y;
    case CompareOp::kGT: return x > y;
    case CompareOp::kGE: return x >= y;
  }
  return false;
}
}  // namespace

bool CompareLane(CompareOp op, DataType t, Lane a, Lane b) {
  t = t.element_of();
  if (t.is_floating()) return Compare(op, a.f, b.f);
  if (t.is_int()) return Compare(op, a.i, b.i);
  // unsigned, bool, handle
  return Compare(op, static_cast<uint64_t>(a.i), static_cast<uint64_t>(b.i));
}

Lane LoadLane(const char* p, DataType t) {
  Lane l;
  l.i = 0;
  if (t.is_bool()) {
    l.i = *reinterpret_cast<const uint8_t*>(p) != 0 ? 1 : 0;
  } else if (t.is_int_or_bool() || t.is_handle()) {
    switch (t.bytes()) {
      case 1: { int8_t v; std::memcpy(&v, p, 1); l.i = v; break; }
      case 2: { int16_t v; std::memcpy(&v, p, 2); l.i = v; break; }
      case 4: { int32_t v; std::memcpy(&v, p, 4); l.i = v; break; }
      default: std::memcpy(&l.i, p, 8); break;
    }
    l.i = t.is_handle() ? l.i : WrapInt(l.i, t);  // zero-extends unsigned types
  } else if (t.is_bfloat()) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    l.f = BFloat16ToFloat(v);
  } else if (t.bits() == 16) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    l.f = HalfToDouble(v);
  } else if (t.bits() == 32) {
    float v;
    std::memcpy(&v, p, 4);
    l.f = v;
  } else {
    std::memcpy(&l.f, p, 8);
  }
  return l;
}

void StoreLane(char* p, DataType t, Lane v) {
  if (t.is_bool()) {
    *reinterpret_cast<uint8_t*>(p) = v.i != 0 ? 1 : 0;
  } else if (t.is_int_or_bool() || t.is_handle()) {
    std::memcpy(p, &v.i, t.bytes());  // little-endian: the low bytes
  } else if (t.is_bfloat()) {
    uint16_t b = FloatToBFloat16(static_cast<float>(v.f));
    std::memcpy(p, &b, 2);
  } else if (t.bits() == 16) {
    uint16_t h = DoubleToHalf(v.f);
    std::memcpy(p, &h, 2);
  } else if (t.bits() == 32) {
    float f = static_cast<float>(v.f);
    std::memcpy(p, &f, 4);
  } else {
    std::memcpy(p, &v.f, 8);
  }
}

std::string ToString(const Value& v) {
  std::vector<std::string> parts;
  for (const Lane& l : v.lanes) {
    if (v.dtype.is_floating()) {
      parts.push_back(absl::StrCat(l.f));
    } else if (v.dtype.is_uint() || v.dtype.is_handle()) {
      parts.push_back(absl::StrCat(static_cast<uint64_t>(l.i)));
    } else {
      parts.push_back(absl::StrCat(l.i));
    }
  }
  return absl::StrCat(v.dtype.ToString(), "(", absl::StrJoin(parts, ", "), ")");
}

}  // namespace kiln::tir::interp
