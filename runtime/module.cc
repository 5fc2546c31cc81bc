#include "runtime/module.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "runtime/trap.h"

namespace kiln::runtime {

absl::StatusOr<std::unique_ptr<KernelLibrary>> KernelLibrary::Load(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    return absl::InvalidArgumentError(absl::StrCat("cannot load kernel library ", path, ": ", err ? err : "?"));
  }
  std::unique_ptr<KernelLibrary> lib(new KernelLibrary());
  lib->handle_ = h;
  lib->path_ = path;
  const char* table = static_cast<const char*>(dlsym(h, KILN_KERNEL_TABLE_SYMBOL));
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a kiln kernel library (it lacks ", KILN_KERNEL_TABLE_SYMBOL, ")"));
  }
  for (const char* p = table; *p != '\0'; p += lib->names_.back().size() + 1) lib->names_.emplace_back(p);
  return lib;
}

namespace {

bool WriteAll(int fd, absl::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<KernelLibrary>> KernelLibrary::LoadFromBytes(absl::string_view bytes,
                                                                           const std::string& name) {
  int fd = memfd_create(("kiln-" + name).c_str(), MFD_CLOEXEC);
  if (fd >= 0) {
    if (!WriteAll(fd, bytes)) {
      close(fd);
      return absl::InternalError(absl::StrCat("cannot write library \"", name, "\" to a memory file"));
    }
    absl::StatusOr<std::unique_ptr<KernelLibrary>> lib = Load(absl::StrCat("/proc/self/fd/", fd));
    if (!lib.ok()) {
      close(fd);
      return lib.status();
    }
    (*lib)->memfd_ = fd;
    return lib;
  }
  const char* dir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/kiln-lib-XXXXXX");
  fd = mkstemp(path.data());
  if (fd < 0) return absl::InternalError("cannot create a temporary file for a kernel library");
  bool ok = WriteAll(fd, bytes);
  close(fd);
  absl::StatusOr<std::unique_ptr<KernelLibrary>> lib =
      ok ? Load(path) : absl::InternalError("cannot write a kernel library file");
  unlink(path.c_str());
  return lib;
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
  if (memfd_ >= 0) close(memfd_);
}

absl::StatusOr<KilnKernelFn> KernelLibrary::GetKernel(const std::string& name) const {
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) {
    return absl::NotFoundError(absl::StrCat("kernel library ", path_, " has no kernel \"", name, "\""));
  }
  void* sym = dlsym(handle_, name.c_str());
  if (sym == nullptr) return absl::NotFoundError(absl::StrCat("symbol ", name, " missing from ", path_));
  return reinterpret_cast<KilnKernelFn>(sym);
}

absl::Status KernelModule::Call(const std::string& name, const KilnAny* args, int32_t num_args, KilnAny* result,
                                const KilnKernelEnv* env) const {
  absl::StatusOr<KilnKernelFn> fn = GetKernel(name);
  if (!fn.ok()) return fn.status();
  return CallKernel(*fn, name, args, num_args, result, env);
}

absl::Status CallKernel(KilnKernelFn fn, const std::string& name, const KilnAny* args, int32_t num_args,
                        KilnAny* result, const KilnKernelEnv* env) {
  KilnAny local{};
  KilnAny* out = result != nullptr ? result : &local;
  TrapInfo trap;
  int32_t rc = RunTrapping([&] { return fn(const_cast<KilnKernelEnv*>(env), args, num_args, out); }, &trap);
  // A parallel loop's trap is reported even if the kernel ignored its loop's result.
  if (rc == kTrapped || TakePendingTrap(&trap)) {
    return absl::InternalError(absl::StrCat("kernel ", name, " trapped: ", DescribeTrap(trap)));
  }
  if (rc == 0) return absl::OkStatus();
  if (out->type_index == kKilnErrorMessageOwned && out->v_ptr != nullptr) {
    // A failed check of a checked-mode kernel; OUT_OF_RANGE as the interpreter's faults.
    std::string msg(static_cast<const char*>(out->v_ptr));
    std::free(out->v_ptr);
    *out = KilnAny{};
    return absl::OutOfRangeError(msg);
  }
  const char* msg = out->type_index == kKilnErrorMessage ? static_cast<const char*>(out->v_ptr) : nullptr;
  return absl::InvalidArgumentError(msg != nullptr && *msg != '\0' ? msg : absl::StrCat(name, " failed"));
}

}  // namespace kiln::runtime
