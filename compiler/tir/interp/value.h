// Run-time values of the TIR reference interpreter and the per-lane arithmetic the TIR spec defines
// for them ("Semantics: Evaluating PrimExprs"): integers wrap at their width (two's complement),
// floats round to their own precision after every operation (float16 and bfloat16 by bit
// manipulation, no compiler extension), casts follow C, and bool is an integer 0/1.
//
// Behaviour the spec leaves undefined (integer division by zero, INT_MIN / -1, a shift by the bit
// width or more, a float converted to an integer type that cannot hold it) is reported as an error
// instead of producing some value: the interpreter is the oracle that backends are compared with,
// and a program that depends on undefined behaviour has no answer to compare against.
#ifndef KILN_COMPILER_TIR_INTERP_VALUE_H_
#define KILN_COMPILER_TIR_INTERP_VALUE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/dtype.h"

namespace kiln::tir::interp {

// One lane. Integers (signed, unsigned, bool) live in `i`, normalised to their width: sign-extended
// for signed types, zero-extended for unsigned ones (uint64 as its bit pattern), 0/1 for bool.
// Floats live in `f` holding a value exactly representable in their dtype. Handles are the address
// in `i`.
union Lane {
  int64_t i;
  double f;
};

// The lanes of a value: up to four inline, more on the heap. (A plain container rather than
// absl::InlinedVector because values are created for every sub-expression evaluated, and this
// keeps unoptimised test builds fast.)
class Lanes {
 public:
  size_t size() const { return size_; }
  Lane* data() { return size_ <= kInline ? inline_ : heap_.data(); }
  const Lane* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  Lane& operator[](size_t i) { return data()[i]; }
  const Lane& operator[](size_t i) const { return data()[i]; }
  Lane* begin() { return data(); }
  Lane* end() { return data() + size_; }
  const Lane* begin() const { return data(); }
  const Lane* end() const { return data() + size_; }
  void resize(size_t n) {
    if (n > kInline) {
      if (size_ <= kInline) heap_.assign(inline_, inline_ + size_);
      heap_.resize(n);
    } else if (size_ > kInline) {
      std::copy(heap_.begin(), heap_.begin() + n, inline_);
      heap_.clear();
    }
    size_ = n;
  }
  void assign(size_t n, Lane v) {
    resize(n);
    std::fill(begin(), end(), v);
  }
  void push_back(Lane v) {
    resize(size_ + 1);
    data()[size_ - 1] = v;
  }

 private:
  static constexpr size_t kInline = 4;
  Lane inline_[kInline];
  std::vector<Lane> heap_;
  size_t size_ = 0;
};

// A scalar (one lane) or a vector value; lanes.size() == dtype.lanes() (1 for handles).
struct Value {
  ir::DataType dtype = ir::DataType::Void();
  Lanes lanes;

  static Value Int(ir::DataType t, int64_t v);  // wrapped to t, broadcast to t's lanes
  static Value Float(ir::DataType t, double v);  // rounded to t, broadcast to t's lanes
  static Value Bool(bool v);
  static Value Handle(const void* p);

  int64_t AsInt() const { return lanes[0].i; }
  double AsFloat() const { return lanes[0].f; }
  bool AsBool() const { return lanes[0].i != 0; }
  void* AsPointer() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(lanes[0].i)); }
};

// Whether the interpreter can represent values of dtype `t` (8-bit and 4-bit floats it cannot).
absl::Status CheckSupported(ir::DataType t);

// `v` wrapped to the width of integer (or bool) type `t`.
int64_t WrapInt(int64_t v, ir::DataType t);
// `v` rounded to floating type `t` (round to nearest even).
double RoundFloat(double v, ir::DataType t);

// IEEE binary16 and bfloat16 conversions (round to nearest even; NaN stays NaN).
uint16_t DoubleToHalf(double v);
double HalfToDouble(uint16_t h);
uint16_t FloatToBFloat16(float v);
float BFloat16ToFloat(uint16_t b);

// Converts one lane from `from` to `to` (element types) as a C cast does.
absl::Status CastLane(Lane in, ir::DataType from, ir::DataType to, Lane* out);
// Element-wise cast; a scalar is broadcast when `to` has more lanes.
absl::Status CastValue(const Value& v, ir::DataType to, Value* out);

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod, kFloorDiv, kFloorMod, kMin, kMax };
enum class CompareOp { kEQ, kNE, kLT, kLE, kGT, kGE };

// a <op> b for element type `t`.
absl::Status ArithLane(ArithOp op, ir::DataType t, Lane a, Lane b, Lane* out);
bool CompareLane(CompareOp op, ir::DataType t, Lane a, Lane b);

// Reads / writes one element of type `t` (element type, lanes 1) at `p`, in the storage layout
// of DLPack: bool is one byte, float16 and bfloat16 their 16 bits.
Lane LoadLane(const char* p, ir::DataType t);
void StoreLane(char* p, ir::DataType t, Lane v);

// "int32(7)", "float32x4(1, 2, 3, 4)": for messages.
std::string ToString(const Value& v);

}  // namespace kiln::tir::interp

#endif  // KILN_COMPILER_TIR_INTERP_VALUE_H_
