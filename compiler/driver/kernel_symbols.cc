#include "compiler/driver/kernel_symbols.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/ir/diagnostic.h"

namespace kiln::driver {

using namespace ir;  // NOLINT

bool IsCLibraryName(const std::string& name) {
  // Allocation and message formatting (the argument checks), and libm behind the math intrinsics.
  static const std::set<std::string>* const kNames = [] {
    auto* names = new std::set<std::string>{"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign",
                                            "memcpy", "memmove", "memset", "memcmp", "snprintf", "vsnprintf", "abort"};
    for (const char* f : {"exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin",
                          "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh",
                          "atan2", "erf", "erfc", "fabs", "floor", "ceil", "trunc", "round", "nearbyint", "rint",
                          "hypot", "nextafter", "pow", "copysign", "fmod", "fma", "ldexp", "fmin", "fmax", "sincos"}) {
      for (const char* suffix : {"", "f", "l"}) names->insert(absl::StrCat(f, suffix));
    }
    return names;
  }();
  return kNames->count(name) > 0;
}

absl::Status CheckKernelSymbols(const IRModule& module) {
  DiagnosticList diags;
  std::map<std::string, std::string> owner;  // exported name -> the function's name in the module
  for (const auto& [gv, func] : module.Functions()) {
    const auto* f = func.as<PrimFuncNode>();
    if (f == nullptr) continue;
    // The backends emit a function without a global_symbol under its name in the module.
    std::string name = f->GetGlobalSymbol();
    if (!name.empty() && IsCLibraryName(name)) {
      diags.Error(f->span, absl::StrCat("global_symbol \"", name, "\" is a C library function that compiled "
                                        "kernels call; export the function under another name"));
      continue;
    }
    if (name.empty()) name = gv->name;
    auto [it, inserted] = owner.emplace(name, gv->name);
    if (!inserted) {
      diags.Error(f->span, absl::StrCat("function ", gv->name, " exports the symbol \"", name, "\", which function ",
                                        it->second, " already has"));
    }
  }
  return diags.ToStatus();
}

}  // namespace kiln::driver
