#include "compiler/relax/transform/vm_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/driver/relax_build.h"
#include "compiler/driver/relax_pipeline.h"
#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/backend/vm/attach_global_symbol.h"
#include "compiler/relax/backend/vm/codegen_vm.h"
#include "compiler/relax/transform/passes.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/vm.h"

namespace kiln::relax::transform::testing {

namespace {

using Pass = absl::StatusOr<ir::IRModule> (*)(const ir::IRModule&);

struct Step {
  const char* name;
  Pass run;
};

// The lowering steps of the Relax pipeline (compiler/driver/relax_pipeline.cc), in its order; the
// pipeline's last step, AttachGlobalSymbol, follows them in BuildLowered. LoweringTail checks the
// order against RelaxPassNames(), so the two cannot drift apart.
constexpr Step kLowering[] = {
    {"RewriteDataflowReshape", &RewriteDataflowReshape},
    {"ToNonDataflow", &ToNonDataflow},
    {"RemovePurityChecking", &RemovePurityChecking},
    {"CallTIRRewrite", &CallTIRRewrite},
    {"StaticPlanBlockMemory", &StaticPlanBlockMemory},
    {"KillAfterLastUse", &KillAfterLastUse},
    {"LowerRuntimeBuiltin", &LowerRuntimeBuiltin},
    {"ComputePrimValue", &ComputePrimValue},
    {"VMShapeLower", &VMShapeLower},
};

// The steps of kLowering after `pass`; INVALID_ARGUMENT if `pass` is not one of them or the
// pipeline's order is no longer kLowering's.
absl::StatusOr<std::vector<Step>> LoweringTail(const std::string& pass) {
  const std::vector<std::string>& names = driver::RelaxPassNames();
  const size_t n = sizeof(kLowering) / sizeof(kLowering[0]);
  auto first = std::find(names.begin(), names.end(), kLowering[0].name);
  if (names.end() - first != static_cast<std::ptrdiff_t>(n) + 1 || names.back() != "AttachGlobalSymbol" ||
      !std::equal(kLowering, kLowering + n, first, [](const Step& s, const std::string& name) { return name == s.name; })) {
    return absl::InvalidArgumentError("vm_check's lowering steps are no longer the Relax pipeline's last steps");
  }
  for (size_t i = 0; i < n; ++i) {
    if (pass == kLowering[i].name) return std::vector<Step>(kLowering + i + 1, kLowering + n);
  }
  return absl::InvalidArgumentError(absl::StrCat("'", pass, "' is not a lowering step of the Relax pipeline"));
}

// AttachGlobalSymbol, VMCodeGen and the kernel library for a module in the VM-lowered form.
absl::StatusOr<vm::Executable> BuildLowered(const ir::IRModule& module) {
  absl::StatusOr<ir::IRModule> named = backend::AttachGlobalSymbol(module);
  if (!named.ok()) return named.status();
  // A PrimFunc still without a global_symbol is called by no Relax function: it is left out, as
  // the pipeline's DeadCodeElimination would.
  ir::IRModule used = ir::IRModule::Make();
  used.CopyOnWrite()->attrs = (*named)->attrs;
  used.CopyOnWrite()->global_infos = (*named)->global_infos;
  bool has_prim_func = false;
  for (const auto& [gv, f] : named->Functions()) {
    const bool prim_func = f.as<ir::PrimFuncNode>() != nullptr;
    if (prim_func && f->GetGlobalSymbol().empty()) continue;
    has_prim_func |= prim_func;
    used.Add(gv, f);
  }
  absl::StatusOr<vm::Executable> exec = backend::VMCodeGen(used);
  if (!exec.ok()) return exec.status();
  if (has_prim_func) {
    absl::StatusOr<vm::Executable> kernels = driver::BuildKernelExecutable(used, "llvm");
    if (!kernels.ok()) return kernels.status();
    for (vm::LibraryBlob& lib : kernels->libraries) exec->libraries.push_back(std::move(lib));
  }
  if (absl::Status st = exec->Validate(); !st.ok()) return st;
  return exec;
}

absl::StatusOr<vm::Value> Invoke(absl::StatusOr<vm::Executable> built, const std::vector<vm::Value>& args,
                                 const std::string& func) {
  if (!built.ok()) return built.status();
  vm::VMOptions options;
  options.num_threads = 1;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(built)), options);
  if (!machine.ok()) return machine.status();
  return (*machine)->Invoke(func, args);
}

}  // namespace

absl::StatusOr<vm::Value> RunOnVM(const ir::IRModule& module, const std::vector<vm::Value>& args,
                                  const std::string& func) {
  return Invoke(driver::BuildExecutable(module, "llvm"), args, func);
}

absl::StatusOr<vm::Value> RunAfterPass(const std::string& pass, const ir::IRModule& module,
                                       const std::vector<vm::Value>& args, const std::string& func) {
  absl::StatusOr<std::vector<Step>> tail = LoweringTail(pass);
  if (!tail.ok()) return tail.status();
  ir::IRModule lowered = module;
  for (const Step& step : *tail) {
    absl::StatusOr<ir::IRModule> next = step.run(lowered);
    if (!next.ok()) return absl::Status(next.status().code(), absl::StrCat(step.name, ": ", next.status().message()));
    lowered = *std::move(next);
  }
  if (absl::Status form = CheckVMLoweredForm(lowered); !form.ok()) return form;
  return Invoke(BuildLowered(lowered), args, func);
}

vm::Value F32(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty(shape, DLDataType{kDLFloat, 32, 1});
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return vm::Value();
  EXPECT_EQ(t->nbytes(), static_cast<int64_t>(values.size() * sizeof(float)));
  if (t->nbytes() != static_cast<int64_t>(values.size() * sizeof(float))) return vm::Value();
  std::memcpy(t->data(), values.data(), t->nbytes());
  return vm::Value::Tensor(*std::move(t));
}

vm::Value Bool(bool value) {
  absl::StatusOr<runtime::Tensor> t = runtime::Tensor::Empty({}, DLDataType{runtime::kDLBoolCode, 8, 1});
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return vm::Value();
  *static_cast<uint8_t*>(t->data()) = value ? 1 : 0;
  return vm::Value::Tensor(*std::move(t));
}

std::vector<float> F32Values(const vm::Value& value) {
  EXPECT_TRUE(value.is_tensor()) << value.DebugString();
  if (!value.is_tensor()) return {};
  const runtime::Tensor& t = value.as_tensor();
  EXPECT_EQ(t.dtype().code, kDLFloat);
  EXPECT_EQ(t.dtype().bits, 32);
  if (t.dtype().code != kDLFloat || t.dtype().bits != 32) return {};
  std::vector<float> out(t.numel());
  std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

}  // namespace kiln::relax::transform::testing
