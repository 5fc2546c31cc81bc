// Pure TIR intrinsics and C math externs for the reference interpreter (see intrinsics.h).
//
// Float math follows the backends: float32 is computed with the float overloads of <cmath>
// (expf, ...), float64 with the double ones, float16 and bfloat16 in float and rounded back.
// round is nearbyint (ties to even), as TVM lowers it; the C library's round (ties away from
// zero) is only what T.call_extern("float32", "roundf", x) gets.
#include "compiler/tir/interp/intrinsics.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kiln::tir::interp {

using ir::DataType;

namespace {

struct UnaryFn {
  float (*f32)(float);
  double (*f64)(double);
};
struct BinaryFn {
  float (*f32)(float, float);
  double (*f64)(double, double);
};

#define KILN_UNARY(expr) \
  UnaryFn { [](float x) -> float { return expr; }, [](double x) -> double { return expr; } }
#define KILN_BINARY(expr) \
  BinaryFn { [](float x, float y) -> float { return expr; }, [](double x, double y) -> double { return expr; } }

// The TIR float math ops, by op name.
const std::unordered_map<std::string, UnaryFn>& UnaryOps() {
  static const auto* const kOps = new std::unordered_map<std::string, UnaryFn>{
      {"exp", KILN_UNARY(std::exp(x))},         {"exp2", KILN_UNARY(std::exp2(x))},
      {"exp10", KILN_UNARY(std::pow(decltype(x)(10), x))},
      {"log", KILN_UNARY(std::log(x))},         {"log2", KILN_UNARY(std::log2(x))},
      {"log10", KILN_UNARY(std::log10(x))},     {"log1p", KILN_UNARY(std::log1p(x))},
      {"expm1", KILN_UNARY(std::expm1(x))},     {"sqrt", KILN_UNARY(std::sqrt(x))},
      {"rsqrt", KILN_UNARY(decltype(x)(1) / std::sqrt(x))},
      {"sin", KILN_UNARY(std::sin(x))},         {"cos", KILN_UNARY(std::cos(x))},
      {"tan", KILN_UNARY(std::tan(x))},         {"sinh", KILN_UNARY(std::sinh(x))},
      {"cosh", KILN_UNARY(std::cosh(x))},       {"tanh", KILN_UNARY(std::tanh(x))},
      {"asin", KILN_UNARY(std::asin(x))},       {"acos", KILN_UNARY(std::acos(x))},
      {"atan", KILN_UNARY(std::atan(x))},       {"asinh", KILN_UNARY(std::asinh(x))},
      {"acosh", KILN_UNARY(std::acosh(x))},     {"atanh", KILN_UNARY(std::atanh(x))},
      {"sigmoid", KILN_UNARY(decltype(x)(1) / (decltype(x)(1) + std::exp(-x)))},
      {"erf", KILN_UNARY(std::erf(x))},         {"fabs", KILN_UNARY(std::fabs(x))},
      {"floor", KILN_UNARY(std::floor(x))},     {"ceil", KILN_UNARY(std::ceil(x))},
      {"round", KILN_UNARY(std::nearbyint(x))}, {"nearbyint", KILN_UNARY(std::nearbyint(x))},
      {"trunc", KILN_UNARY(std::trunc(x))},
  };
  return *kOps;
}

const std::unordered_map<std::string, BinaryFn>& BinaryOps() {
  static const auto* const kOps = new std::unordered_map<std::string, BinaryFn>{
      {"pow", KILN_BINARY(std::pow(x, y))},     {"atan2", KILN_BINARY(std::atan2(x, y))},
      {"fmod", KILN_BINARY(std::fmod(x, y))},   {"hypot", KILN_BINARY(std::hypot(x, y))},
      {"copysign", KILN_BINARY(std::copysign(x, y))},
  };
  return *kOps;
}

// The C math library by its C name ("expf" is the float form of "exp"): what T.call_extern may
// call. Its functions take and return float or double.
const std::unordered_map<std::string, UnaryFn>& ExternUnary() {
  static const auto* const kOps = new std::unordered_map<std::string, UnaryFn>{
      {"exp", KILN_UNARY(std::exp(x))},     {"exp2", KILN_UNARY(std::exp2(x))},
      {"log", KILN_UNARY(std::log(x))},     {"log2", KILN_UNARY(std::log2(x))},
      {"log10", KILN_UNARY(std::log10(x))}, {"log1p", KILN_UNARY(std::log1p(x))},
      {"expm1", KILN_UNARY(std::expm1(x))}, {"sqrt", KILN_UNARY(std::sqrt(x))},
      {"cbrt", KILN_UNARY(std::cbrt(x))},   {"sin", KILN_UNARY(std::sin(x))},
      {"cos", KILN_UNARY(std::cos(x))},     {"tan", KILN_UNARY(std::tan(x))},
      {"sinh", KILN_UNARY(std::sinh(x))},   {"cosh", KILN_UNARY(std::cosh(x))},
      {"tanh", KILN_UNARY(std::tanh(x))},   {"asin", KILN_UNARY(std::asin(x))},
      {"acos", KILN_UNARY(std::acos(x))},   {"atan", KILN_UNARY(std::atan(x))},
      {"asinh", KILN_UNARY(std::asinh(x))}, {"acosh", KILN_UNARY(std::acosh(x))},
      {"atanh", KILN_UNARY(std::atanh(x))}, {"erf", KILN_UNARY(std::erf(x))},
      {"erfc", KILN_UNARY(std::erfc(x))},   {"fabs", KILN_UNARY(std::fabs(x))},
      {"floor", KILN_UNARY(std::floor(x))}, {"ceil", KILN_UNARY(std::ceil(x))},
      {"round", KILN_UNARY(std::round(x))}, {"nearbyint", KILN_UNARY(std::nearbyint(x))},
      {"rint", KILN_UNARY(std::rint(x))},   {"trunc", KILN_UNARY(std::trunc(x))},
  };
  return *kOps;
}

const std::unordered_map<std::string, BinaryFn>& ExternBinary() {
  static const auto* const kOps = new std::unordered_map<std::string, BinaryFn>{
      {"pow", KILN_BINARY(std::pow(x, y))},     {"atan2", KILN_BINARY(std::atan2(x, y))},
      {"fmod", KILN_BINARY(std::fmod(x, y))},   {"hypot", KILN_BINARY(std::hypot(x, y))},
      {"fmax", KILN_BINARY(std::fmax(x, y))},   {"fmin", KILN_BINARY(std::fmin(x, y))},
      {"copysign", KILN_BINARY(std::copysign(x, y))},
      {"nextafter", KILN_BINARY(std::nextafter(x, y))},
  };
  return *kOps;
}

#undef KILN_UNARY
#undef KILN_BINARY

// A value of dtype t with `lanes` lanes whose lanes the caller fills.
Value Make(DataType t, int lanes) {
  Value v;
  v.dtype = t;
  v.lanes.resize(std::max(1, lanes));
  return v;
}

// Lane i of v, or its only lane for a scalar used with vectors.
Lane At(const Value& v, size_t i) { return v.lanes[v.lanes.size() == 1 ? 0 : i]; }

absl::Status NeedFloat(const std::string& name, const Value& v) {
  if (v.dtype.is_floating()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("T.", name, " expects a floating-point argument, got ",
                                                 v.dtype.ToString()));
}

absl::Status NeedInt(const std::string& name, const Value& v) {
  if (v.dtype.is_int_or_bool()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("T.", name, " expects integer arguments, got ", v.dtype.ToString()));
}

// The float value of lane `l` of `t` after `fn` in the precision the backends use (see the top).
double ApplyUnary(const UnaryFn& fn, DataType t, double x) {
  if (t.is_float() && t.bits() == 64) return fn.f64(x);
  return RoundFloat(fn.f32(static_cast<float>(x)), t);
}
double ApplyBinary(const BinaryFn& fn, DataType t, double x, double y) {
  if (t.is_float() && t.bits() == 64) return fn.f64(x, y);
  return RoundFloat(fn.f32(static_cast<float>(x), static_cast<float>(y)), t);
}

// The representable value of 16-bit float type t next to x in the direction of y.
double NextAfter16(DataType t, double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  if (x == y) return y;
  auto to_bits = [&](double v) -> uint16_t {
    return t.is_bfloat() ? FloatToBFloat16(static_cast<float>(v)) : DoubleToHalf(v);
  };
  auto from_bits = [&](uint16_t b) -> double {
    return t.is_bfloat() ? static_cast<double>(BFloat16ToFloat(b)) : HalfToDouble(b);
  };
  if (x == 0) return from_bits(static_cast<uint16_t>(y > 0 ? 0x0001 : 0x8001));
  uint16_t b = to_bits(x);
  bool away_from_zero = (y > x) == (x > 0);
  return from_bits(static_cast<uint16_t>(away_from_zero ? b + 1 : b - 1));
}

uint64_t Masked(int64_t v, DataType t) {
  return t.bits() >= 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t{1} << t.bits()) - 1);
}

absl::Status Shift(const std::string& name, DataType t, const Value& a, const Value& b, Value* out) {
  *out = Make(t, static_cast<int>(std::max(a.lanes.size(), b.lanes.size())));
  DataType e = t.element_of();
  for (size_t i = 0; i < out->lanes.size(); ++i) {
    int64_t x = At(a, i).i;
    int64_t s = At(b, i).i;
    bool negative = b.dtype.is_int() && s < 0;
    if (negative || static_cast<uint64_t>(s) >= static_cast<uint64_t>(e.bits())) {
      return absl::OutOfRangeError(absl::StrCat("undefined behaviour: T.", name, " of ", e.ToString(), " by ",
                                                b.dtype.is_uint() ? absl::StrCat(static_cast<uint64_t>(s))
                                                                  : absl::StrCat(s),
                                                " bits"));
    }
    if (name == "shift_left") {
      out->lanes[i].i = WrapInt(static_cast<int64_t>(static_cast<uint64_t>(x) << s), e);
    } else {
      // Lanes are normalised, so an int64 shift is arithmetic for signed types and logical for
      // (zero-extended) unsigned ones.
      out->lanes[i].i = e.is_int() ? x >> s : static_cast<int64_t>(static_cast<uint64_t>(x) >> s);
    }
  }
  return absl::OkStatus();
}

// Reinterprets the bits of v as dtype t (same total size).
absl::Status Reinterpret(DataType t, const Value& v, Value* out) {
  int64_t in_bytes = v.dtype.element_of().bytes() * static_cast<int64_t>(v.lanes.size());
  int lanes = std::max(1, t.lanes());
  if (in_bytes != t.element_of().bytes() * lanes || v.dtype.is_bool() || t.is_bool()) {
    return absl::InvalidArgumentError(
        absl::StrCat("T.reinterpret cannot turn ", v.dtype.ToString(), " into ", t.ToString(), ": sizes differ"));
  }
  std::vector<char> bytes(in_bytes);
  DataType from = v.dtype.element_of();
  for (size_t i = 0; i < v.lanes.size(); ++i) StoreLane(bytes.data() + i * from.bytes(), from, v.lanes[i]);
  *out = Make(t, lanes);
  for (int i = 0; i < lanes; ++i) out->lanes[i] = LoadLane(bytes.data() + i * t.element_of().bytes(), t.element_of());
  return absl::OkStatus();
}

}  // namespace

absl::Status EvalPureIntrinsic(const std::string& name, DataType dtype, const std::vector<Value>& args, Value* out) {
  auto arity = [&](size_t n) -> absl::Status {
    if (args.size() == n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("T.", name, " expects ", n, " arguments, got ", args.size()));
  };
  if (auto it = UnaryOps().find(name); it != UnaryOps().end()) {
    if (absl::Status st = arity(1); !st.ok()) return st;
    if (absl::Status st = NeedFloat(name, args[0]); !st.ok()) return st;
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) out->lanes[i].f = ApplyUnary(it->second, t, args[0].lanes[i].f);
    return absl::OkStatus();
  }
  if (auto it = BinaryOps().find(name); it != BinaryOps().end() || name == "nextafter") {
    if (absl::Status st = arity(2); !st.ok()) return st;
    if (absl::Status st = NeedFloat(name, args[0]); !st.ok()) return st;
    if (absl::Status st = NeedFloat(name, args[1]); !st.ok()) return st;
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(std::max(args[0].lanes.size(), args[1].lanes.size())));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      double x = At(args[0], i).f, y = At(args[1], i).f;
      if (name != "nextafter") {
        out->lanes[i].f = ApplyBinary(it->second, t, x, y);
      } else if (t.bits() == 16) {
        out->lanes[i].f = NextAfter16(t, x, y);
      } else if (t.bits() == 32) {
        out->lanes[i].f = std::nextafter(static_cast<float>(x), static_cast<float>(y));
      } else {
        out->lanes[i].f = std::nextafter(x, y);
      }
    }
    return absl::OkStatus();
  }
  if (name == "ldexp") {
    if (absl::Status st = arity(2); !st.ok()) return st;
    if (absl::Status st = NeedFloat(name, args[0]); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[1]); !st.ok()) return st;
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      int64_t e = std::max<int64_t>(-100000, std::min<int64_t>(100000, At(args[1], i).i));
      double x = args[0].lanes[i].f;
      out->lanes[i].f = t.bits() == 64 ? std::ldexp(x, static_cast<int>(e))
                                       : RoundFloat(std::ldexp(static_cast<float>(x), static_cast<int>(e)), t);
    }
    return absl::OkStatus();
  }
  if (name == "fma") {
    if (absl::Status st = arity(3); !st.ok()) return st;
    for (const Value& a : args) {
      if (absl::Status st = NeedFloat(name, a); !st.ok()) return st;
    }
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      double x = args[0].lanes[i].f, y = At(args[1], i).f, z = At(args[2], i).f;
      out->lanes[i].f = t.is_float() && t.bits() == 32
                            ? std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z))
                            : RoundFloat(std::fma(x, y, z), t);  // exact in double for 16-bit floats
    }
    return absl::OkStatus();
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    if (absl::Status st = NeedFloat(name, args[0]); !st.ok()) return st;
    *out = Make(DataType::Bool(static_cast<int>(args[0].lanes.size())), static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      double x = args[0].lanes[i].f;
      bool r = name == "isnan" ? std::isnan(x) : name == "isinf" ? std::isinf(x) : std::isfinite(x);
      out->lanes[i].i = r ? 1 : 0;
    }
    return absl::OkStatus();
  }
  if (name == "bitwise_and" || name == "bitwise_or" || name == "bitwise_xor") {
    if (absl::Status st = arity(2); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[0]); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[1]); !st.ok()) return st;
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(std::max(args[0].lanes.size(), args[1].lanes.size())));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      int64_t x = At(args[0], i).i, y = At(args[1], i).i;
      int64_t r = name == "bitwise_and" ? (x & y) : name == "bitwise_or" ? (x | y) : (x ^ y);
      out->lanes[i].i = WrapInt(r, t.element_of());
    }
    return absl::OkStatus();
  }
  if (name == "bitwise_not") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[0]); !st.ok()) return st;
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      int64_t x = args[0].lanes[i].i;
      out->lanes[i].i = t.is_bool() ? (x ^ 1) : WrapInt(~x, t.element_of());
    }
    return absl::OkStatus();
  }
  if (name == "shift_left" || name == "shift_right") {
    if (absl::Status st = arity(2); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[0]); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[1]); !st.ok()) return st;
    return Shift(name, args[0].dtype, args[0], args[1], out);
  }
  if (name == "popcount" || name == "clz") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    if (absl::Status st = NeedInt(name, args[0]); !st.ok()) return st;
    DataType e = args[0].dtype.element_of();
    DataType t = name == "popcount" ? args[0].dtype : DataType::Int(32, args[0].dtype.lanes());
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      uint64_t u = Masked(args[0].lanes[i].i, e);
      int64_t r;
      if (name == "popcount") {
        r = __builtin_popcountll(u);
      } else {
        r = u == 0 ? e.bits() : __builtin_clzll(u) - (64 - e.bits());
      }
      out->lanes[i].i = WrapInt(r, t.element_of());
    }
    return absl::OkStatus();
  }
  if (name == "q_multiply_shift") {
    // TVM's definition (int32 fixed point): x * y in 64 bits, shifted right by q - s with rounding
    // to nearest (a positive s shifts x left first).
    if (absl::Status st = arity(4); !st.ok()) return st;
    for (const Value& a : args) {
      if (absl::Status st = NeedInt(name, a); !st.ok()) return st;
    }
    DataType t = args[0].dtype;
    *out = Make(t, static_cast<int>(args[0].lanes.size()));
    for (size_t i = 0; i < out->lanes.size(); ++i) {
      int64_t x = args[0].lanes[i].i, y = At(args[1], i).i, q = At(args[2], i).i, s = At(args[3], i).i;
      int64_t lshift = s > 0 ? s : 0;
      int64_t rshift = (s > 0 ? 0 : -s) + q;
      if (lshift >= 63 || rshift < 1 || rshift >= 63) {
        return absl::OutOfRangeError(absl::StrCat("undefined behaviour: T.q_multiply_shift with q = ", q, ", s = ", s));
      }
      uint64_t prod = (static_cast<uint64_t>(x) << lshift) * static_cast<uint64_t>(y);
      prod += uint64_t{1} << (rshift - 1);
      out->lanes[i].i = WrapInt(static_cast<int64_t>(prod) >> rshift, t.element_of());
    }
    return absl::OkStatus();
  }
  if (name == "reinterpret") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    return Reinterpret(dtype, args[0], out);
  }
  if (name == "likely") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    *out = args[0];
    return absl::OkStatus();
  }
  if (name == "vectorlow" || name == "vectorhigh") {
    if (absl::Status st = arity(1); !st.ok()) return st;
    int n = dtype.lanes();
    int total = static_cast<int>(args[0].lanes.size());
    if (n > total) return absl::InvalidArgumentError(absl::StrCat("T.", name, " of ", args[0].dtype.ToString(), " to ", dtype.ToString()));
    *out = Make(dtype, n);
    for (int i = 0; i < n; ++i) out->lanes[i] = args[0].lanes[name == "vectorlow" ? i : total - n + i];
    return absl::OkStatus();
  }
  if (name == "vectorcombine") {
    if (absl::Status st = arity(2); !st.ok()) return st;
    *out = Make(dtype, static_cast<int>(args[0].lanes.size() + args[1].lanes.size()));
    size_t k = 0;
    for (const Value& a : args) {
      for (const Lane& l : a.lanes) out->lanes[k++] = l;
    }
    return absl::OkStatus();
  }
  return absl::NotFoundError(name);
}

absl::Status EvalExternCall(const std::string& callee, DataType dtype, const std::vector<Value>& args, Value* out) {
  // "expf" is exp in float, "exp" in double.
  bool single = absl::EndsWith(callee, "f") && callee != "erf";
  std::string base = single ? callee.substr(0, callee.size() - 1) : callee;
  DataType arg_type = single ? DataType::Float(32) : DataType::Float(64);
  std::vector<double> xs;
  for (const Value& a : args) {
    if (a.lanes.size() != 1) {
      return absl::UnimplementedError(absl::StrCat("T.call_extern of ", callee, " with a vector argument"));
    }
    Lane l;
    absl::Status st = CastLane(a.lanes[0], a.dtype, arg_type, &l);  // C's implicit argument conversion
    if (!st.ok()) return st;
    xs.push_back(l.f);
  }
  Lane r;
  bool found = false;
  if (auto it = ExternUnary().find(base); it != ExternUnary().end() && xs.size() == 1) {
    r.f = single ? it->second.f32(static_cast<float>(xs[0])) : it->second.f64(xs[0]);
    found = true;
  } else if (auto it2 = ExternBinary().find(base); it2 != ExternBinary().end() && xs.size() == 2) {
    r.f = single ? it2->second.f32(static_cast<float>(xs[0]), static_cast<float>(xs[1])) : it2->second.f64(xs[0], xs[1]);
    found = true;
  }
  if (!found) {
    return absl::UnimplementedError(absl::StrCat("the interpreter cannot call external function ", callee, " (",
                                                 args.size(), " arguments): it knows only the C math library"));
  }
  Value v;
  v.dtype = arg_type;
  v.lanes.assign(1, r);
  return CastValue(v, dtype, out);
}

}  // namespace kiln::tir::interp
