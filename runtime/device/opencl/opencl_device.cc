#include "runtime/device/opencl/opencl_device.h"

#include <dirent.h>
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace kiln::runtime::opencl {
namespace {

absl::Status ClError(const char* what, cl_int err) {
  return absl::InternalError(absl::StrCat("OpenCL: ", what, " failed (error ", err, ")"));
}

std::string PlatformString(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
  return s;
}

std::string DeviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
  return s;
}

// Loads every installed ICD (the libraries that /etc/OpenCL/vendors/*.icd, or $OCL_ICD_VENDORS,
// name) with RTLD_DEEPBIND before the ICD loader does. A platform such as PoCL brings its own LLVM
// and Clang; in a process that also has LLVM code of its own (kiln's LLVM backend), their vague-
// linkage template symbols (pass models, vtables) would otherwise bind to the process's copies
// and the platform's compiler would crash building a program. Deep binding keeps the platform's
// symbol lookups inside its own libraries; the loader's later dlopen of the same name reuses the
// loaded object. Done once per process; the handles stay open for its lifetime.
void PreloadICDsWithDeepBinding() {
  static const bool done = [] {
    const char* env = std::getenv("OCL_ICD_VENDORS");
    std::string dir = env != nullptr && *env != '\0' ? env : "/etc/OpenCL/vendors";
    std::vector<std::string> files;
    if (absl::EndsWith(dir, ".icd")) {
      files.push_back(dir);
    } else if (DIR* d = opendir(dir.c_str())) {
      while (struct dirent* e = readdir(d)) {
        if (absl::EndsWith(e->d_name, ".icd")) files.push_back(dir + "/" + e->d_name);
      }
      closedir(d);
    }
    for (const std::string& f : files) {
      std::ifstream in(f);
      std::string lib;
      std::getline(in, lib);
      lib = std::string(absl::StripAsciiWhitespace(lib));
      if (!lib.empty()) dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);  // failure: the loader reports it
    }
    return true;
  }();
  (void)done;
}

}  // namespace

OpenCLBuffer& OpenCLBuffer::operator=(OpenCLBuffer&& other) noexcept {
  if (this != &other) {
    if (mem_ != nullptr) clReleaseMemObject(mem_);
    mem_ = other.mem_;
    bytes_ = other.bytes_;
    other.mem_ = nullptr;
  }
  return *this;
}

OpenCLBuffer::~OpenCLBuffer() {
  if (mem_ != nullptr) clReleaseMemObject(mem_);
}

OpenCLProgram::~OpenCLProgram() { clReleaseProgram(program_); }

absl::Status OpenCLProgram::Launch(const std::string& kernel_name, const std::vector<KernelArg>& args,
                                   std::array<size_t, 3> grid, std::array<size_t, 3> block) const {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program_, kernel_name.c_str(), &err);
  if (err != CL_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("OpenCL: no kernel \"", kernel_name, "\" in the program (error ", err, ")"));
  }
  absl::Status st;
  cl_uint num_args = 0;
  if (clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(num_args), &num_args, nullptr) == CL_SUCCESS &&
      num_args != args.size()) {
    st = absl::InvalidArgumentError(
        absl::StrCat("OpenCL: kernel ", kernel_name, " takes ", num_args, " arguments, got ", args.size()));
  }
  for (size_t i = 0; st.ok() && i < args.size(); ++i) {
    err = clSetKernelArg(kernel, static_cast<cl_uint>(i), args[i].size, args[i].bytes.data());
    if (err != CL_SUCCESS) {
      st = absl::InvalidArgumentError(absl::StrCat("OpenCL: argument #", i, " of ", kernel_name, " rejected (error ", err, ")"));
    }
  }
  if (st.ok()) {
    size_t global[3], local[3];
    for (int d = 0; d < 3; ++d) {
      global[d] = grid[d] * block[d];
      local[d] = block[d];
    }
    bool empty = global[0] == 0 || global[1] == 0 || global[2] == 0;
    if (!empty) {
      err = clEnqueueNDRangeKernel(queue_, kernel, 3, nullptr, global, local, 0, nullptr, nullptr);
      if (err != CL_SUCCESS) st = ClError(absl::StrCat("launch of ", kernel_name).c_str(), err);
    }
  }
  clReleaseKernel(kernel);
  return st;
}

absl::StatusOr<std::unique_ptr<OpenCLDevice>> OpenCLDevice::Open() {
  PreloadICDsWithDeepBinding();
  cl_uint num_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
  // The ICD loader reports "no platform" as CL_PLATFORM_NOT_FOUND_KHR (-1001) or as zero platforms.
  if (err != CL_SUCCESS || num_platforms == 0) {
    return absl::UnavailableError(absl::StrCat("device unavailable: no OpenCL platform is installed (error ", err, ")"));
  }
  std::vector<cl_platform_id> platforms(num_platforms);
  clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_device_id device = nullptr;
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0) continue;
    std::unique_ptr<OpenCLDevice> d(new OpenCLDevice());
    d->device_ = device;
    d->context_ = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return ClError("clCreateContext", err);
    // Profiling timestamps every command: what DeviceTimer (time_evaluator) reads.
    d->queue_ = clCreateCommandQueue(d->context_, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) return ClError("clCreateCommandQueue", err);
    d->description_ = absl::StrCat(PlatformString(p, CL_PLATFORM_NAME), " / ", DeviceString(device, CL_DEVICE_NAME));
    return d;
  }
  return absl::UnavailableError(absl::StrCat("device unavailable: none of the ", num_platforms,
                                             " OpenCL platform(s) has a device"));
}

OpenCLDevice::~OpenCLDevice() {
  if (queue_ != nullptr) clReleaseCommandQueue(queue_);
  if (context_ != nullptr) clReleaseContext(context_);
}

absl::StatusOr<std::unique_ptr<OpenCLProgram>> OpenCLDevice::Build(const std::string& source,
                                                                   const std::string& options) const {
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
  if (err != CL_SUCCESS) return ClError("clCreateProgramWithSource", err);
  err = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    std::string log;
    if (clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      log.resize(n);
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      log.resize(log.find('\0') == std::string::npos ? n : log.find('\0'));
    }
    clReleaseProgram(program);
    return absl::InvalidArgumentError(
        absl::StrCat("OpenCL program build failed on ", description_, " (error ", err, "):\n", log));
  }
  return std::unique_ptr<OpenCLProgram>(new OpenCLProgram(program, queue_));
}

absl::StatusOr<OpenCLBuffer> OpenCLDevice::Alloc(size_t bytes) const {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
      err == CL_INVALID_BUFFER_SIZE) {
    return absl::ResourceExhaustedError(absl::StrCat("OpenCL: cannot allocate ", bytes, " bytes (error ", err, ")"));
  }
  if (err != CL_SUCCESS) return ClError("clCreateBuffer", err);
  return OpenCLBuffer(mem, bytes);
}

absl::Status OpenCLDevice::Write(const OpenCLBuffer& dst, const void* src, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  cl_int err = clEnqueueWriteBuffer(queue_, dst.mem(), CL_TRUE, 0, bytes, src, 0, nullptr, nullptr);
  return err == CL_SUCCESS ? absl::OkStatus() : ClError("clEnqueueWriteBuffer", err);
}

absl::Status OpenCLDevice::Read(void* dst, const OpenCLBuffer& src, size_t bytes) const {
  if (bytes == 0) return absl::OkStatus();
  cl_int err = clEnqueueReadBuffer(queue_, src.mem(), CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr);
  return err == CL_SUCCESS ? absl::OkStatus() : ClError("clEnqueueReadBuffer", err);
}

absl::Status OpenCLDevice::Finish() const {
  cl_int err = clFinish(queue_);
  return err == CL_SUCCESS ? absl::OkStatus() : ClError("clFinish", err);
}

absl::StatusOr<cl_event> OpenCLDevice::Marker() const {
  cl_event event = nullptr;
  cl_int err = clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event);
  if (err != CL_SUCCESS) return ClError("clEnqueueMarkerWithWaitList", err);
  return event;
}

absl::StatusOr<uint64_t> OpenCLDevice::EndTimeNs(cl_event event) const {
  cl_int err = clWaitForEvents(1, &event);
  if (err != CL_SUCCESS) return ClError("clWaitForEvents", err);
  cl_ulong end = 0;
  err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  if (err != CL_SUCCESS) return ClError("clGetEventProfilingInfo", err);
  return static_cast<uint64_t>(end);
}

}  // namespace kiln::runtime::opencl
