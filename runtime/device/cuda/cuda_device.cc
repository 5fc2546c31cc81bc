#include "runtime/device/cuda/cuda_device.h"

#include <dlfcn.h>

#include <type_traits>

#include "absl/strings/str_cat.h"

namespace kiln::runtime::cuda {

// The parts of cuda.h used here, declared by hand: building kiln needs no CUDA headers.
using CUresult = int;  // 0 = CUDA_SUCCESS
using CUdeviceptr = unsigned long long;  // NOLINT: the driver's own spelling
constexpr CUresult kStubLibrary = 34;    // CUDA_ERROR_STUB_LIBRARY
constexpr CUresult kNoDevice = 100;      // CUDA_ERROR_NO_DEVICE
constexpr CUresult kOutOfMemory = 2;     // CUDA_ERROR_OUT_OF_MEMORY
constexpr CUresult kNotFound = 500;      // CUDA_ERROR_NOT_FOUND
constexpr int kAttrCCMajor = 75, kAttrCCMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*
constexpr int kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6;  // CU_JIT_ERROR_LOG_BUFFER*

struct Driver {
  void* handle = nullptr;
  CUresult (*Init)(unsigned);
  CUresult (*GetErrorName)(CUresult, const char**);
  CUresult (*DeviceGetCount)(int*);
  CUresult (*DeviceGet)(int*, int);
  CUresult (*DeviceGetName)(char*, int, int);
  CUresult (*DeviceGetAttribute)(int*, int, int);
  CUresult (*PrimaryCtxRetain)(void**, int);
  CUresult (*PrimaryCtxRelease)(int);
  CUresult (*CtxSetCurrent)(void*);
  CUresult (*CtxSynchronize)();
  CUresult (*ModuleLoadDataEx)(void**, const void*, unsigned, int*, void**);
  CUresult (*ModuleUnload)(void*);
  CUresult (*ModuleGetFunction)(void**, void*, const char*);
  CUresult (*FuncSetAttribute)(void*, int, int);
  CUresult (*LaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                           void**, void**);
  CUresult (*MemAlloc)(CUdeviceptr*, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*EventCreate)(void**, unsigned);
  CUresult (*EventRecord)(void*, void*);
  CUresult (*EventSynchronize)(void*);
  CUresult (*EventElapsedTime)(float*, void*, void*);
  CUresult (*EventDestroy)(void*);

  std::string ErrorName(CUresult rc) const {
    const char* name = nullptr;
    if (GetErrorName != nullptr && GetErrorName(rc, &name) == 0 && name != nullptr) return name;
    return absl::StrCat("CUDA error ", rc);
  }
  absl::Status Check(CUresult rc, const char* what) const {
    if (rc == 0) return absl::OkStatus();
    std::string msg = absl::StrCat(what, ": ", ErrorName(rc));
    if (rc == kOutOfMemory) return absl::ResourceExhaustedError(msg);
    return absl::InternalError(msg);
  }
};

namespace {

absl::Status Unavailable(const std::string& why) { return absl::UnavailableError("device unavailable: " + why); }

// Loads the driver library's entry points. UNAVAILABLE when it is missing or incomplete. The
// library is never unloaded: drivers keep threads and state that outlive any one device.
absl::StatusOr<std::shared_ptr<const Driver>> LoadDriver(const std::string& library) {
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    return Unavailable(absl::StrCat("no CUDA driver (", err != nullptr ? err : library, ")"));
  }
  auto d = std::make_shared<Driver>();
  d->handle = h;
  std::string missing;
  auto sym = [&](auto* fn, std::initializer_list<const char*> names) {
    using Fn = std::remove_pointer_t<decltype(fn)>;
    *fn = nullptr;
    for (const char* name : names) {
      if (void* p = dlsym(h, name)) {
        *fn = reinterpret_cast<Fn>(p);
        return;
      }
    }
    if (missing.empty()) missing = *names.begin();
  };
  sym(&d->Init, {"cuInit"});
  sym(&d->GetErrorName, {"cuGetErrorName"});
  sym(&d->DeviceGetCount, {"cuDeviceGetCount"});
  sym(&d->DeviceGet, {"cuDeviceGet"});
  sym(&d->DeviceGetName, {"cuDeviceGetName"});
  sym(&d->DeviceGetAttribute, {"cuDeviceGetAttribute"});
  sym(&d->PrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  sym(&d->PrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  sym(&d->CtxSetCurrent, {"cuCtxSetCurrent"});
  sym(&d->CtxSynchronize, {"cuCtxSynchronize"});
  sym(&d->ModuleLoadDataEx, {"cuModuleLoadDataEx"});
  sym(&d->ModuleUnload, {"cuModuleUnload"});
  sym(&d->ModuleGetFunction, {"cuModuleGetFunction"});
  sym(&d->FuncSetAttribute, {"cuFuncSetAttribute"});
  sym(&d->LaunchKernel, {"cuLaunchKernel"});
  sym(&d->MemAlloc, {"cuMemAlloc_v2"});
  sym(&d->MemFree, {"cuMemFree_v2"});
  sym(&d->MemcpyHtoD, {"cuMemcpyHtoD_v2"});
  sym(&d->MemcpyDtoH, {"cuMemcpyDtoH_v2"});
  sym(&d->MemcpyDtoD, {"cuMemcpyDtoD_v2"});
  sym(&d->MemsetD8, {"cuMemsetD8_v2"});
  sym(&d->EventCreate, {"cuEventCreate"});
  sym(&d->EventRecord, {"cuEventRecord"});
  sym(&d->EventSynchronize, {"cuEventSynchronize"});
  sym(&d->EventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  sym(&d->EventDestroy, {"cuEventDestroy_v2"});
  if (!missing.empty()) return Unavailable(absl::StrCat(library, " lacks ", missing, " (driver too old)"));
  return std::shared_ptr<const Driver>(std::move(d));
}

}  // namespace

CUDABuffer& CUDABuffer::operator=(CUDABuffer&& other) noexcept {
  if (this != &other) {
    Release();
    driver_ = std::move(other.driver_);
    context_ = other.context_;
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = 0;
    other.bytes_ = 0;
  }
  return *this;
}

CUDABuffer::~CUDABuffer() { Release(); }

void CUDABuffer::Release() {
  if (ptr_ != 0 && driver_ != nullptr) {
    driver_->CtxSetCurrent(context_);
    driver_->MemFree(ptr_);
  }
  ptr_ = 0;
  bytes_ = 0;
}

CUDAModule::~CUDAModule() {
  driver_->CtxSetCurrent(context_);
  driver_->ModuleUnload(module_);
}

absl::Status CUDAModule::Launch(const std::string& kernel, const std::vector<KernelArg>& args,
                                std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                                uint32_t shared_bytes) const {
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  void* fn = nullptr;
  CUresult rc = driver_->ModuleGetFunction(&fn, module_, kernel.c_str());
  if (rc == kNotFound) return absl::NotFoundError(absl::StrCat("no CUDA kernel named ", kernel, " in the module"));
  st = driver_->Check(rc, "cuModuleGetFunction");
  if (!st.ok()) return st;
  // Above the default 48 KiB, a kernel must opt in to its dynamic shared memory
  // (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES); the launch fails if the device has less.
  constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
  constexpr int kMaxDynamicSharedSizeBytes = 8;
  if (shared_bytes > kDefaultSharedLimit) {
    st = driver_->Check(driver_->FuncSetAttribute(fn, kMaxDynamicSharedSizeBytes, static_cast<int>(shared_bytes)),
                        absl::StrCat("cuFuncSetAttribute(", kernel, ", max dynamic shared memory ", shared_bytes, ")").c_str());
    if (!st.ok()) return st;
  }
  std::vector<void*> params;
  params.reserve(args.size());
  for (const KernelArg& a : args) params.push_back(const_cast<uint8_t*>(a.bytes.data()));
  rc = driver_->LaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes, nullptr,
                             params.data(), nullptr);
  return driver_->Check(rc, absl::StrCat("cuLaunchKernel(", kernel, ")").c_str());
}

absl::StatusOr<std::unique_ptr<CUDADevice>> CUDADevice::Open(const CUDAOpenOptions& options) {
  absl::StatusOr<std::shared_ptr<const Driver>> driver = LoadDriver(options.library);
  if (!driver.ok()) return driver.status();
  const Driver& d = **driver;
  CUresult rc = d.Init(0);
  if (rc != 0) {
    std::string why = rc == kStubLibrary ? "the CUDA stub driver is installed, not a real one"
                      : rc == kNoDevice  ? "no CUDA device"
                                         : "the CUDA driver did not initialize";
    return Unavailable(absl::StrCat(why, " (cuInit: ", d.ErrorName(rc), ")"));
  }
  int count = 0;
  rc = d.DeviceGetCount(&count);
  if (rc != 0 || count == 0) return Unavailable("no CUDA device");
  if (options.ordinal < 0 || options.ordinal >= count) {
    return Unavailable(absl::StrCat("no CUDA device ", options.ordinal, " (", count, " present)"));
  }
  std::unique_ptr<CUDADevice> dev(new CUDADevice());
  dev->driver_ = *driver;
  absl::Status st = d.Check(d.DeviceGet(&dev->device_, options.ordinal), "cuDeviceGet");
  if (!st.ok()) return st;
  char name[256] = {0};
  d.DeviceGetName(name, sizeof(name) - 1, dev->device_);
  int major = 0, minor = 0;
  d.DeviceGetAttribute(&major, kAttrCCMajor, dev->device_);
  d.DeviceGetAttribute(&minor, kAttrCCMinor, dev->device_);
  dev->compute_capability_ = major * 10 + minor;
  dev->description_ = absl::StrCat(name, " (sm_", dev->compute_capability_, ")");
  st = d.Check(d.PrimaryCtxRetain(&dev->context_, dev->device_), "cuDevicePrimaryCtxRetain");
  if (!st.ok()) {
    dev->context_ = nullptr;
    return st;
  }
  return dev;
}

CUDADevice::~CUDADevice() {
  if (context_ != nullptr) driver_->PrimaryCtxRelease(device_);
}

absl::StatusOr<std::unique_ptr<CUDAModule>> CUDADevice::LoadModule(const std::string& image) const {
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  // PTX must be NUL-terminated; a cubin is passed as is (std::string keeps a NUL after either).
  std::string log(8192, '\0');
  int keys[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
  void* module = nullptr;
  CUresult rc = driver_->ModuleLoadDataEx(&module, image.c_str(), 2, keys, values);
  if (rc != 0) {
    log.resize(std::strlen(log.c_str()));
    return absl::InvalidArgumentError(
        absl::StrCat("the CUDA driver rejected the module (", driver_->ErrorName(rc), ")", log.empty() ? "" : ":\n", log));
  }
  return std::unique_ptr<CUDAModule>(new CUDAModule(driver_, context_, module));
}

absl::StatusOr<uint64_t> CUDADevice::AllocRaw(size_t bytes) const {
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  CUdeviceptr p = 0;
  st = driver_->Check(driver_->MemAlloc(&p, bytes == 0 ? 1 : bytes), "cuMemAlloc");
  if (!st.ok()) return st;
  return static_cast<uint64_t>(p);
}

void CUDADevice::FreeRaw(uint64_t ptr) const {
  if (ptr == 0) return;
  driver_->CtxSetCurrent(context_);
  driver_->MemFree(ptr);
}

absl::StatusOr<CUDABuffer> CUDADevice::Alloc(size_t bytes) const {
  absl::StatusOr<uint64_t> p = AllocRaw(bytes);
  if (!p.ok()) return p.status();
  CUDABuffer b;
  b.driver_ = driver_;
  b.context_ = context_;
  b.ptr_ = *p;
  b.bytes_ = bytes;
  return b;
}

absl::Status CUDADevice::CopyToDevice(const CUDABuffer& dst, const void* src, size_t bytes) const {
  if (bytes > dst.bytes()) return absl::OutOfRangeError("copy past the end of a CUDA buffer");
  return CopyToDevice(dst.ptr(), src, bytes);
}

absl::Status CUDADevice::CopyToHost(void* dst, const CUDABuffer& src, size_t bytes) const {
  if (bytes > src.bytes()) return absl::OutOfRangeError("copy past the end of a CUDA buffer");
  return CopyToHost(dst, src.ptr(), bytes);
}

absl::Status CUDADevice::CopyToDevice(uint64_t dst, const void* src, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  return driver_->Check(driver_->MemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

absl::Status CUDADevice::CopyToHost(void* dst, uint64_t src, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  return driver_->Check(driver_->MemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

absl::Status CUDADevice::CopyWithinDevice(uint64_t dst, uint64_t src, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  st = driver_->Check(driver_->MemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
  if (!st.ok()) return st;
  return Synchronize();  // cuMemcpyDtoD may return before the copy is done
}

absl::Status CUDADevice::Zero(uint64_t dst, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  st = driver_->Check(driver_->MemsetD8(dst, 0, bytes), "cuMemsetD8");
  if (!st.ok()) return st;
  return Synchronize();
}

absl::Status CUDADevice::Synchronize() const {
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  return driver_->Check(driver_->CtxSynchronize(), "cuCtxSynchronize");
}

absl::StatusOr<std::array<void*, 2>> CUDADevice::RecordStart() const {
  absl::Status st = driver_->Check(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent");
  if (!st.ok()) return st;
  std::array<void*, 2> ev = {nullptr, nullptr};
  st = driver_->Check(driver_->EventCreate(&ev[0], 0), "cuEventCreate");
  if (st.ok()) st = driver_->Check(driver_->EventCreate(&ev[1], 0), "cuEventCreate");
  if (st.ok()) st = driver_->Check(driver_->EventRecord(ev[0], nullptr), "cuEventRecord");
  if (!st.ok()) {
    for (void* e : ev) {
      if (e != nullptr) driver_->EventDestroy(e);
    }
    return st;
  }
  return ev;
}

absl::StatusOr<double> CUDADevice::RecordStopAndWait(std::array<void*, 2> events) const {
  driver_->CtxSetCurrent(context_);
  absl::Status st = driver_->Check(driver_->EventRecord(events[1], nullptr), "cuEventRecord");
  if (st.ok()) st = driver_->Check(driver_->EventSynchronize(events[1]), "cuEventSynchronize");
  float ms = 0;
  if (st.ok()) st = driver_->Check(driver_->EventElapsedTime(&ms, events[0], events[1]), "cuEventElapsedTime");
  for (void* e : events) driver_->EventDestroy(e);
  if (!st.ok()) return st;
  return static_cast<double>(ms);
}

}  // namespace kiln::runtime::cuda
