#include "compiler/driver/vulkan_run.h"

#include <cstring>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/ir/functor.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::driver {

using namespace ir;  // NOLINT
namespace t = tir::transform;

absl::StatusOr<VulkanLowered> LowerForVulkan(const IRModule& module) {
  VulkanLowered out;
  out.host = IRModule::Make();
  out.host.CopyOnWrite()->attrs = module->attrs;
  std::vector<PrimFunc> kernels;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<PrimFuncNode>();
    if (pf == nullptr) continue;  // Relax functions are not part of this slice
    std::string name = LoweredSymbol(gv->name, pf);
    absl::StatusOr<PrimFunc> f = t::LowerSBlocks(GetRef<PrimFunc>(pf), name);
    if (!f.ok()) return f.status();
    absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), name, "vulkan");
    if (!split.ok()) return split.status();
    out.host.Add(gv, split->host);
    for (const PrimFunc& k : split->kernels) kernels.push_back(t::Simplify(k));
  }
  absl::StatusOr<std::vector<codegen::SPIRVKernel>> spirv = codegen::GenerateSPIRV(kernels);
  if (!spirv.ok()) return spirv.status();
  out.kernels = *std::move(spirv);
  return out;
}

absl::StatusOr<std::vector<uint8_t>> PackPushConstants(const codegen::SPIRVKernel& kernel,
                                                        const std::vector<KilnAny>& args) {
  std::vector<uint8_t> out(kernel.push_constant_bytes);
  for (size_t i = 0; i < kernel.params.size() && i < args.size(); ++i) {
    if (kernel.params[i].is_handle()) continue;
    DataType pt = kernel.push_types[i];
    uint8_t* dst = out.data() + kernel.slots[i];
    const KilnAny& v = args[i];
    auto put = [&](auto x) { std::memcpy(dst, &x, sizeof(x)); };
    if (pt.is_float() && pt.bits() == 32) {
      put(static_cast<float>(v.v_float64));
    } else if (pt.is_float() && pt.bits() == 64) {
      put(v.v_float64);
    } else if ((pt.is_int() || pt.is_uint()) && pt.bits() == 32) {
      put(static_cast<uint32_t>(v.v_int64));
    } else if ((pt.is_int() || pt.is_uint()) && pt.bits() == 64) {
      put(v.v_int64);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("scalar kernel argument of type ", pt.ToString(), " is not supported"));
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<VulkanRunner>> VulkanRunner::Create(const IRModule& module) {
  std::unique_ptr<VulkanRunner> r(new VulkanRunner());
  absl::StatusOr<VulkanLowered> lowered = LowerForVulkan(module);
  if (!lowered.ok()) return lowered.status();
  r->lowered_ = *std::move(lowered);
  absl::StatusOr<std::unique_ptr<runtime::vulkan::VulkanDevice>> dev = runtime::vulkan::VulkanDevice::Open();
  if (!dev.ok()) return dev.status();
  r->device_ = *std::move(dev);
  for (const codegen::SPIRVKernel& k : r->lowered_.kernels) {
    absl::StatusOr<std::unique_ptr<runtime::vulkan::VulkanKernel>> kernel =
        r->device_->CreateKernel({k.name, k.words, k.num_buffers, k.push_constant_bytes});
    if (!kernel.ok()) return kernel.status();
    r->kernels_[k.name] = Kernel{&k, *std::move(kernel)};
  }
  return r;
}

absl::StatusOr<KilnAny> VulkanRunner::Call(const std::string& entry, const std::vector<KilnAny>& packed,
                                           const std::vector<runtime::Tensor>& tensors,
                                           const tir::InterpOptions& interp) const {
  // Every tensor argument gets a device buffer, keyed by the host data pointer the host code
  // passes to its launches.
  std::vector<runtime::vulkan::VulkanBuffer> buffers;
  std::vector<const runtime::Tensor*> copied;
  std::unordered_map<const void*, size_t> by_pointer;
  for (size_t i = 0; i < packed.size() && i < tensors.size(); ++i) {
    if (packed[i].type_index != kKilnDLTensorPtr) continue;
    const runtime::Tensor& tensor = tensors[i];
    if (by_pointer.count(tensor.data())) continue;
    if (!tensor.IsCompact() || tensor.byte_offset() != 0 || tensor.device().device_type != kDLCPU) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, ": the vulkan target takes compact CPU tensors without a byte offset"));
    }
    size_t bytes = static_cast<size_t>(tensor.nbytes());
    absl::StatusOr<runtime::vulkan::VulkanBuffer> buf = device_->Alloc(bytes);
    if (!buf.ok()) return buf.status();
    if (absl::Status st = device_->Write(*buf, tensor.data(), bytes); !st.ok()) return st;
    by_pointer[tensor.data()] = buffers.size();
    buffers.push_back(*std::move(buf));
    copied.push_back(&tensor);
  }
  tir::InterpOptions options = interp;
  options.call_packed = [&](const std::string& name, const std::vector<KilnAny>& args) -> absl::Status {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return absl::NotFoundError(absl::StrCat("no Vulkan kernel named ", name));
    const codegen::SPIRVKernel& k = *it->second.info;
    if (args.size() != k.params.size() + k.launch_tags.size()) {
      return absl::InvalidArgumentError(absl::StrCat("launch of ", name, " with ", args.size(), " values, expected ",
                                                     k.params.size() + k.launch_tags.size()));
    }
    std::vector<const runtime::vulkan::VulkanBuffer*> bound;
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (!k.params[i].is_handle()) continue;
      auto b = by_pointer.find(args[i].v_ptr);
      if (b == by_pointer.end()) {
        return absl::UnimplementedError(absl::StrCat("argument #", i, " of ", name,
                                                     " is not the data of a tensor argument (host-side "
                                                     "allocations are not supported on vulkan yet)"));
      }
      bound.push_back(&buffers[b->second]);
    }
    absl::StatusOr<std::vector<uint8_t>> push = PackPushConstants(k, args);
    if (!push.ok()) return push.status();
    std::array<uint32_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
    for (size_t j = 0; j < k.launch_tags.size(); ++j) {
      int64_t extent = args[k.params.size() + j].v_int64;
      if (extent < 0 || extent > int64_t{UINT32_MAX}) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": ", k.launch_tags[j], " extent ", extent));
      }
      const std::string& tag = k.launch_tags[j];
      int dim = tag.back() - 'x';
      (tag.rfind("blockIdx.", 0) == 0 ? grid : block)[dim] = static_cast<uint32_t>(extent);
    }
    return it->second.kernel->Launch(bound, *push, grid, block);
  };
  KilnAny result{};
  result.type_index = kKilnNone;
  absl::Status st = tir::Interpret(lowered_.host, entry, packed.data(), static_cast<int32_t>(packed.size()), &result,
                                   options);
  for (size_t i = 0; st.ok() && i < buffers.size(); ++i) {
    st = device_->Read(copied[i]->data(), buffers[i], buffers[i].bytes());
  }
  if (!st.ok()) return st;
  return result;
}

}  // namespace kiln::driver
