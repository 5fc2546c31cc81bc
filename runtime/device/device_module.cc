#include "runtime/device/device_module.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::runtime {
namespace {

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutStr(std::string* out, absl::string_view s) {
  PutU64(out, s.size());
  out->append(s.data(), s.size());
}

// Reads the layout of device_module.h, never past the end; every count is checked against the
// bytes left before anything is allocated for it.
class Reader {
 public:
  explicit Reader(absl::string_view in) : in_(in) {}
  absl::Status status() const { return status_; }
  size_t left() const { return in_.size() - pos_; }

  uint64_t U64() {
    if (!Need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  std::string Str() {
    uint64_t n = U64();
    if (!Need(n)) return "";
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A count of elements at least `min_bytes` each.
  uint64_t Count(size_t min_bytes) {
    uint64_t n = U64();
    if (status_.ok() && n > left() / min_bytes) Fail(absl::StrCat("count ", n, " exceeds the bytes left"));
    return status_.ok() ? n : 0;
  }
  void Fail(const std::string& what) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("device blob: ", what, " at offset ", pos_));
  }

 private:
  bool Need(uint64_t n) {
    if (!status_.ok()) return false;
    if (n > left()) {
      Fail(absl::StrCat("truncated (needs ", n, " bytes, ", left(), " left)"));
      return false;
    }
    return true;
  }
  absl::string_view in_;
  size_t pos_ = 0;
  absl::Status status_;
};

constexpr absl::string_view kDynamicSharedTag = "tir.use_dyn_shared_memory";

bool IsLaunchTag(absl::string_view tag) {
  return tag == "blockIdx.x" || tag == "blockIdx.y" || tag == "blockIdx.z" || tag == "threadIdx.x" ||
         tag == "threadIdx.y" || tag == "threadIdx.z" || tag == kDynamicSharedTag;
}

bool IsHandle(DLDataType t) { return t.code == kDLOpaqueHandle; }

}  // namespace

std::string DeviceBlob::Serialize() const {
  std::string out;
  PutU64(&out, kDeviceBlobMagic);
  PutStr(&out, format);
  PutStr(&out, code);
  PutU64(&out, kernels.size());
  for (const DeviceKernelInfo& k : kernels) {
    PutStr(&out, k.name);
    PutU64(&out, k.params.size());
    for (DLDataType t : k.params) {
      out.push_back(static_cast<char>(t.code));
      out.push_back(static_cast<char>(t.bits));
      out.push_back(static_cast<char>(t.lanes & 0xff));
      out.push_back(static_cast<char>(t.lanes >> 8));
    }
    PutU64(&out, k.launch_params.size());
    for (const std::string& tag : k.launch_params) PutStr(&out, tag);
  }
  return out;
}

absl::StatusOr<DeviceBlob> DeviceBlob::Deserialize(absl::string_view bytes) {
  Reader r(bytes);
  if (r.U64() != kDeviceBlobMagic) {
    r.Fail("bad magic");
    return r.status();
  }
  DeviceBlob blob;
  blob.format = r.Str();
  blob.code = r.Str();
  uint64_t n = r.Count(8 * 3);
  for (uint64_t i = 0; i < n && r.status().ok(); ++i) {
    DeviceKernelInfo k;
    k.name = r.Str();
    uint64_t np = r.Count(4);
    for (uint64_t j = 0; j < np && r.status().ok(); ++j) {
      DLDataType t;
      t.code = r.U8();
      t.bits = r.U8();
      t.lanes = r.U16();
      k.params.push_back(t);
    }
    uint64_t nl = r.Count(8);
    for (uint64_t j = 0; j < nl && r.status().ok(); ++j) {
      k.launch_params.push_back(r.Str());
      if (r.status().ok() && !IsLaunchTag(k.launch_params.back())) {
        r.Fail(absl::StrCat("kernel ", k.name, ": unknown launch param \"", k.launch_params.back(), "\""));
      }
    }
    blob.kernels.push_back(std::move(k));
  }
  if (r.status().ok() && r.left() != 0) r.Fail("trailing bytes");
  if (!r.status().ok()) return r.status();
  return blob;
}

absl::StatusOr<DLDeviceType> DeviceTypeOfFormat(absl::string_view format) {
  if (format == "opencl") return kDLOpenCL;
  if (format == "spirv") return kDLVulkan;
  if (format == "ptx" || format == "cubin") return kDLCUDA;
  if (format == "hsaco") return kDLROCM;
  return absl::InvalidArgumentError(absl::StrCat("unknown device blob format \"", format, "\""));
}

const DeviceKernelInfo* DeviceModule::FindKernel(absl::string_view name) const {
  for (const DeviceKernelInfo& k : kernels_) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

absl::Status DeviceModule::Launch(absl::string_view name, const KilnAny* args, int32_t num_args) const {
  const DeviceKernelInfo* k = FindKernel(name);
  if (k == nullptr) return absl::NotFoundError(absl::StrCat("no device kernel named ", name));
  size_t expected = k->params.size() + k->launch_params.size();
  if (num_args < 0 || static_cast<size_t>(num_args) != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch of ", name, " with ", num_args, " values, expected ", expected, " (",
                     k->params.size(), " params and ", k->launch_params.size(), " launch extents)"));
  }
  for (size_t i = 0; i < k->params.size(); ++i) {
    int32_t ti = args[i].type_index;
    bool ok = IsHandle(k->params[i]) ? (ti == kKilnOpaquePtr || ti == kKilnNone)
              : k->params[i].code == kDLFloat ? (ti == kKilnFloat || ti == kKilnInt)
                                              : (ti == kKilnInt || ti == kKilnBool);
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("launch of ", name, ": argument #", i, " has type index ", ti,
                                                     ", which does not fit the kernel's parameter"));
    }
  }
  LaunchDims dims;
  for (size_t j = 0; j < k->launch_params.size(); ++j) {
    const KilnAny& a = args[k->params.size() + j];
    const std::string& tag = k->launch_params[j];
    if (a.type_index != kKilnInt || a.v_int64 < 0) {
      return absl::InvalidArgumentError(absl::StrCat("launch of ", name, ": ", tag, " extent must be a non-negative int"));
    }
    if (tag == kDynamicSharedTag) {
      if (a.v_int64 != 0 && !GivesDynamicSharedMemory()) {
        return absl::UnimplementedError(absl::StrCat(
            "launch of ", name, " asks for dynamic shared memory, which this device's runtime does not give"));
      }
      dims.dynamic_shared_bytes = a.v_int64;
      continue;
    }
    int dim = tag.back() - 'x';
    (tag.rfind("blockIdx.", 0) == 0 ? dims.grid : dims.block)[dim] = a.v_int64;
  }
  for (int d = 0; d < 3; ++d) {
    if (dims.grid[d] == 0 || dims.block[d] == 0) return absl::OkStatus();  // nothing to run
  }
  return LaunchKernel(*k, absl::MakeConstSpan(args, k->params.size()), dims);
}

}  // namespace kiln::runtime
