#include "runtime/vm/value.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/vm/allocator.h"

namespace kiln::vm {

Value Value::String(std::string s) { return Boxed(Kind::kString, std::make_shared<const std::string>(std::move(s))); }

Value Value::Shape(std::vector<int64_t> dims) {
  return Boxed(Kind::kShape, std::make_shared<const std::vector<int64_t>>(std::move(dims)));
}

Value Value::Tensor(runtime::Tensor t) {
  if (!t.defined()) return Value();
  return Boxed(Kind::kTensor, std::make_shared<const runtime::Tensor>(std::move(t)));
}

Value Value::StorageRef(std::shared_ptr<const Storage> s) {
  if (s == nullptr) return Value();
  return Boxed(Kind::kStorage, std::move(s));
}

Value Value::Tuple(std::vector<Value> fields) {
  return Boxed(Kind::kTuple, std::make_shared<const std::vector<Value>>(std::move(fields)));
}

Value Value::MakeClosure(int64_t func_index, std::vector<Value> captured) {
  auto c = std::make_shared<Closure>();
  c->func_index = func_index;
  c->captured = std::move(captured);
  return Boxed(Kind::kClosure, std::shared_ptr<const Closure>(std::move(c)));
}

const std::string& Value::as_string() const { return Unbox<std::string>(); }
const std::vector<int64_t>& Value::as_shape() const { return Unbox<std::vector<int64_t>>(); }
const runtime::Tensor& Value::as_tensor() const { return Unbox<runtime::Tensor>(); }
std::shared_ptr<const Storage> Value::as_storage() const { return std::static_pointer_cast<const Storage>(obj_); }
const std::vector<Value>& Value::as_tuple() const { return Unbox<std::vector<Value>>(); }
const Closure& Value::as_closure() const { return Unbox<Closure>(); }

const char* Value::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNone: return "None";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kBool: return "bool";
    case Kind::kDataType: return "DataType";
    case Kind::kString: return "str";
    case Kind::kShape: return "Shape";
    case Kind::kTensor: return "Tensor";
    case Kind::kStorage: return "Storage";
    case Kind::kTuple: return "Tuple";
    case Kind::kClosure: return "Closure";
    case Kind::kVMContext: return "VMContext";
  }
  return "?";
}

std::string Value::DebugString() const {
  switch (kind_) {
    case Kind::kInt: return absl::StrCat(pod_.i);
    case Kind::kFloat: return absl::StrCat(pod_.f);
    case Kind::kBool: return pod_.i ? "True" : "False";
    case Kind::kDataType: return runtime::DTypeString(pod_.dt);
    case Kind::kString: return absl::StrCat("\"", as_string(), "\"");
    case Kind::kShape: return absl::StrCat("(", absl::StrJoin(as_shape(), ", "), as_shape().size() == 1 ? ",)" : ")");
    case Kind::kTensor: {
      const runtime::Tensor& t = as_tensor();
      return absl::StrCat("R.Tensor((", absl::StrJoin(t.shape(), ", "), t.ndim() == 1 ? ",)" : ")", ", \"",
                          runtime::DTypeString(t.dtype()), "\")");
    }
    case Kind::kStorage: return absl::StrCat("Storage(", as_storage()->nbytes(), " bytes)");
    case Kind::kTuple: {
      std::vector<std::string> parts;
      for (const Value& v : as_tuple()) parts.push_back(v.DebugString());
      return absl::StrCat("(", absl::StrJoin(parts, ", "), parts.size() == 1 ? ",)" : ")");
    }
    case Kind::kClosure: return absl::StrCat("Closure(f[", as_closure().func_index, "])");
    default: return KindName(kind_);
  }
}

void FlattenTuples(const Value& v, std::vector<Value>* out) {
  if (!v.is_tuple()) {
    out->push_back(v);
    return;
  }
  for (const Value& f : v.as_tuple()) FlattenTuples(f, out);
}

}  // namespace kiln::vm
