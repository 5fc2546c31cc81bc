#include "server/pool/in_process_backend.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "compiler/ir/serialize.h"

namespace kiln::server {

absl::StatusOr<CompileOutput> CompileJobInProcess(const CompileJob& job) {
  absl::Time start = absl::Now();
  absl::StatusOr<ir::ObjectRef> node = ir::Deserialize(job.module);
  if (!node.ok()) return absl::InvalidArgumentError(absl::StrCat("module: ", node.status().message()));
  ir::IRModule module = ir::TryDowncast<ir::IRModule>(*node);
  if (!module.defined()) return absl::InvalidArgumentError("module: the serialized node is not an IRModule");
  driver::BuildOptions options;
  options.entries = job.entries;
  options.checked = job.checked;
  absl::StatusOr<vm::Executable> exec =
      driver::BuildModuleExecutable(module, job.target, options);
  if (!exec.ok()) return exec.status();
  CompileOutput out;
  out.executable = exec->Serialize();
  // What the executable exports: its VM functions, or for a kernel executable its kernels.
  bool relax = false;
  for (const vm::FuncInfo& f : exec->func_table) relax |= f.kind == vm::FuncInfo::Kind::kVMFunc;
  for (const vm::FuncInfo& f : exec->func_table) {
    if (f.kind == (relax ? vm::FuncInfo::Kind::kVMFunc : vm::FuncInfo::Kind::kPackedFunc)) out.functions.push_back(f.name);
  }
  out.compile_time = absl::Now() - start;
  return out;
}

absl::StatusOr<CompileOutput> InProcessBackend::Compile(const CompileJob& job) {
  if (absl::Now() > job.deadline) return absl::DeadlineExceededError("the deadline passed before the compile started");
  {
    absl::MutexLock lock(&mu_);
    PoolCounters& c = counters_[job.target];
    c.target = job.target;
    ++c.busy;
  }
  absl::StatusOr<CompileOutput> out = CompileJobInProcess(job);
  absl::MutexLock lock(&mu_);
  PoolCounters& c = counters_[job.target];
  --c.busy;
  ++(out.ok() ? c.completed : c.failed);
  return out;
}

std::vector<PoolCounters> InProcessBackend::Stats() const {
  absl::MutexLock lock(&mu_);
  std::vector<PoolCounters> out;
  for (const auto& [target, c] : counters_) out.push_back(c);
  return out;
}

}  // namespace kiln::server
