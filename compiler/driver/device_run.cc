#include "compiler/driver/device_run.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace kiln::driver {

using namespace ir;  // NOLINT

absl::StatusOr<std::unique_ptr<DeviceRunner>> DeviceRunner::Create(const IRModule& module, const std::string& target) {
  std::unique_ptr<DeviceRunner> r(new DeviceRunner());
  r->target_ = target.substr(0, target.find(' '));
  absl::StatusOr<DeviceLowered> lowered = LowerForDevice(module, target);
  if (!lowered.ok()) return lowered.status();
  r->lowered_ = *std::move(lowered);
  absl::StatusOr<DLDeviceType> type = DeviceTypeOfTarget(target);
  if (!type.ok()) return type.status();
  absl::StatusOr<runtime::DeviceRuntime*> rt = runtime::GetDeviceRuntime(*type);
  if (!rt.ok()) return rt.status();
  r->runtime_ = *rt;
  if (!r->lowered_.blob.kernels.empty()) {
    absl::StatusOr<std::unique_ptr<runtime::DeviceModule>> m = r->runtime_->Load(r->lowered_.blob);
    if (!m.ok()) return m.status();
    r->module_ = *std::move(m);
  }
  return r;
}

namespace {

// Device copies of the tensor arguments, released when the call ends.
class DeviceCopies {
 public:
  explicit DeviceCopies(runtime::DeviceAPI* api) : api_(api) {}
  ~DeviceCopies() {
    for (const Copy& c : copies_) api_->FreeDataSpace(c.dev);
  }
  struct Copy {
    const runtime::Tensor* tensor;
    void* dev;
  };
  std::vector<Copy> copies_;
  std::unordered_map<const void*, void*> by_host_pointer_;

 private:
  runtime::DeviceAPI* api_;
};

}  // namespace

absl::StatusOr<KilnAny> DeviceRunner::Call(const std::string& entry, const std::vector<KilnAny>& packed,
                                           const std::vector<runtime::Tensor>& tensors,
                                           const tir::InterpOptions& interp) const {
  runtime::DeviceAPI* api = runtime_->api();
  DeviceCopies copies(api);
  for (size_t i = 0; i < packed.size() && i < tensors.size(); ++i) {
    if (packed[i].type_index != kKilnDLTensorPtr) continue;
    const runtime::Tensor& tensor = tensors[i];
    if (copies.by_host_pointer_.count(tensor.data())) continue;
    if (!tensor.IsCompact() || tensor.byte_offset() != 0 || tensor.device().device_type != kDLCPU) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, ": the ", target_, " target takes compact CPU tensors without a byte offset"));
    }
    size_t bytes = static_cast<size_t>(tensor.nbytes());
    absl::StatusOr<void*> dev = api->AllocDataSpace(bytes, runtime::kAllocAlignment);
    if (!dev.ok()) return dev.status();
    copies.copies_.push_back({&tensor, *dev});
    copies.by_host_pointer_[tensor.data()] = *dev;
    absl::Status st = api->CopyFromHost(*dev, 0, tensor.data(), bytes);
    if (!st.ok()) return st;
  }
  tir::InterpOptions options = interp;
  options.call_packed = [&](const std::string& name, const std::vector<KilnAny>& args) -> absl::Status {
    const runtime::DeviceKernelInfo* k = module_ != nullptr ? module_->FindKernel(name) : nullptr;
    if (k == nullptr) return absl::NotFoundError(absl::StrCat("no ", target_, " kernel named ", name));
    std::vector<KilnAny> device_args = args;
    for (size_t i = 0; i < k->params.size() && i < args.size(); ++i) {
      if (k->params[i].code != kDLOpaqueHandle) continue;
      auto it = copies.by_host_pointer_.find(args[i].v_ptr);
      if (it == copies.by_host_pointer_.end()) {
        return absl::UnimplementedError(absl::StrCat("argument #", i, " of ", name,
                                                     " is not the data of a tensor argument (host-side "
                                                     "allocations are not supported on ", target_, " yet)"));
      }
      device_args[i].v_ptr = it->second;
    }
    return module_->Launch(name, device_args.data(), static_cast<int32_t>(device_args.size()));
  };
  KilnAny result{};
  result.type_index = kKilnNone;
  absl::Status st = tir::Interpret(lowered_.host, entry, packed.data(), static_cast<int32_t>(packed.size()), &result,
                                   options);
  absl::Status sync = api->Synchronize();
  if (st.ok()) st = sync;
  for (size_t i = 0; st.ok() && i < copies.copies_.size(); ++i) {
    const DeviceCopies::Copy& c = copies.copies_[i];
    st = api->CopyToHost(c.tensor->data(), c.dev, 0, static_cast<size_t>(c.tensor->nbytes()));
  }
  if (!st.ok()) return st;
  return result;
}

}  // namespace kiln::driver
