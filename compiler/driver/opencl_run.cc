#include "compiler/driver/opencl_run.h"

#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "compiler/driver/lowered_form.h"
#include "compiler/tir/functor.h"
#include "compiler/tir/transform/passes.h"

namespace kiln::driver {

using namespace ir;  // NOLINT
namespace t = tir::transform;

absl::StatusOr<OpenCLLowered> LowerForOpenCL(const IRModule& module) {
  OpenCLLowered out;
  out.host = IRModule::Make();
  out.host.CopyOnWrite()->attrs = module->attrs;
  std::vector<PrimFunc> kernels;
  for (const auto& [gv, func] : module.Functions()) {
    const auto* pf = func.as<PrimFuncNode>();
    if (pf == nullptr) continue;  // Relax functions are not part of this slice
    std::string name = LoweredSymbol(gv->name, pf);
    absl::StatusOr<PrimFunc> f = t::LowerSBlocks(GetRef<PrimFunc>(pf), name);
    if (!f.ok()) return f.status();
    absl::StatusOr<t::SplitFunctions> split = t::SplitHostDevice(t::Simplify(t::FlattenBuffer(*f)), name, "opencl");
    if (!split.ok()) return split.status();
    out.host.Add(gv, split->host);
    for (const PrimFunc& k : split->kernels) kernels.push_back(t::Simplify(k));
  }
  absl::StatusOr<codegen::OpenCLProgramSource> device = codegen::GenerateOpenCL(kernels);
  if (!device.ok()) return device.status();
  out.device = *std::move(device);
  return out;
}

absl::StatusOr<std::unique_ptr<OpenCLRunner>> OpenCLRunner::Create(const IRModule& module) {
  std::unique_ptr<OpenCLRunner> r(new OpenCLRunner());
  absl::StatusOr<OpenCLLowered> lowered = LowerForOpenCL(module);
  if (!lowered.ok()) return lowered.status();
  r->lowered_ = *std::move(lowered);
  for (const codegen::OpenCLKernelInfo& k : r->lowered_.device.kernels) r->kernels_[k.name] = k;
  absl::StatusOr<std::unique_ptr<runtime::opencl::OpenCLDevice>> dev = runtime::opencl::OpenCLDevice::Open();
  if (!dev.ok()) return dev.status();
  r->device_ = *std::move(dev);
  if (!r->kernels_.empty()) {
    absl::StatusOr<std::unique_ptr<runtime::opencl::OpenCLProgram>> prog = r->device_->Build(r->source());
    if (!prog.ok()) return prog.status();
    r->program_ = *std::move(prog);
  }
  return r;
}

namespace {

// A scalar kernel argument in the C type of the kernel's parameter.
absl::StatusOr<runtime::opencl::KernelArg> ScalarArg(DataType t, const KilnAny& v) {
  using runtime::opencl::KernelArg;
  if (t.is_floating()) {
    if (t.bits() == 32) return KernelArg::Of(static_cast<float>(v.v_float64));
    if (t.bits() == 64) return KernelArg::Of(v.v_float64);
  } else if (t.is_int() || t.is_uint()) {
    int64_t i = v.v_int64;
    switch (t.bits()) {
      case 8: return KernelArg::Of(static_cast<int8_t>(i));
      case 16: return KernelArg::Of(static_cast<int16_t>(i));
      case 32: return KernelArg::Of(static_cast<int32_t>(i));
      case 64: return KernelArg::Of(i);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("scalar kernel argument of type ", t.ToString(), " is not supported"));
}

}  // namespace

absl::StatusOr<KilnAny> OpenCLRunner::Call(const std::string& entry, const std::vector<KilnAny>& packed,
                                           const std::vector<runtime::Tensor>& tensors,
                                           const tir::InterpOptions& interp) const {
  // Every tensor argument gets a device buffer, keyed by the host data pointer the host code
  // passes to its launches.
  std::vector<runtime::opencl::OpenCLBuffer> buffers;
  std::vector<const runtime::Tensor*> copied;
  std::unordered_map<const void*, size_t> by_pointer;
  for (size_t i = 0; i < packed.size() && i < tensors.size(); ++i) {
    if (packed[i].type_index != kKilnDLTensorPtr) continue;
    const runtime::Tensor& tensor = tensors[i];
    if (by_pointer.count(tensor.data())) continue;
    if (!tensor.IsCompact() || tensor.byte_offset() != 0 || tensor.device().device_type != kDLCPU) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, ": the opencl target takes compact CPU tensors without a byte offset"));
    }
    size_t bytes = static_cast<size_t>(tensor.nbytes());
    absl::StatusOr<runtime::opencl::OpenCLBuffer> buf = device_->Alloc(bytes);
    if (!buf.ok()) return buf.status();
    absl::Status st = device_->Write(*buf, tensor.data(), bytes);
    if (!st.ok()) return st;
    by_pointer[tensor.data()] = buffers.size();
    buffers.push_back(*std::move(buf));
    copied.push_back(&tensor);
  }
  tir::InterpOptions options = interp;
  options.call_packed = [&](const std::string& name, const std::vector<KilnAny>& args) -> absl::Status {
    auto it = kernels_.find(name);
    if (it == kernels_.end()) return absl::NotFoundError(absl::StrCat("no OpenCL kernel named ", name));
    const codegen::OpenCLKernelInfo& k = it->second;
    if (args.size() != k.params.size() + k.launch_tags.size()) {
      return absl::InvalidArgumentError(absl::StrCat("launch of ", name, " with ", args.size(), " values, expected ",
                                                     k.params.size() + k.launch_tags.size()));
    }
    std::vector<runtime::opencl::KernelArg> kargs;
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (k.params[i].is_handle()) {
        auto b = by_pointer.find(args[i].v_ptr);
        if (b == by_pointer.end()) {
          return absl::UnimplementedError(absl::StrCat("argument #", i, " of ", name,
                                                       " is not the data of a tensor argument (host-side "
                                                       "allocations are not supported on opencl yet)"));
        }
        kargs.push_back(runtime::opencl::KernelArg::Buffer(buffers[b->second]));
        continue;
      }
      absl::StatusOr<runtime::opencl::KernelArg> a = ScalarArg(k.params[i], args[i]);
      if (!a.ok()) return a.status();
      kargs.push_back(*a);
    }
    std::array<size_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
    for (size_t j = 0; j < k.launch_tags.size(); ++j) {
      int64_t extent = args[k.params.size() + j].v_int64;
      if (extent < 0) return absl::InvalidArgumentError(absl::StrCat(name, ": ", k.launch_tags[j], " extent ", extent));
      const std::string& tag = k.launch_tags[j];
      int dim = tag.back() - 'x';
      (tag.rfind("blockIdx.", 0) == 0 ? grid : block)[dim] = static_cast<size_t>(extent);
    }
    return program_->Launch(name, kargs, grid, block);
  };
  KilnAny result{};
  result.type_index = kKilnNone;
  absl::Status st = tir::Interpret(lowered_.host, entry, packed.data(), static_cast<int32_t>(packed.size()), &result,
                                   options);
  absl::Status finish = device_->Finish();
  if (st.ok()) st = finish;
  for (size_t i = 0; st.ok() && i < buffers.size(); ++i) {
    st = device_->Read(copied[i]->data(), buffers[i], buffers[i].bytes());
  }
  if (!st.ok()) return st;
  return result;
}

}  // namespace kiln::driver
