#include "runtime/vm/vm.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kiln::vm {
namespace {

#define ASSIGN_OR_RETURN(lhs, expr)                 \
  auto lhs##_or = (expr);                           \
  if (!lhs##_or.ok()) return lhs##_or.status();     \
  auto lhs = *std::move(lhs##_or)

#define RETURN_IF_ERROR(expr)  \
  do {                         \
    absl::Status _st = (expr); \
    if (!_st.ok()) return _st; \
  } while (0)

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Value ConstantValue(const Constant& c) {
  switch (c.tag) {
    case ConstantTag::kInt: return Value::Int(c.int_value);
    case ConstantTag::kFloat: return Value::Float(c.float_value);
    case ConstantTag::kDataType: return Value::DataType(c.dtype);
    case ConstantTag::kStr: return Value::String(c.str);
    case ConstantTag::kShape: return Value::Shape(c.shape);
    case ConstantTag::kTensor: return Value::Tensor(c.tensor);
  }
  return Value();
}

absl::StatusOr<bool> Truthy(const Value& v, const std::string& where) {
  if (v.is_bool() || v.is_int() || v.is_tensor()) return ReadCondition(v);
  return absl::InvalidArgumentError(absl::StrCat(where, ": If condition must be a bool, an int or a scalar tensor, got ",
                                                 v.kind_name()));
}

std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) absl::StrAppend(&out, i ? ", " : "", s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// Appends the failing call to an error, innermost first, as a short traceback: at most
// kMaxTraceback frames, so that an error deep in a recursion stays readable.
absl::Status WithCallSite(const absl::Status& st, const std::string& callee, const std::string& func, int64_t instr) {
  constexpr int kMaxTraceback = 8;
  absl::string_view msg = st.message();
  int frames = 0;
  for (size_t p = msg.find("\n  in call to "); p != absl::string_view::npos; p = msg.find("\n  in call to ", p + 1)) ++frames;
  if (frames > kMaxTraceback) return st;
  if (frames == kMaxTraceback) return absl::Status(st.code(), absl::StrCat(msg, "\n  in call to ..."));
  return absl::Status(st.code(), absl::StrCat(msg, "\n  in call to ", callee, " (function ", func, ", instruction ", instr, ")"));
}

}  // namespace

// What a function-table entry resolved to at load time.
struct VirtualMachine::Callee {
  enum class Kind { kVMFunc, kVMTIRFunc, kBuiltin, kKernel };
  Kind kind = Kind::kBuiltin;
  BuiltinFn builtin = nullptr;
  KilnKernelFn kernel = nullptr;
  const std::string* name = nullptr;
  Value as_value;  // the function as a closure value (what a kFuncIdx argument reads)
  // VM functions: what the prologue's check_tensor_info / match_shape say about each parameter
  // (ndim -1, no dtype and dims -1 where unknown), for SetInput's checks. match_shape also checks
  // R.Shape parameters, so dims alone do not make a parameter a tensor.
  struct ParamInfo {
    bool tensor = false;  // check_tensor_info names it
    int64_t ndim = -1;
    bool has_dtype = false;
    DLDataType dtype{};
    std::vector<int64_t> dims;
  };
  std::vector<ParamInfo> params;
};

VirtualMachine::VirtualMachine() = default;
VirtualMachine::~VirtualMachine() = default;

absl::StatusOr<std::unique_ptr<VirtualMachine>> VirtualMachine::Create(std::shared_ptr<const Executable> exec,
                                                                       const VMOptions& options) {
  if (exec == nullptr) return absl::InvalidArgumentError("VirtualMachine::Create: null executable");
  RETURN_IF_ERROR(exec->Validate());
  std::unique_ptr<VirtualMachine> vm(new VirtualMachine());
  vm->exec_ = std::move(exec);
  RETURN_IF_ERROR(vm->Init(options));
  return vm;
}

absl::Status VirtualMachine::Init(const VMOptions& options) {
  if (options.max_call_depth < 1) return absl::InvalidArgumentError("max_call_depth must be positive");
  max_call_depth_ = options.max_call_depth;
  devices_ = options.devices;
  for (const LibraryBlob& blob : exec_->libraries) {
    if (blob.kind != kDeviceLibraryKind || !devices_.empty()) continue;
    absl::StatusOr<DLDevice> device = runtime::DeviceForFormat(blob.name);
    if (!device.ok()) {
      return absl::Status(device.status().code(), absl::StrCat("library \"", blob.name, "\" (target \"", blob.target,
                                                               "\"): ", device.status().message()));
    }
    devices_.push_back(*device);
  }
  if (devices_.empty() || devices_.back().device_type != kDLCPU) devices_.push_back(DLDevice{kDLCPU, 0});
  for (const DLDevice& d : devices_) {
    ASSIGN_OR_RETURN(alloc, Allocator::Create(options.allocator, d));
    allocators_.push_back(std::move(alloc));
  }
  kernel_env_ = options.kernel_env;
  if (kernel_env_ == nullptr && options.num_threads != 1) {
    own_pool_ = std::make_unique<runtime::ThreadPool>(options.num_threads);
    kernel_env_ = own_pool_->env();
  }
  for (const LibraryBlob& blob : exec_->libraries) {
    if (blob.kind == kDeviceLibraryKind) {
      RETURN_IF_ERROR(LoadDeviceLibrary(blob));
      continue;
    }
    if (blob.kind != "host-so") {
      return absl::UnimplementedError(absl::StrCat("library \"", blob.name, "\" of kind \"", blob.kind, "\" (target \"",
                                                   blob.target, "\") is not supported by this runtime"));
    }
    absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib = runtime::KernelLibrary::LoadFromBytes(blob.bytes, blob.name);
    if (!lib.ok()) {
      return absl::Status(lib.status().code(), absl::StrCat("loading library \"", blob.name, "\": ", lib.status().message()));
    }
    libraries_.push_back(*std::move(lib));
  }
  if (!device_modules_.empty()) {
    if (kernel_env_ != nullptr) device_env_ = *kernel_env_;
    device_env_.device_launch = &VirtualMachine::DeviceLaunch;
    device_env_.launcher = this;
    device_env_.device_alloc = &VirtualMachine::DeviceAlloc;
    device_env_.device_free = &VirtualMachine::DeviceFree;
    kernel_env_ = &device_env_;
  }
  for (const Constant& c : exec_->constants) {
    Value v = ConstantValue(c);
    if (v.is_tensor() && devices_[0].device_type != kDLCPU) {
      absl::StatusOr<runtime::Tensor> on_device = v.as_tensor().CopyTo(devices_[0]);
      if (!on_device.ok()) return on_device.status();
      v = Value::Tensor(*std::move(on_device));
    }
    constants_.push_back(std::move(v));
  }

  const auto& table = exec_->func_table;
  callees_.resize(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    Callee& c = callees_[i];
    c.name = &table[i].name;
    c.as_value = Value::MakeClosure(static_cast<int64_t>(i), {});
    switch (table[i].kind) {
      case FuncInfo::Kind::kVMFunc: c.kind = Callee::Kind::kVMFunc; continue;
      case FuncInfo::Kind::kVMTIRFunc: c.kind = Callee::Kind::kVMTIRFunc; continue;
      case FuncInfo::Kind::kPackedFunc: break;
    }
    // Kernels first (extra modules, then the executable's libraries), then the builtins, as TVM
    // looks in the imports before the global registry.
    for (const runtime::KernelModule* m : options.extra_modules) {
      if (absl::StatusOr<KilnKernelFn> fn = m->GetKernel(table[i].name); fn.ok()) {
        c.kind = Callee::Kind::kKernel;
        c.kernel = *fn;
        break;
      }
    }
    for (size_t l = 0; c.kernel == nullptr && l < libraries_.size(); ++l) {
      if (absl::StatusOr<KilnKernelFn> fn = libraries_[l]->GetKernel(table[i].name); fn.ok()) {
        c.kind = Callee::Kind::kKernel;
        c.kernel = *fn;
      }
    }
    if (c.kernel != nullptr) continue;
    c.builtin = LookupBuiltin(table[i].name);
    if (c.builtin == nullptr) {
      return absl::NotFoundError(absl::StrCat("cannot resolve packed function \"", table[i].name,
                                              "\": no kernel library of the executable exports it and it is no VM builtin"));
    }
  }
  // Parameter facts from each VM function's straight-line prologue.
  for (size_t i = 0; i < table.size(); ++i) {
    const FuncInfo& f = table[i];
    if (f.kind != FuncInfo::Kind::kVMFunc) continue;
    std::vector<Callee::ParamInfo>& params = callees_[i].params;
    params.resize(f.num_args);
    for (int64_t pc = f.start_instr; pc < f.end_instr; ++pc) {
      const int64_t* w = exec_->instr_data.data() + exec_->instr_offset[pc];
      if (static_cast<Opcode>(w[0]) != Opcode::kCall) break;
      const std::string& callee = table[w[2]].name;
      int64_t n = w[3];
      auto arg = [&](int64_t k) { return InstrArg(w[4 + k]); };
      auto imm = [&](int64_t k, int64_t* out) {
        if (k >= n) return false;
        InstrArg a = arg(k);
        if (a.kind() == ArgKind::kImmediate) *out = a.value();
        else if (a.kind() == ArgKind::kConstIdx && constants_[a.value()].is_int()) *out = constants_[a.value()].as_int();
        else return false;
        return true;
      };
      if (n < 1 || arg(0).kind() != ArgKind::kRegister || arg(0).value() < 0 || arg(0).value() >= f.num_args) continue;
      Callee::ParamInfo& p = params[arg(0).value()];
      if (callee == "vm.builtin.check_tensor_info" && n >= 3) {
        p.tensor = true;
        imm(1, &p.ndim);
        if (n == 4 && arg(2).kind() == ArgKind::kConstIdx && constants_[arg(2).value()].is_dtype()) {
          p.has_dtype = true;
          p.dtype = constants_[arg(2).value()].as_dtype();
        }
      } else if (callee == "vm.builtin.match_shape" && n >= 4) {
        int64_t ndim;
        if (!imm(2, &ndim) || ndim < 0 || n != 4 + 2 * ndim) continue;
        p.dims.assign(ndim, -1);
        for (int64_t d = 0; d < ndim; ++d) {
          int64_t code, v;
          if (imm(3 + 2 * d, &code) && code == 0 && imm(4 + 2 * d, &v)) p.dims[d] = v;
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status VirtualMachine::LoadDeviceLibrary(const LibraryBlob& blob) {
  auto fail = [&](const absl::Status& st) {
    return absl::Status(st.code(), absl::StrCat("loading device library \"", blob.name, "\" (target \"", blob.target,
                                                "\"): ", st.message()));
  };
  absl::StatusOr<runtime::DeviceBlob> device_blob = runtime::DeviceBlob::Deserialize(blob.bytes);
  if (!device_blob.ok()) return fail(device_blob.status());
  if (device_blob->format != blob.name) {
    return fail(absl::InvalidArgumentError(absl::StrCat("the blob's format is \"", device_blob->format, "\"")));
  }
  absl::StatusOr<DLDeviceType> type = runtime::DeviceTypeOfFormat(device_blob->format);
  if (!type.ok()) return fail(type.status());
  absl::StatusOr<runtime::DeviceRuntime*> rt = runtime::GetDeviceRuntime(*type);
  if (!rt.ok()) return fail(rt.status());
  absl::StatusOr<std::unique_ptr<runtime::DeviceModule>> module = (*rt)->Load(*device_blob);
  if (!module.ok()) return fail(module.status());
  for (const runtime::DeviceKernelInfo& k : (*module)->kernels()) {
    if (!device_kernels_.emplace(k.name, module->get()).second) {
      return fail(absl::InvalidArgumentError(absl::StrCat("device kernel ", k.name, " is defined twice")));
    }
  }
  device_modules_.push_back(*std::move(module));
  return absl::OkStatus();
}

int32_t VirtualMachine::DeviceLaunch(void* launcher, const char* kernel, const KilnAny* args, int32_t num_args,
                                     KilnAny* result) {
  auto* vm = static_cast<VirtualMachine*>(launcher);
  auto it = vm->device_kernels_.find(kernel);
  absl::Status st = it == vm->device_kernels_.end()
                        ? absl::NotFoundError(absl::StrCat("no device kernel named ", kernel))
                        : it->second->Launch(kernel, args, num_args);
  if (st.ok()) return 0;
  vm->launch_error_ = absl::StrCat("RuntimeError: ", st.message());
  result->type_index = kKilnErrorMessage;
  result->v_ptr = const_cast<char*>(vm->launch_error_.c_str());
  return -1;
}

void* VirtualMachine::DeviceAlloc(void* launcher, int64_t nbytes, KilnAny* result) {
  auto* vm = static_cast<VirtualMachine*>(launcher);
  absl::StatusOr<void*> p = absl::InvalidArgumentError(absl::StrCat("negative size ", nbytes));
  if (nbytes >= 0) {
    absl::StatusOr<runtime::DeviceAPI*> api = runtime::GetDeviceAPI(vm->devices_[0]);
    p = api.ok() ? (*api)->AllocDataSpace(static_cast<size_t>(nbytes), runtime::kAllocAlignment) : api.status();
  }
  if (!p.ok()) {
    vm->launch_error_ = absl::StrCat("MemoryError: device workspace of ", nbytes, " bytes: ", p.status().message());
    result->type_index = kKilnErrorMessage;
    result->v_ptr = const_cast<char*>(vm->launch_error_.c_str());
    return nullptr;
  }
  vm->workspace_.push_back(*p);
  return *p;
}

void VirtualMachine::DeviceFree(void* launcher, void* ptr) {
  auto* vm = static_cast<VirtualMachine*>(launcher);
  auto it = std::find(vm->workspace_.begin(), vm->workspace_.end(), ptr);
  if (it == vm->workspace_.end()) return;
  vm->workspace_.erase(it);
  if (absl::StatusOr<runtime::DeviceAPI*> api = runtime::GetDeviceAPI(vm->devices_[0]); api.ok()) {
    (*api)->FreeDataSpace(ptr);
  }
}

absl::StatusOr<Value> VirtualMachine::ToHost(Value v) const {
  if (v.is_tensor() && v.as_tensor().device().device_type != kDLCPU) {
    const runtime::Tensor& t = v.as_tensor();
    absl::StatusOr<runtime::Tensor> host = t.CopyTo(DLDevice{kDLCPU, 0});
    if (!host.ok()) return host.status();
    return Value::Tensor(*std::move(host));
  }
  if (v.is_tuple()) {
    std::vector<Value> fields;
    for (const Value& f : v.as_tuple()) {
      ASSIGN_OR_RETURN(c, ToHost(f));
      fields.push_back(std::move(c));
    }
    return Value::Tuple(std::move(fields));
  }
  return v;
}

absl::StatusOr<Allocator*> VirtualMachine::allocator(int64_t device_index) {
  int64_t n = static_cast<int64_t>(allocators_.size());
  if (device_index == -1) device_index = n - 1;
  if (device_index < 0 || device_index >= n) {
    return absl::InvalidArgumentError(absl::StrCat("device index ", device_index, " out of range (the VM has ", n, " devices)"));
  }
  return allocators_[device_index].get();
}

void VirtualMachine::ClearAllocatorCaches() {
  for (auto& a : allocators_) a->Clear();
}

absl::StatusOr<int64_t> VirtualMachine::FindFunction(const std::string& name) const {
  auto it = exec_->func_map.find(name);
  if (it == exec_->func_map.end()) return absl::NotFoundError(absl::StrCat("unknown function \"", name, "\""));
  return it->second;
}

absl::StatusOr<Value> VirtualMachine::InvokeClosure(const Value& closure, absl::Span<const Value> args) {
  if (!closure.is_closure()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot call a ", closure.kind_name()));
  }
  const Closure& c = closure.as_closure();
  if (c.captured.empty()) return CallFunction(c.func_index, args);
  std::vector<Value> all(args.begin(), args.end());
  all.insert(all.end(), c.captured.begin(), c.captured.end());
  return CallFunction(c.func_index, all);
}

absl::StatusOr<Value> VirtualMachine::CallFunction(int64_t func_index, absl::Span<const Value> args) {
  const Callee& c = callees_[func_index];
  switch (c.kind) {
    case Callee::Kind::kVMFunc: return RunVMFunction(func_index, args);
    case Callee::Kind::kBuiltin: return c.builtin(*this, args);
    case Callee::Kind::kKernel: return CallKernel(c, args);
    case Callee::Kind::kVMTIRFunc: break;
  }
  return absl::UnimplementedError(absl::StrCat("\"", *c.name, "\" is a vm_tir_func, which this VM does not run"));
}

absl::StatusOr<Value> VirtualMachine::CallKernel(const Callee& callee, absl::Span<const Value> args) {
  // Kernels are leaves (they never call back into the VM), so one scratch array serves every call.
  kernel_args_.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    KilnAny& k = kernel_args_[i];
    k = KilnAny{};
    const Value& v = args[i];
    switch (v.kind()) {
      case Value::Kind::kTensor: k.type_index = kKilnDLTensorPtr; k.v_ptr = v.as_tensor().dl(); break;
      case Value::Kind::kInt: k.type_index = kKilnInt; k.v_int64 = v.as_int(); break;
      case Value::Kind::kBool: k.type_index = kKilnBool; k.v_int64 = v.as_int(); break;
      case Value::Kind::kFloat: k.type_index = kKilnFloat; k.v_float64 = v.as_float(); break;
      case Value::Kind::kDataType: k.type_index = kKilnDataType; k.v_dtype = v.as_dtype(); break;
      case Value::Kind::kNone: k.type_index = kKilnNone; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("kernel ", *callee.name, ": argument ", i, " is a ", v.kind_name(),
                                                       ", which kernels cannot take"));
    }
  }
  KilnAny result{};
  absl::Status called = runtime::CallKernel(callee.kernel, *callee.name, kernel_args_.data(),
                                            static_cast<int32_t>(args.size()), &result, kernel_env_);
  while (!workspace_.empty()) DeviceFree(this, workspace_.back());  // what an early exit left
  RETURN_IF_ERROR(called);
  switch (result.type_index) {
    case kKilnInt: return Value::Int(result.v_int64);
    case kKilnBool: return Value::Bool(result.v_int64 != 0);
    case kKilnFloat: return Value::Float(result.v_float64);
    default: return Value();
  }
}

absl::StatusOr<Value> VirtualMachine::RunVMFunction(int64_t func_index, absl::Span<const Value> args) {
  const FuncInfo& f = exec_->func_table[func_index];
  if (static_cast<int64_t>(args.size()) != f.num_args) {
    return absl::InvalidArgumentError(
        absl::StrCat("function \"", f.name, "\" takes ", f.num_args, " arguments, got ", args.size()));
  }
  if (depth_ >= max_call_depth_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("maximum VM call depth ", max_call_depth_, " exceeded calling \"", f.name, "\""));
  }
  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& depth) : d(depth) { ++d; }
    ~DepthGuard() { --d; }
  } guard(depth_);

  std::vector<Value> regs(f.register_file_size);
  std::copy(args.begin(), args.end(), regs.begin());
  std::vector<Value> call_args;
  const int64_t* data = exec_->instr_data.data();
  const int64_t* offsets = exec_->instr_offset.data();
  auto read_reg = [&](int64_t r) -> Value {
    if (r == kVoidRegister) return Value();
    if (r == kVMRegister) return Value::VMContext();
    return regs[r];
  };
  // Validate() guarantees: registers in range, forward jumps inside [start, end), a final Ret.
  for (int64_t pc = f.start_instr;;) {
    const int64_t* w = data + offsets[pc];
    switch (static_cast<Opcode>(w[0])) {
      case Opcode::kCall: {
        const int64_t dst = w[1], callee = w[2], n = w[3];
        call_args.clear();
        for (int64_t i = 0; i < n; ++i) {
          InstrArg a(w[4 + i]);
          switch (a.kind()) {
            case ArgKind::kRegister: call_args.push_back(read_reg(a.value())); break;
            case ArgKind::kImmediate: call_args.push_back(Value::Int(a.value())); break;
            case ArgKind::kConstIdx: call_args.push_back(constants_[a.value()]); break;
            case ArgKind::kFuncIdx: call_args.push_back(callees_[a.value()].as_value); break;
          }
        }
        absl::StatusOr<Value> ret = Value();
        bool skip = false;
        if (instrument_ && instrument_(*callees_[callee].name, true, Value(), call_args) == InstrumentAction::kSkipRun) {
          skip = true;
        }
        if (!skip) {
          if (profiling_) {
            int64_t t0 = NowNs();
            ret = CallFunction(callee, call_args);
            ProfileEntry& e = profile_[callee];
            e.count++;
            e.total_seconds += (NowNs() - t0) / 1e9;
          } else {
            ret = CallFunction(callee, call_args);
          }
          if (!ret.ok()) return WithCallSite(ret.status(), *callees_[callee].name, f.name, pc - f.start_instr);
          if (instrument_) instrument_(*callees_[callee].name, false, *ret, call_args);
          if (dst != kVoidRegister) regs[dst] = *std::move(ret);
        }
        ++pc;
        break;
      }
      case Opcode::kRet: return read_reg(w[1]);
      case Opcode::kGoto: pc += w[1]; break;
      case Opcode::kIf: {
        ASSIGN_OR_RETURN(cond, Truthy(regs[w[1]], f.name));
        pc += cond ? 1 : w[2];
        break;
      }
    }
  }
}

absl::StatusOr<Value> VirtualMachine::Invoke(const std::string& func_name, std::vector<Value> args) {
  int64_t t0 = profiling_ ? NowNs() : 0;
  absl::StatusOr<Value> ret;
  if (auto s = saved_.find(func_name); s != saved_.end()) {
    if (!args.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("saved function \"", func_name, "\" takes no arguments"));
    }
    ret = CallFunction(s->second.func_index, s->second.args);
    if (ret.ok() && !s->second.include_return) ret = Value();
  } else {
    ASSIGN_OR_RETURN(index, FindFunction(func_name));
    for (Value& v : args) {
      ASSIGN_OR_RETURN(converted, ConvertInput(std::move(v)));
      v = std::move(converted);
    }
    ret = CallFunction(index, args);
  }
  // Device results come back to the host (which also waits for the device's work).
  if (ret.ok() && devices_[0].device_type != kDLCPU) ret = ToHost(*std::move(ret));
  if (profiling_) profile_total_seconds_ += (NowNs() - t0) / 1e9;
  return ret;
}

absl::StatusOr<Value> VirtualMachine::ConvertInput(Value v) const {
  if (v.kind() == Value::Kind::kVMContext || v.is_storage()) {
    return absl::InvalidArgumentError(absl::StrCat("a ", v.kind_name(), " cannot be passed to a VM function"));
  }
  if (v.is_tensor() && v.as_tensor().device().device_type == kDLCPU && devices_[0].device_type != kDLCPU) {
    absl::StatusOr<runtime::Tensor> contiguous = v.as_tensor().Contiguous();
    if (!contiguous.ok()) return contiguous.status();
    absl::StatusOr<runtime::Tensor> on_device = contiguous->CopyTo(devices_[0]);
    if (!on_device.ok()) return on_device.status();
    return Value::Tensor(*std::move(on_device));
  }
  if (v.is_tensor() && v.as_tensor().device().device_type != devices_[0].device_type) {
    return absl::UnimplementedError(absl::StrCat("input tensor on device type ", v.as_tensor().device().device_type,
                                                 " (the VM runs on device type ", devices_[0].device_type, ")"));
  }
  if (v.is_tuple()) {
    std::vector<Value> fields;
    for (const Value& f : v.as_tuple()) {
      ASSIGN_OR_RETURN(c, ConvertInput(f));
      fields.push_back(std::move(c));
    }
    return Value::Tuple(std::move(fields));
  }
  return v;
}

absl::Status VirtualMachine::SetInput(const std::string& func_name, std::vector<Value> args) {
  ASSIGN_OR_RETURN(index, FindFunction(func_name));
  const FuncInfo& f = exec_->func_table[index];
  if (f.kind != FuncInfo::Kind::kVMFunc) {
    return absl::InvalidArgumentError(absl::StrCat("set_input: \"", func_name, "\" is not a VM function"));
  }
  if (static_cast<int64_t>(args.size()) != f.num_args) {
    return absl::InvalidArgumentError(absl::StrCat("set_input: \"", func_name, "\" takes ", f.num_args,
                                                   " arguments, got ", args.size()));
  }
  const std::vector<Callee::ParamInfo>& params = callees_[index].params;
  for (size_t i = 0; i < args.size(); ++i) {
    ASSIGN_OR_RETURN(v, ConvertInput(std::move(args[i])));
    args[i] = std::move(v);
    const Callee::ParamInfo& p = params[i];
    std::string which = absl::StrCat("set_input(", func_name, "): argument ", i,
                                     i < f.param_names.size() ? absl::StrCat(" (", f.param_names[i], ")") : "");
    if (p.tensor && !args[i].is_tensor()) {
      return absl::InvalidArgumentError(absl::StrCat(which, ": expect a Tensor but got ", args[i].kind_name()));
    }
    if (p.tensor) {
      const runtime::Tensor& t = args[i].as_tensor();
      if (p.ndim != -1 && t.ndim() != p.ndim) {
        return absl::InvalidArgumentError(absl::StrCat(which, ": expect ndim ", p.ndim, " but got ", t.ndim()));
      }
      if (p.has_dtype && !runtime::DTypeEqual(p.dtype, t.dtype())) {
        return absl::InvalidArgumentError(absl::StrCat(which, ": expect dtype ", runtime::DTypeString(p.dtype),
                                                       " but got ", runtime::DTypeString(t.dtype())));
      }
    }
    if (!p.dims.empty()) {
      if (!args[i].is_tensor() && !args[i].is_shape()) {
        return absl::InvalidArgumentError(absl::StrCat(which, ": expect a Tensor or Shape but got ", args[i].kind_name()));
      }
      const std::vector<int64_t>& shape = args[i].is_tensor() ? args[i].as_tensor().shape() : args[i].as_shape();
      bool ok = p.dims.size() == shape.size();
      for (size_t d = 0; ok && d < p.dims.size(); ++d) ok = p.dims[d] == -1 || p.dims[d] == shape[d];
      if (!ok) {
        std::string want = "(";
        for (size_t d = 0; d < p.dims.size(); ++d) absl::StrAppend(&want, d ? ", " : "", p.dims[d] == -1 ? "?" : absl::StrCat(p.dims[d]));
        want += p.dims.size() == 1 ? ",)" : ")";
        return absl::InvalidArgumentError(absl::StrCat(which, ": expect shape ", want, " but got ", ShapeStr(shape)));
      }
    }
  }
  inputs_[func_name] = std::move(args);
  return absl::OkStatus();
}

absl::Status VirtualMachine::InvokeStateful(const std::string& func_name) {
  auto it = inputs_.find(func_name);
  if (it == inputs_.end()) {
    return absl::FailedPreconditionError(absl::StrCat("invoke_stateful(\"", func_name, "\") before set_input"));
  }
  ASSIGN_OR_RETURN(index, FindFunction(func_name));
  int64_t t0 = profiling_ ? NowNs() : 0;
  absl::StatusOr<Value> ret = CallFunction(index, it->second);
  if (profiling_) profile_total_seconds_ += (NowNs() - t0) / 1e9;
  if (!ret.ok()) return ret.status();
  outputs_[func_name] = *std::move(ret);
  return absl::OkStatus();
}

namespace {

absl::StatusOr<Value> IndexInto(const Value& root, absl::Span<const int64_t> indices) {
  Value v = root;
  for (int64_t i : indices) {
    if (!v.is_tuple()) return absl::InvalidArgumentError(absl::StrCat("get_output: cannot index into a ", v.kind_name()));
    if (i < 0 || i >= static_cast<int64_t>(v.as_tuple().size())) {
      return absl::InvalidArgumentError(absl::StrCat("get_output: index ", i, " out of range for a tuple of ", v.as_tuple().size()));
    }
    Value next = v.as_tuple()[i];
    v = std::move(next);
  }
  return v;
}

}  // namespace

absl::StatusOr<Value> VirtualMachine::GetOutput(const std::string& func_name, absl::Span<const int64_t> indices) const {
  auto it = outputs_.find(func_name);
  if (it == outputs_.end()) {
    return absl::FailedPreconditionError(absl::StrCat("no output for \"", func_name, "\": call invoke_stateful first"));
  }
  ASSIGN_OR_RETURN(v, IndexInto(it->second, indices));
  return ToHost(std::move(v));
}

absl::StatusOr<int64_t> VirtualMachine::GetOutputArity(const std::string& func_name,
                                                       absl::Span<const int64_t> indices) const {
  ASSIGN_OR_RETURN(v, GetOutput(func_name, indices));
  return v.is_tuple() ? static_cast<int64_t>(v.as_tuple().size()) : -1;
}

absl::StatusOr<std::vector<Value>> VirtualMachine::GetOutputs(const std::string& func_name) const {
  ASSIGN_OR_RETURN(v, GetOutput(func_name));
  std::vector<Value> out;
  FlattenTuples(v, &out);
  return out;
}

absl::Status VirtualMachine::SaveFunction(const std::string& func_name, const std::string& saved_name,
                                          std::vector<Value> args, bool include_return) {
  ASSIGN_OR_RETURN(index, FindFunction(func_name));
  const FuncInfo& f = exec_->func_table[index];
  if (f.kind == FuncInfo::Kind::kVMFunc && static_cast<int64_t>(args.size()) != f.num_args) {
    return absl::InvalidArgumentError(absl::StrCat("save_function: \"", func_name, "\" takes ", f.num_args,
                                                   " arguments, got ", args.size()));
  }
  for (Value& v : args) {
    ASSIGN_OR_RETURN(c, ConvertInput(std::move(v)));
    v = std::move(c);
  }
  saved_[saved_name] = Saved{index, std::move(args), include_return};
  return absl::OkStatus();
}

absl::StatusOr<int64_t> VirtualMachine::GetFunctionArity(const std::string& func_name) const {
  ASSIGN_OR_RETURN(index, FindFunction(func_name));
  const FuncInfo& f = exec_->func_table[index];
  return f.kind == FuncInfo::Kind::kPackedFunc ? int64_t{-1} : f.num_args;
}

absl::StatusOr<std::string> VirtualMachine::GetFunctionParamName(const std::string& func_name, int64_t index) const {
  ASSIGN_OR_RETURN(fi, FindFunction(func_name));
  const FuncInfo& f = exec_->func_table[fi];
  if (index < 0 || index >= static_cast<int64_t>(f.param_names.size())) {
    return absl::InvalidArgumentError(absl::StrCat("function \"", func_name, "\" has no parameter ", index));
  }
  return f.param_names[index];
}

void VirtualMachine::SetInstrument(Instrument instrument) { instrument_ = std::move(instrument); }

void VirtualMachine::EnableProfiling(bool on) { profiling_ = on; }

void VirtualMachine::ResetProfile() {
  profile_.clear();
  profile_total_seconds_ = 0;
}

ProfileReport VirtualMachine::GetProfileReport() const {
  ProfileReport r;
  for (const auto& [index, e] : profile_) {
    ProfileEntry out = e;
    out.name = exec_->func_table[index].name;
    r.entries.push_back(std::move(out));
  }
  std::sort(r.entries.begin(), r.entries.end(),
            [](const ProfileEntry& a, const ProfileEntry& b) { return a.total_seconds > b.total_seconds; });
  r.total_seconds = profile_total_seconds_;
  return r;
}

std::string ProfileReport::ToString() const {
  std::string out = absl::StrFormat("%-40s %10s %14s %14s %8s\n", "Name", "Count", "Total (us)", "Mean (us)", "Percent");
  for (const ProfileEntry& e : entries) {
    double total_us = e.total_seconds * 1e6;
    absl::StrAppendFormat(&out, "%-40s %10d %14.3f %14.3f %7.2f%%\n", e.name, e.count, total_us,
                          e.count > 0 ? total_us / e.count : 0.0,
                          total_seconds > 0 ? 100.0 * e.total_seconds / total_seconds : 0.0);
  }
  absl::StrAppendFormat(&out, "%-40s %10s %14.3f\n", "Total", "", total_seconds * 1e6);
  return out;
}

absl::StatusOr<std::vector<double>> VirtualMachine::TimeDevice(const std::function<absl::Status()>& fn,
                                                               const profiling::TimeEvalOptions& options) {
  if (device_modules_.empty()) return profiling::TimeEvaluate(fn, options);
  // Kernels run on devices_[0]: time them with its own timer (device events), or, where it has
  // none, on the host around a synchronize.
  ASSIGN_OR_RETURN(rt, runtime::GetDeviceRuntime(devices_[0].device_type));
  absl::StatusOr<std::unique_ptr<runtime::DeviceTimer>> probe = rt->StartTimer();
  if (absl::IsUnimplemented(probe.status())) {
    return profiling::TimeEvaluate(fn, options, nullptr, [rt] { return rt->api()->Synchronize(); });
  }
  if (!probe.ok()) return probe.status();
  if (absl::StatusOr<int64_t> ns = (*probe)->StopAndWait(); !ns.ok()) return ns.status();
  profiling::TimeEvalClock clock;
  clock.start_device_timer = [rt] { return rt->StartTimer(); };
  return profiling::TimeEvaluate(fn, options, nullptr, [rt] { return rt->api()->Synchronize(); }, &clock);
}

absl::StatusOr<std::vector<double>> VirtualMachine::TimeEvaluator(const std::string& func_name, std::vector<Value> args,
                                                                  const profiling::TimeEvalOptions& options) {
  if (saved_.count(func_name) != 0) {
    if (!args.empty()) return absl::InvalidArgumentError(absl::StrCat("saved function \"", func_name, "\" takes no arguments"));
    return TimeDevice([&]() { return Invoke(func_name, {}).status(); }, options);
  }
  // Resolve and convert once, outside the timed loop.
  ASSIGN_OR_RETURN(index, FindFunction(func_name));
  for (Value& v : args) {
    ASSIGN_OR_RETURN(c, ConvertInput(std::move(v)));
    v = std::move(c);
  }
  return TimeDevice([&]() { return CallFunction(index, args).status(); }, options);
}

absl::StatusOr<std::vector<double>> VirtualMachine::TimeEvaluatorStateful(const std::string& func_name,
                                                                          const profiling::TimeEvalOptions& options) {
  return TimeDevice([&]() { return InvokeStateful(func_name); }, options);
}

}  // namespace kiln::vm
