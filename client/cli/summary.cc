#include "client/cli/summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::cli {

std::string ExecutableSummary(const vm::Executable& exec) {
  std::vector<std::string> vm_funcs;
  size_t packed = 0;
  for (const vm::FuncInfo& f : exec.func_table) {
    if (f.kind == vm::FuncInfo::Kind::kVMFunc) vm_funcs.push_back(f.name);
    if (f.kind == vm::FuncInfo::Kind::kPackedFunc) ++packed;
  }
  std::string summary = absl::StrCat(vm_funcs.size(), " VM function", vm_funcs.size() == 1 ? "" : "s");
  if (!vm_funcs.empty()) absl::StrAppend(&summary, " (", absl::StrJoin(vm_funcs, ", "), ")");
  absl::StrAppend(&summary, ", ", packed, " packed function", packed == 1 ? "" : "s");
  return summary;
}

}  // namespace kiln::cli
