#include "runtime/module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/trap.h"

namespace kiln::runtime {

absl::StatusOr<std::unique_ptr<KernelLibrary>> KernelLibrary::Load(const std::string& path, int owned_fd) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* err = dlerror();
    if (owned_fd >= 0) close(owned_fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot load kernel library ", path, ": ", err ? err : "?"));
  }
  std::unique_ptr<KernelLibrary> lib(new KernelLibrary());
  lib->handle_ = h;
  lib->owned_fd_ = owned_fd;
  lib->path_ = path;
  const char* table = static_cast<const char*>(dlsym(h, KILN_KERNEL_TABLE_SYMBOL));
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a kiln kernel library (it lacks ", KILN_KERNEL_TABLE_SYMBOL, ")"));
  }
  for (const char* p = table; *p != '\0'; p += lib->names_.back().size() + 1) lib->names_.emplace_back(p);
  return lib;
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
  if (owned_fd_ >= 0) close(owned_fd_);
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
  const char* msg = out->type_index == kKilnErrorMessage ? static_cast<const char*>(out->v_ptr) : nullptr;
  return absl::InvalidArgumentError(msg != nullptr && *msg != '\0' ? msg : absl::StrCat(name, " failed"));
}

}  // namespace kiln::runtime
