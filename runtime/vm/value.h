// The value a Relax VM register holds, and what crosses the VM's C++ API: None, int, float, bool,
// a dtype, a string, a shape, a tensor, a storage block, a tuple or a closure (a VM function or a
// packed function with captured arguments). A Value is a small handle: scalars live inline, the
// rest behind one shared_ptr, so copying a register is cheap and tuples share their elements.
// Values are immutable once built (a tensor's data is not: tensors are shared like numpy arrays).
#ifndef KILN_RUNTIME_VM_VALUE_H_
#define KILN_RUNTIME_VM_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "absl/types/span.h"
#include "runtime/tensor.h"

namespace kiln::vm {

class Storage;

// A function of the executable's function table (by index) with its trailing arguments bound, as
// TVM's VMClosure::BindLastArgs: calling it with `args` calls the function with args, then captured.
struct Closure {
  int64_t func_index = 0;
  std::vector<class Value> captured;
};

class Value {
 public:
  enum class Kind : uint8_t {
    kNone, kInt, kFloat, kBool, kDataType, kString, kShape, kTensor, kStorage, kTuple, kClosure,
    kVMContext,  // what "%vm" reads: marks the argument where TVM passes the VM pointer
  };

  Value() = default;  // None
  static Value Int(int64_t v) { Value r(Kind::kInt); r.pod_.i = v; return r; }
  static Value Float(double v) { Value r(Kind::kFloat); r.pod_.f = v; return r; }
  static Value Bool(bool v) { Value r(Kind::kBool); r.pod_.i = v ? 1 : 0; return r; }
  static Value DataType(DLDataType v) { Value r(Kind::kDataType); r.pod_.dt = v; return r; }
  static Value String(std::string s);
  static Value Shape(std::vector<int64_t> dims);
  static Value Tensor(runtime::Tensor t);  // an undefined tensor gives None
  static Value StorageRef(std::shared_ptr<const Storage> s);
  static Value Tuple(std::vector<Value> fields);
  static Value MakeClosure(int64_t func_index, std::vector<Value> captured);
  static Value VMContext() { return Value(Kind::kVMContext); }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_dtype() const { return kind_ == Kind::kDataType; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_shape() const { return kind_ == Kind::kShape; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_storage() const { return kind_ == Kind::kStorage; }
  bool is_tuple() const { return kind_ == Kind::kTuple; }
  bool is_closure() const { return kind_ == Kind::kClosure; }

  // Accessors: the caller checks the kind first (they are not for untrusted dispatch).
  int64_t as_int() const { return pod_.i; }  // kInt and kBool
  double as_float() const { return pod_.f; }
  bool as_bool() const { return pod_.i != 0; }
  DLDataType as_dtype() const { return pod_.dt; }
  const std::string& as_string() const;
  const std::vector<int64_t>& as_shape() const;
  const runtime::Tensor& as_tensor() const;
  std::shared_ptr<const Storage> as_storage() const;
  const std::vector<Value>& as_tuple() const;
  const Closure& as_closure() const;

  // "int", "float", "Tensor", ...: for error messages.
  static const char* KindName(Kind kind);
  const char* kind_name() const { return KindName(kind_); }
  // A short human-readable rendering (R.Tensor((2, 3), "float32"), (1, 2), 3, ...).
  std::string DebugString() const;

 private:
  explicit Value(Kind k) : kind_(k) {}
  template <typename T>
  static Value Boxed(Kind k, std::shared_ptr<const T> p) {
    Value r(k);
    r.obj_ = std::move(p);
    return r;
  }
  template <typename T>
  const T& Unbox() const { return *static_cast<const T*>(obj_.get()); }

  Kind kind_ = Kind::kNone;
  union {
    int64_t i;
    double f;
    DLDataType dt;
  } pod_{0};
  std::shared_ptr<const void> obj_;  // string, shape, tensor, storage, tuple, closure
};

// Depth-first leaves of nested tuples (a non-tuple is its own single leaf).
void FlattenTuples(const Value& v, std::vector<Value>* out);

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_VALUE_H_
