#include "runtime/agent/tensor_wire.h"

#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/device/device_api.h"

namespace kiln::agent {
namespace {

// The largest tensor the agent accepts (2^46 bytes): sizes stay far from int64 overflow.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 46;

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&s, i ? ", " : "", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// What a MemoryBudget tensor's DLManagedTensor owns: its shape and the counters to credit.
struct BudgetTensor {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  runtime::DeviceAPI* api = nullptr;
  int64_t nbytes = 0;
  std::shared_ptr<MemoryCounter> session;
  std::shared_ptr<MemoryCounter> agent;
};

void ReleaseBudgetTensor(DLManagedTensor* self) {
  auto* t = static_cast<BudgetTensor*>(self->manager_ctx);
  t->api->FreeDataSpace(t->managed.dl_tensor.data);
  t->session->bytes -= t->nbytes;
  if (t->agent) t->agent->bytes -= t->nbytes;
  delete t;
}

}  // namespace

MemoryBudget::MemoryBudget(uint64_t limit, std::shared_ptr<MemoryCounter> agent)
    : limit_(limit), session_(std::make_shared<MemoryCounter>()), agent_(std::move(agent)) {}

absl::StatusOr<int64_t> TensorBytes(const std::vector<int64_t>& shape, DLDataType dtype) {
  absl::StatusOr<DLDataType> parsed = runtime::ParseDType(runtime::DTypeString(dtype));
  if (dtype.lanes == 0 || !parsed.ok() || !runtime::DTypeEqual(*parsed, dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported dtype (code ", dtype.code, ", bits ", dtype.bits, ", lanes ", dtype.lanes, ")"));
  }
  int64_t bytes = runtime::DTypeBytes(dtype);
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in shape ", ShapeString(shape)));
    if (d != 0 && bytes > kMaxTensorBytes / d) {
      return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", ShapeString(shape), " and dtype ",
                                                     runtime::DTypeString(dtype), " is too large"));
    }
    bytes *= d;
  }
  return bytes;
}

absl::StatusOr<runtime::Tensor> MemoryBudget::Allocate(const std::vector<int64_t>& shape, DLDataType dtype,
                                                       DLDevice device) {
  absl::StatusOr<int64_t> nbytes = TensorBytes(shape, dtype);
  if (!nbytes.ok()) return nbytes.status();
  absl::StatusOr<runtime::DeviceAPI*> api = runtime::GetDeviceAPI(device);
  if (!api.ok()) return api.status();
  // Reserve first, so that concurrent requests of one session cannot both pass the check.
  int64_t before = session_->bytes.fetch_add(*nbytes);
  if (limit_ != 0 && static_cast<uint64_t>(before + *nbytes) > limit_) {
    session_->bytes -= *nbytes;
    return absl::ResourceExhaustedError(
        absl::StrCat("a tensor of ", *nbytes, " bytes (", ShapeString(shape), " ", runtime::DTypeString(dtype),
                     ") exceeds the session's memory limit of ", limit_, " bytes (", before, " in use)"));
  }
  absl::StatusOr<void*> data = (*api)->AllocDataSpace(static_cast<size_t>(*nbytes), runtime::kAllocAlignment);
  if (!data.ok()) {
    session_->bytes -= *nbytes;
    return data.status();
  }
  if (agent_) agent_->bytes += *nbytes;
  auto* t = new BudgetTensor;
  t->shape = shape;
  t->api = *api;
  t->nbytes = *nbytes;
  t->session = session_;
  t->agent = agent_;
  DLTensor& dl = t->managed.dl_tensor;
  dl.data = *data;
  dl.device = device;
  dl.ndim = static_cast<int32_t>(shape.size());
  dl.dtype = dtype;
  dl.shape = t->shape.data();
  dl.strides = nullptr;  // compact
  dl.byte_offset = 0;
  t->managed.manager_ctx = t;
  t->managed.deleter = ReleaseBudgetTensor;
  return runtime::Tensor::FromDLPack(&t->managed);
}

ValueDecoder::ValueDecoder(MemoryBudget* budget, DLDevice device, bool allow_streamed)
    : budget_(budget), device_(device), allow_streamed_(allow_streamed) {}

absl::StatusOr<runtime::Tensor> ValueDecoder::DecodeTensor(const kiln::v1::Tensor& t) {
  const kiln::v1::DataType& pd = t.dtype();
  if (pd.code() > 255 || pd.bits() > 255 || pd.lanes() > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported dtype (code ", pd.code(), ", bits ", pd.bits(), ", lanes ", pd.lanes(), ")"));
  }
  DLDataType dtype{static_cast<uint8_t>(pd.code()), static_cast<uint8_t>(pd.bits()), static_cast<uint16_t>(pd.lanes())};
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  absl::StatusOr<int64_t> nbytes = TensorBytes(shape, dtype);
  if (!nbytes.ok()) return nbytes.status();
  if (t.streamed()) {
    if (!allow_streamed_)
      return absl::InvalidArgumentError("this call takes tensors inline only (no streamed tensors)");
    if (!t.data().empty()) return absl::InvalidArgumentError("a streamed tensor carries no inline data");
  } else if (static_cast<int64_t>(t.data().size()) != *nbytes) {
    return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", ShapeString(shape), " and dtype ",
                                                   runtime::DTypeString(dtype), " needs ", *nbytes,
                                                   " bytes of data, got ", t.data().size()));
  }
  absl::StatusOr<runtime::Tensor> tensor = budget_->Allocate(shape, dtype, device_);
  if (!tensor.ok()) return tensor.status();
  if (t.streamed()) {
    streamed_.push_back({*tensor, static_cast<uint64_t>(*nbytes), 0});
  } else if (*nbytes > 0) {
    std::memcpy(tensor->data(), t.data().data(), t.data().size());
  }
  return tensor;
}

absl::StatusOr<vm::Value> ValueDecoder::Decode(const kiln::v1::Value& v) {
  switch (v.kind_case()) {
    case kiln::v1::Value::KIND_NOT_SET:
      return vm::Value();
    case kiln::v1::Value::kTensor: {
      absl::StatusOr<runtime::Tensor> t = DecodeTensor(v.tensor());
      if (!t.ok()) return t.status();
      return vm::Value::Tensor(*std::move(t));
    }
    case kiln::v1::Value::kIntValue:
      return vm::Value::Int(v.int_value());
    case kiln::v1::Value::kFloatValue:
      return vm::Value::Float(v.float_value());
    case kiln::v1::Value::kBoolValue:
      return vm::Value::Bool(v.bool_value());
    case kiln::v1::Value::kStringValue:
      return vm::Value::String(v.string_value());
    case kiln::v1::Value::kShape:
      return vm::Value::Shape(std::vector<int64_t>(v.shape().dims().begin(), v.shape().dims().end()));
    case kiln::v1::Value::kTuple: {
      std::vector<vm::Value> fields;
      for (const kiln::v1::Value& f : v.tuple().fields()) {
        absl::StatusOr<vm::Value> d = Decode(f);
        if (!d.ok()) return d.status();
        fields.push_back(*std::move(d));
      }
      return vm::Value::Tuple(std::move(fields));
    }
    case kiln::v1::Value::kDtype: {
      const kiln::v1::DataType& pd = v.dtype();
      DLDataType dt{static_cast<uint8_t>(pd.code()), static_cast<uint8_t>(pd.bits()),
                    static_cast<uint16_t>(pd.lanes())};
      absl::StatusOr<int64_t> ok = TensorBytes({}, dt);
      if (!ok.ok() || pd.code() > 255 || pd.bits() > 255 || pd.lanes() > 65535) {
        return absl::InvalidArgumentError(absl::StrCat("unsupported dtype value (code ", pd.code(), ", bits ",
                                                       pd.bits(), ", lanes ", pd.lanes(), ")"));
      }
      return vm::Value::DataType(dt);
    }
  }
  return absl::InvalidArgumentError("unknown value kind");
}

absl::Status ValueDecoder::AddChunk(const kiln::v1::TensorChunk& chunk) {
  if (chunk.tensor() >= streamed_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk for streamed tensor ", chunk.tensor(), ", but the header has ", streamed_.size()));
  }
  Pending& p = streamed_[chunk.tensor()];
  if (chunk.offset() != p.received) {
    return absl::InvalidArgumentError(absl::StrCat("chunk of streamed tensor ", chunk.tensor(), " at offset ",
                                                   chunk.offset(), ", expected ", p.received));
  }
  if (chunk.data().size() > p.size - p.received) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk of streamed tensor ", chunk.tensor(), " runs past its ", p.size, " bytes"));
  }
  std::memcpy(static_cast<char*>(p.tensor.data()) + p.received, chunk.data().data(), chunk.data().size());
  p.received += chunk.data().size();
  return absl::OkStatus();
}

absl::Status ValueDecoder::CheckComplete() const {
  for (size_t i = 0; i < streamed_.size(); ++i) {
    if (streamed_[i].received != streamed_[i].size) {
      return absl::FailedPreconditionError(absl::StrCat("streamed tensor ", i, " ended after ", streamed_[i].received,
                                                        " of its ", streamed_[i].size, " bytes"));
    }
  }
  return absl::OkStatus();
}

kiln::v1::DataType ToProto(DLDataType dtype) {
  kiln::v1::DataType out;
  out.set_code(dtype.code);
  out.set_bits(dtype.bits);
  out.set_lanes(dtype.lanes);
  return out;
}

absl::Status EncodeValue(const vm::Value& v, kiln::v1::Value* out, std::vector<runtime::Tensor>* streamed) {
  switch (v.kind()) {
    case vm::Value::Kind::kNone:
      out->Clear();
      return absl::OkStatus();
    case vm::Value::Kind::kInt:
      out->set_int_value(v.as_int());
      return absl::OkStatus();
    case vm::Value::Kind::kFloat:
      out->set_float_value(v.as_float());
      return absl::OkStatus();
    case vm::Value::Kind::kBool:
      out->set_bool_value(v.as_bool());
      return absl::OkStatus();
    case vm::Value::Kind::kDataType:
      *out->mutable_dtype() = ToProto(v.as_dtype());
      return absl::OkStatus();
    case vm::Value::Kind::kString:
      out->set_string_value(v.as_string());
      return absl::OkStatus();
    case vm::Value::Kind::kShape:
      for (int64_t d : v.as_shape()) out->mutable_shape()->add_dims(d);
      out->mutable_shape();  // an empty shape is still a shape
      return absl::OkStatus();
    case vm::Value::Kind::kTensor: {
      absl::StatusOr<runtime::Tensor> t = v.as_tensor().Contiguous();
      if (!t.ok()) return t.status();
      kiln::v1::Tensor* pt = out->mutable_tensor();
      *pt->mutable_dtype() = ToProto(t->dtype());
      for (int64_t d : t->shape()) pt->add_shape(d);
      if (streamed != nullptr) {
        pt->set_streamed(true);
        streamed->push_back(*std::move(t));
      } else {
        pt->set_data(static_cast<const char*>(t->data()), static_cast<size_t>(t->nbytes()));
      }
      return absl::OkStatus();
    }
    case vm::Value::Kind::kTuple: {
      kiln::v1::Tuple* tuple = out->mutable_tuple();
      for (const vm::Value& f : v.as_tuple()) {
        absl::Status s = EncodeValue(f, tuple->add_fields(), streamed);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    default:
      return absl::UnimplementedError(absl::StrCat("a ", v.kind_name(), " cannot be sent over RPC"));
  }
}

}  // namespace kiln::agent
