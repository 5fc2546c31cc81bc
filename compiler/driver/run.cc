#include "compiler/driver/run.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/driver/kernel_build.h"
#include "compiler/driver/device_build.h"
#include "compiler/driver/device_run.h"
#include "compiler/target/llvm/jit.h"
#include "compiler/target/llvm/target.h"

namespace kiln::driver {

using namespace ir;  // NOLINT

absl::StatusOr<RunTarget> ParseRunTarget(absl::string_view target) {
  absl::string_view kind = target.substr(0, target.find(' '));
  if (kind == "interp" && kind.size() == target.size()) return RunTarget::kInterp;
  if (kind == "llvm") return RunTarget::kLLVM;
  if (kind == "c" && kind.size() == target.size()) return RunTarget::kC;
  if (kind == "opencl" && kind.size() == target.size()) return RunTarget::kOpenCL;
  if (kind == "vulkan" && kind.size() == target.size()) return RunTarget::kVulkan;
  if (kind != "opencl" && IsDeviceTarget(std::string(target))) return RunTarget::kDevice;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown run target \"", target, "\" (interp, llvm, c, opencl, vulkan, cuda or nvptx)"));
}

const char* RunTargetName(RunTarget target) {
  switch (target) {
    case RunTarget::kInterp: return "interp";
    case RunTarget::kLLVM: return "llvm";
    case RunTarget::kC: return "c";
    case RunTarget::kOpenCL: return "opencl";
    case RunTarget::kDevice: return "device";
    case RunTarget::kVulkan: return "vulkan";
  }
  return "?";
}

absl::StatusOr<PrimFunc> FindEntry(const IRModule& module, const std::string& entry) {
  PrimFunc func;
  for (const auto& [gv, f] : module.Functions()) {
    PrimFunc pf = TryDowncast<PrimFunc>(f);
    if (pf.defined() && pf->GetGlobalSymbol() == entry) return pf;
  }
  BaseFunc f = module.Lookup(entry);
  if (!f.defined()) {
    std::vector<std::string> names;
    for (const auto& [gv, fn] : module.Functions()) {
      if (fn.as<PrimFuncNode>() != nullptr) names.push_back(fn->GetGlobalSymbol().empty() ? gv->name : fn->GetGlobalSymbol());
    }
    return absl::NotFoundError(absl::StrCat("no PrimFunc named \"", entry, "\" in the module (it has: ",
                                            names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
  }
  func = TryDowncast<PrimFunc>(f);
  if (!func.defined()) return absl::InvalidArgumentError(absl::StrCat(entry, " is not a PrimFunc"));
  // Compiled targets export only functions with a global_symbol; the interpreter follows suit so
  // that every target accepts the same entries.
  if (func->GetGlobalSymbol().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(entry, " is private (it has no global_symbol), so it is not an entry"));
  }
  return func;
}

std::vector<ParamInfo> DescribeParams(const PrimFunc& func) {
  std::vector<ParamInfo> out;
  for (const Var& v : func->params) {
    ParamInfo p;
    p.name = v->name;
    p.dtype = v->dtype;
    if (func->buffer_map.count(v)) {
      Buffer b = func->buffer_map.Get(v);
      p.is_buffer = true;
      p.name = b->name;
      p.dtype = b->dtype;
      for (const PrimExpr& d : b->shape) {
        if (const auto* imm = d.as<IntImmNode>()) {
          p.shape.push_back(std::to_string(imm->value));
        } else if (const auto* var = d.as<VarNode>()) {
          p.shape.push_back(var->name);
        } else {
          p.shape.push_back("?");
        }
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string FormatReturn(const KilnAny& value) {
  switch (value.type_index) {
    case kKilnInt: return std::to_string(value.v_int64);
    case kKilnBool: return value.v_int64 != 0 ? "True" : "False";
    case kKilnFloat: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", value.v_float64);
      return buf;
    }
    case kKilnNone: return "None";
    default: return absl::StrCat("<value of type index ", value.type_index, ">");
  }
}

namespace {

double HalfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(mant | 0x400, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// The one element of `t` as an integer (is_float false) or a double.
struct Scalar {
  bool is_float = false, is_bool = false;
  int64_t i = 0;
  double f = 0;
};

absl::StatusOr<Scalar> ReadScalar(const runtime::Tensor& t) {
  if (t.numel() != 1) return absl::InvalidArgumentError(absl::StrCat("has ", t.numel(), " elements, not 1"));
  if (t.device().device_type != kDLCPU || t.dtype().lanes != 1) {
    return absl::InvalidArgumentError(absl::StrCat("is a ", runtime::DTypeString(t.dtype()), " tensor off the CPU"));
  }
  const void* p = t.data();
  Scalar s;
  DLDataType dt = t.dtype();
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (dt.code == runtime::kDLBoolCode || (dt.code == kDLUInt && dt.bits == 1)) {
    s.is_bool = true, s.i = load(uint8_t{}) != 0;
  } else if (dt.code == kDLInt && dt.bits == 8) {
    s.i = load(int8_t{});
  } else if (dt.code == kDLInt && dt.bits == 16) {
    s.i = load(int16_t{});
  } else if (dt.code == kDLInt && dt.bits == 32) {
    s.i = load(int32_t{});
  } else if (dt.code == kDLInt && dt.bits == 64) {
    s.i = load(int64_t{});
  } else if (dt.code == kDLUInt && dt.bits == 8) {
    s.i = load(uint8_t{});
  } else if (dt.code == kDLUInt && dt.bits == 16) {
    s.i = load(uint16_t{});
  } else if (dt.code == kDLUInt && dt.bits == 32) {
    s.i = load(uint32_t{});
  } else if (dt.code == kDLUInt && dt.bits == 64) {
    s.i = static_cast<int64_t>(load(uint64_t{}));  // the kernel ABI carries 64 bits; the param's cast restores it
  } else if (dt.code == kDLFloat && dt.bits == 16) {
    s.is_float = true, s.f = HalfToDouble(load(uint16_t{}));
  } else if (dt.code == kDLFloat && dt.bits == 32) {
    s.is_float = true, s.f = load(float{});
  } else if (dt.code == kDLFloat && dt.bits == 64) {
    s.is_float = true, s.f = load(double{});
  } else {
    return absl::InvalidArgumentError(absl::StrCat("has unsupported dtype ", runtime::DTypeString(dt)));
  }
  return s;
}

// An integer read from a tensor of type `given` (its bits in `v`; a uint64 above INT64_MAX reads
// negative) as text.
std::string FormatInteger(int64_t v, DLDataType given) {
  return given.code == kDLUInt && given.bits == 64 ? absl::StrCat(static_cast<uint64_t>(v)) : absl::StrCat(v);
}

// Whether the integer `v` (read from a tensor of type `given`) is a value of the scalar type
// `param`: passing it must not truncate silently (2**40 into an int32 would become 0).
bool FitsInteger(int64_t v, DLDataType given, const ir::DataType& param) {
  bool huge = given.code == kDLUInt && given.bits == 64 && v < 0;  // above INT64_MAX
  int bits = param.bits();
  if (param.is_uint()) {
    if (huge) return bits >= 64;
    if (v < 0) return false;
    return bits >= 64 || v < (int64_t{1} << bits);
  }
  if (huge) return false;
  if (bits >= 64) return true;
  int64_t lim = int64_t{1} << (bits - 1);
  return v >= -lim && v < lim;
}

std::string Dims(const std::vector<int64_t>& v) { return absl::StrCat("(", absl::StrJoin(v, ", "), v.size() == 1 ? ",)" : ")"); }

// "A: float32 (16, 16) strides (32, 1); n: int64 () = 5" for error messages, since a kernel's own
// message is a constant that states the expectation, not what it was given.
std::string DescribeArgs(const std::vector<ParamInfo>& params, const std::vector<runtime::Tensor>& args) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
    const runtime::Tensor& t = args[i];
    std::string s = absl::StrCat(params[i].name, ": ", runtime::DTypeString(t.dtype()), " ", Dims(t.shape()));
    if (!t.IsCompact()) absl::StrAppend(&s, " strides ", Dims(t.strides()));
    if (t.byte_offset() != 0) absl::StrAppend(&s, " byte_offset ", t.byte_offset());
    parts.push_back(s);
  }
  return absl::StrJoin(parts, "; ");
}

std::string TempDir(const std::string& preferred) {
  if (!preferred.empty()) return preferred;
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

// Builds the C kernel library in a fresh private directory and loads it; the directory is removed
// with all it holds once loaded (the mapping stays valid) or once the build failed, so nothing is
// left behind on any path.
absl::StatusOr<std::unique_ptr<runtime::KernelModule>> BuildAndLoadC(const IRModule& module, const std::string& dir,
                                                                    bool checked) {
  std::string tmpl = TempDir(dir) + "/kiln-run-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a directory like ", tmpl, ": ", std::strerror(errno)));
  }
  std::string work(buf.data());
  std::string so = work + "/kernels.so";
  absl::Status st = BuildKernelLibrary(module, "c", so, nullptr, {}, checked);
  absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>> lib =
      st.ok() ? runtime::KernelLibrary::Load(so) : absl::StatusOr<std::unique_ptr<runtime::KernelLibrary>>(st);
  // Everything in the directory goes, whatever a failing compiler left there.
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  if (!lib.ok()) return lib.status();
  return std::unique_ptr<runtime::KernelModule>(std::move(*lib));
}

}  // namespace

absl::Status CheckRunsHere(const std::string& target) {
  if (target.rfind("llvm", 0) != 0) return absl::OkStatus();
  absl::StatusOr<codegen::LLVMTarget> t = codegen::ParseLLVMTarget(target);
  if (!t.ok()) return t.status();
  return codegen::CheckRunsOnHost(*t);
}

absl::StatusOr<std::unique_ptr<Runner>> Runner::Create(const IRModule& module, const RunOptions& options) {
  std::unique_ptr<Runner> r(new Runner(module, options));
  switch (options.target) {
    case RunTarget::kInterp:
      break;
    case RunTarget::kLLVM: {
      // JIT-executing instructions this CPU lacks would end in SIGILL: refuse them by name.
      absl::Status runs = CheckRunsHere(options.llvm_target);
      if (!runs.ok()) return runs;
      absl::StatusOr<IRModule> lowered = LowerKernels(module, options.llvm_target, {}, options.checked);
      if (!lowered.ok()) return lowered.status();
      absl::StatusOr<std::unique_ptr<codegen::JitModule>> jit = codegen::JitModule::Create(*lowered, options.llvm_target);
      if (!jit.ok()) return jit.status();
      r->kernels_ = std::move(*jit);
      break;
    }
    case RunTarget::kC: {
      absl::StatusOr<std::unique_ptr<runtime::KernelModule>> lib = BuildAndLoadC(module, options.work_dir, options.checked);
      if (!lib.ok()) return lib.status();
      r->kernels_ = std::move(*lib);
      break;
    }
    case RunTarget::kOpenCL:
    case RunTarget::kVulkan:
    case RunTarget::kDevice: {
      std::string target = options.target == RunTarget::kDevice ? options.device_target : RunTargetName(options.target);
      absl::StatusOr<std::unique_ptr<DeviceRunner>> device = DeviceRunner::Create(module, target);
      if (!device.ok()) return device.status();
      r->device_ = std::move(*device);
      break;
    }
  }
  return r;
}

Runner::Runner(IRModule module, RunOptions options) : module_(std::move(module)), options_(std::move(options)) {}
Runner::~Runner() = default;

absl::StatusOr<KilnAny> Runner::Call(const std::string& entry, const std::vector<runtime::Tensor>& args) const {
  absl::StatusOr<PrimFunc> func = FindEntry(module_, entry);
  if (!func.ok()) return func.status();
  std::vector<ParamInfo> params = DescribeParams(*func);
  if (args.size() != params.size()) {
    std::vector<std::string> names;
    for (const ParamInfo& p : params) names.push_back(p.name);
    return absl::InvalidArgumentError(absl::StrCat(entry, " takes ", params.size(), " argument",
                                                   params.size() == 1 ? "" : "s", " (", absl::StrJoin(names, ", "),
                                                   "), got ", args.size()));
  }
  std::vector<KilnAny> packed(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo& p = params[i];
    KilnAny& a = packed[i];
    a = KilnAny{};
    if (!args[i].defined()) return absl::InvalidArgumentError(absl::StrCat("argument #", i, " (", p.name, ") is missing"));
    if (p.is_buffer) {
      a.type_index = kKilnDLTensorPtr;
      a.v_ptr = args[i].dl();
      continue;
    }
    if (p.dtype.is_handle()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " (", p.name, ") is an opaque handle, which cannot be passed as a tensor"));
    }
    absl::StatusOr<Scalar> s = ReadScalar(args[i]);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " (", p.name, ", a ", p.dtype.ToString(), " scalar) ", s.status().message()));
    }
    if (p.dtype.is_floating()) {
      a.type_index = kKilnFloat;
      a.v_float64 = s->is_float ? s->f : static_cast<double>(s->i);
    } else if (s->is_float) {
      return absl::InvalidArgumentError(absl::StrCat("argument #", i, " (", p.name, ") is a ", p.dtype.ToString(),
                                                     " scalar but was given ", runtime::DTypeString(args[i].dtype())));
    } else {
      if (!p.dtype.is_bool() && !FitsInteger(s->i, args[i].dtype(), p.dtype)) {
        return absl::InvalidArgumentError(absl::StrCat("argument #", i, " (", p.name, ") is a ", p.dtype.ToString(),
                                                       " scalar but was given ", runtime::DTypeString(args[i].dtype()),
                                                       " value ", FormatInteger(s->i, args[i].dtype()),
                                                       ", which it cannot hold"));
      }
      a.type_index = p.dtype.is_bool() ? kKilnBool : kKilnInt;
      a.v_int64 = p.dtype.is_bool() ? (s->i != 0) : s->i;
    }
  }
  KilnAny result{};
  result.type_index = kKilnNone;
  absl::Status st;
  if (device_ != nullptr) {
    absl::StatusOr<KilnAny> r = device_->Call(entry, packed, args, options_.interp);
    if (r.ok()) result = *r;
    st = r.status();
  } else if (options_.target == RunTarget::kInterp) {
    st = tir::Interpret(module_, entry, packed.data(), static_cast<int32_t>(packed.size()), &result, options_.interp);
  } else {
    st = kernels_->Call((*func)->GetGlobalSymbol(), packed.data(), static_cast<int32_t>(packed.size()), &result,
                        options_.env);
  }
  if (!st.ok()) {
    if (absl::IsInvalidArgument(st)) {
      return absl::InvalidArgumentError(absl::StrCat(st.message(), "\n  arguments given: ", DescribeArgs(params, args)));
    }
    return st;
  }
  return result;
}

}  // namespace kiln::driver
