#include "runtime/tensor.h"

#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/device/device_api.h"

namespace kiln::runtime {

std::string DTypeString(DLDataType dtype) {
  std::string base;
  switch (dtype.code) {
    case kDLInt: base = absl::StrCat("int", dtype.bits); break;
    case kDLUInt: base = dtype.bits == 1 ? "bool" : absl::StrCat("uint", dtype.bits); break;
    case kDLFloat: base = absl::StrCat("float", dtype.bits); break;
    case kDLBfloat: base = absl::StrCat("bfloat", dtype.bits); break;
    case kDLOpaqueHandle: base = "handle"; break;
    case kDLBoolCode: base = "bool"; break;
    default:
      return absl::StrCat("dtype(code=", dtype.code, ", bits=", dtype.bits, ", lanes=", dtype.lanes, ")");
  }
  return dtype.lanes == 1 ? base : absl::StrCat(base, "x", dtype.lanes);
}

absl::StatusOr<DLDataType> ParseDType(absl::string_view text) {
  absl::string_view s = text;
  int lanes = 1;
  if (size_t x = s.rfind('x'); x != absl::string_view::npos && x > 0) {
    if (!absl::SimpleAtoi(s.substr(x + 1), &lanes) || lanes < 1 || lanes > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("bad dtype \"", text, "\""));
    }
    s = s.substr(0, x);
  }
  DLDataType t{kDLInt, 0, static_cast<uint16_t>(lanes)};
  absl::string_view bits;
  if (s == "bool") return DLDataType{kDLBoolCode, 8, static_cast<uint16_t>(lanes)};
  if (absl::StartsWith(s, "uint")) {
    t.code = kDLUInt, bits = s.substr(4);
  } else if (absl::StartsWith(s, "int")) {
    t.code = kDLInt, bits = s.substr(3);
  } else if (absl::StartsWith(s, "float")) {
    t.code = kDLFloat, bits = s.substr(5);
  } else if (absl::StartsWith(s, "bfloat")) {
    t.code = kDLBfloat, bits = s.substr(6);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("bad dtype \"", text, "\""));
  }
  int b = 0;
  if (!absl::SimpleAtoi(bits, &b) || b < 1 || b > 64) {
    return absl::InvalidArgumentError(absl::StrCat("bad dtype \"", text, "\""));
  }
  t.bits = static_cast<uint8_t>(b);
  return t;
}

int64_t DTypeBytes(DLDataType dtype) {
  if (dtype.code == kDLBoolCode || (dtype.code == kDLUInt && dtype.bits == 1)) return dtype.lanes;
  return (static_cast<int64_t>(dtype.bits) * dtype.lanes + 7) / 8;
}

bool DTypeEqual(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

namespace {

// Releases the memory behind one or more tensors: either an allocation of ours or an imported
// DLManagedTensor, whose deleter then runs exactly once.
struct Storage {
  DeviceAPI* api = nullptr;
  void* alloc = nullptr;
  DLManagedTensor* managed = nullptr;
  ~Storage() {
    if (managed != nullptr) {
      if (managed->deleter != nullptr) managed->deleter(managed);
    } else if (alloc != nullptr) {
      api->FreeDataSpace(alloc);
    }
  }
};

// Product of `shape`, or -1 on overflow (dims are known to be non-negative).
int64_t CheckedNumel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

std::vector<int64_t> CompactStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

// The lowest and highest element offsets (relative to element 0) that an index reaches. False on
// overflow. Only meaningful for non-empty shapes.
bool Span(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach)) return false;
    if (__builtin_add_overflow(reach < 0 ? *lo : *hi, reach, reach < 0 ? lo : hi)) return false;
  }
  return true;
}

std::string DimsString(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(&s, i ? ", " : "", v[i]);
  return absl::StrCat(s, v.size() == 1 ? ",)" : ")");
}

}  // namespace

struct Tensor::Container {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> shape, strides;
  // Points into shape/strides above; mutable because kernels take a non-const DLTensor* (they
  // write through data, never the metadata).
  mutable DLTensor dl{};

  Container(std::shared_ptr<Storage> s, std::vector<int64_t> shp, std::vector<int64_t> str, const DLTensor& base)
      : storage(std::move(s)), shape(std::move(shp)), strides(std::move(str)), dl(base) {
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.shape = shape.empty() ? nullptr : shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
  }
};

absl::StatusOr<Tensor> Tensor::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in shape ", DimsString(shape)));
  }
  if (dtype.lanes == 0 || dtype.bits == 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot allocate a tensor of ", DTypeString(dtype)));
  }
  int64_t numel = CheckedNumel(shape), nbytes = 0;
  if (numel < 0 || __builtin_mul_overflow(numel, DTypeBytes(dtype), &nbytes)) {
    return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", DimsString(shape), " is too large"));
  }
  absl::StatusOr<DeviceAPI*> api = GetDeviceAPI(device);
  if (!api.ok()) return api.status();
  absl::StatusOr<void*> mem = (*api)->AllocDataSpace(static_cast<size_t>(nbytes), kAllocAlignment);
  if (!mem.ok()) return mem.status();
  auto storage = std::make_shared<Storage>();
  storage->api = *api;
  storage->alloc = *mem;
  if (device.device_type == kDLCPU) {
    std::memset(*mem, 0, static_cast<size_t>(nbytes));
  } else if (absl::Status st = (*api)->Zero(*mem, 0, static_cast<size_t>(nbytes)); !st.ok()) {
    return st;  // the storage frees the allocation
  }
  DLTensor dl{};
  dl.data = *mem;
  dl.device = device;
  dl.dtype = dtype;
  return Tensor(std::make_shared<const Container>(std::move(storage), shape, CompactStrides(shape), dl));
}

absl::StatusOr<Tensor> Tensor::FromDLPack(DLManagedTensor* managed) {
  if (managed == nullptr) return absl::InvalidArgumentError("FromDLPack: null DLManagedTensor");
  auto storage = std::make_shared<Storage>();
  storage->managed = managed;  // from here on the deleter runs however we leave
  const DLTensor& in = managed->dl_tensor;
  if (in.ndim < 0 || (in.ndim > 0 && in.shape == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("FromDLPack: malformed tensor (ndim ", in.ndim, ")"));
  }
  if (in.dtype.lanes == 0 || in.dtype.bits == 0) {
    return absl::InvalidArgumentError(absl::StrCat("FromDLPack: bad dtype ", DTypeString(in.dtype)));
  }
  std::vector<int64_t> shape(in.shape, in.shape + in.ndim);
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("FromDLPack: negative dimension in ", DimsString(shape)));
  }
  std::vector<int64_t> strides = in.strides != nullptr ? std::vector<int64_t>(in.strides, in.strides + in.ndim)
                                                       : CompactStrides(shape);
  return Tensor(std::make_shared<const Container>(std::move(storage), std::move(shape), std::move(strides), in));
}

DLManagedTensor* Tensor::ToDLPack() const {
  auto* out = new DLManagedTensor{};
  out->dl_tensor = c_->dl;  // shape/strides point into the container the context keeps alive
  out->manager_ctx = new std::shared_ptr<const Container>(c_);
  out->deleter = [](DLManagedTensor* self) {
    delete static_cast<std::shared_ptr<const Container>*>(self->manager_ctx);
    delete self;
  };
  return out;
}

DLTensor* Tensor::dl() const { return &c_->dl; }
int Tensor::ndim() const { return c_->dl.ndim; }
const std::vector<int64_t>& Tensor::shape() const { return c_->shape; }
const std::vector<int64_t>& Tensor::strides() const { return c_->strides; }
DLDataType Tensor::dtype() const { return c_->dl.dtype; }
DLDevice Tensor::device() const { return c_->dl.device; }
int64_t Tensor::byte_offset() const { return static_cast<int64_t>(c_->dl.byte_offset); }
int64_t Tensor::numel() const { return CheckedNumel(c_->shape); }
void* Tensor::data() const { return static_cast<char*>(c_->dl.data) + c_->dl.byte_offset; }

bool Tensor::IsCompact() const {
  int64_t expect = 1;
  for (size_t i = c_->shape.size(); i-- > 0;) {
    if (c_->shape[i] != 1 && c_->strides[i] != expect) return numel() == 0;
    expect *= c_->shape[i];
  }
  return true;
}

absl::StatusOr<Tensor> Tensor::View(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                    int64_t elem_offset) const {
  for (int64_t d : shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("view: negative dimension in ", DimsString(shape)));
  }
  std::vector<int64_t> st = strides.empty() ? CompactStrides(shape) : strides;
  if (st.size() != shape.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("view: shape ", DimsString(shape), " and strides ", DimsString(st), " differ in rank"));
  }
  int64_t elem_bytes = DTypeBytes(dtype());
  int64_t vnumel = CheckedNumel(shape);
  if (vnumel < 0) return absl::InvalidArgumentError(absl::StrCat("view: shape ", DimsString(shape), " is too large"));
  if (vnumel > 0) {
    int64_t lo = 0, hi = 0, vlo = 0, vhi = 0;
    bool ok = numel() > 0 && Span(c_->shape, c_->strides, &lo, &hi) && Span(shape, st, &vlo, &vhi) &&
              !__builtin_add_overflow(vlo, elem_offset, &vlo) && !__builtin_add_overflow(vhi, elem_offset, &vhi);
    if (!ok || vlo < lo || vhi > hi) {
      return absl::OutOfRangeError(absl::StrCat("view of shape ", DimsString(shape), ", strides ", DimsString(st),
                                                " at element offset ", elem_offset, " reaches outside a tensor of shape ",
                                                DimsString(c_->shape), " and strides ", DimsString(c_->strides)));
    }
  }
  DLTensor dl = c_->dl;
  dl.byte_offset = c_->dl.byte_offset + static_cast<uint64_t>(elem_offset * elem_bytes);
  return Tensor(std::make_shared<const Container>(c_->storage, shape, std::move(st), dl));
}

absl::Status Tensor::CopyFrom(const Tensor& src) const {
  if (device().device_type != kDLCPU || src.device().device_type != kDLCPU) {
    return absl::UnimplementedError("tensor copies are implemented for CPU tensors only");
  }
  if (!DTypeEqual(dtype(), src.dtype()) || shape() != src.shape()) {
    return absl::InvalidArgumentError(absl::StrCat("copy from ", DTypeString(src.dtype()), DimsString(src.shape()),
                                                   " into ", DTypeString(dtype()), DimsString(shape())));
  }
  int64_t n = numel();
  if (n == 0) return absl::OkStatus();
  const int64_t elem = DTypeBytes(dtype());
  if (IsCompact() && src.IsCompact()) {
    std::memmove(data(), src.data(), static_cast<size_t>(n * elem));
    return absl::OkStatus();
  }
  // Odometer over every index; each step moves both pointers by the dimension's stride.
  const int nd = ndim();
  std::vector<int64_t> index(nd, 0);
  char* d = static_cast<char*>(data());
  const char* s = static_cast<const char*>(src.data());
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(d, s, static_cast<size_t>(elem));
    for (int dim = nd - 1; dim >= 0; --dim) {
      if (++index[dim] < shape()[dim]) {
        d += strides()[dim] * elem;
        s += src.strides()[dim] * elem;
        break;
      }
      d -= (shape()[dim] - 1) * strides()[dim] * elem;
      s -= (shape()[dim] - 1) * src.strides()[dim] * elem;
      index[dim] = 0;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Tensor::CopyTo(DLDevice device) const {
  if (!IsCompact()) {
    return absl::InvalidArgumentError("CopyTo: the source tensor is not compact (make it Contiguous first)");
  }
  DLDevice from = c_->dl.device;
  absl::StatusOr<DeviceAPI*> src_api = GetDeviceAPI(from);
  if (!src_api.ok()) return src_api.status();
  absl::StatusOr<Tensor> out = Empty(shape(), dtype(), device);
  if (!out.ok()) return out.status();
  absl::StatusOr<DeviceAPI*> dst_api = GetDeviceAPI(device);
  if (!dst_api.ok()) return dst_api.status();
  size_t n = static_cast<size_t>(nbytes());
  size_t src_off = static_cast<size_t>(byte_offset()), dst_off = static_cast<size_t>(out->byte_offset());
  void* src = c_->dl.data;
  void* dst = out->dl()->data;
  if (n == 0) return out;
  if (from.device_type == kDLCPU) {
    absl::Status st = (*dst_api)->CopyFromHost(dst, dst_off, static_cast<char*>(src) + src_off, n);
    if (!st.ok()) return st;
  } else if (device.device_type == kDLCPU) {
    absl::Status st = (*src_api)->CopyToHost(static_cast<char*>(dst) + dst_off, src, src_off, n);
    if (!st.ok()) return st;
  } else if (*src_api == *dst_api) {
    absl::Status st = (*dst_api)->CopyWithinDevice(dst, dst_off, src, src_off, n);
    if (!st.ok()) return st;
  } else {
    // Two different devices: stage through host memory.
    std::string staging(n, '\0');
    absl::Status st = (*src_api)->CopyToHost(staging.data(), src, src_off, n);
    if (st.ok()) st = (*dst_api)->CopyFromHost(dst, dst_off, staging.data(), n);
    if (!st.ok()) return st;
  }
  return out;
}

absl::StatusOr<Tensor> Tensor::Contiguous() const {
  if (IsCompact()) return *this;
  absl::StatusOr<Tensor> out = Empty(shape(), dtype(), device());
  if (!out.ok()) return out.status();
  absl::Status st = out->CopyFrom(*this);
  if (!st.ok()) return st;
  return out;
}

}  // namespace kiln::runtime
