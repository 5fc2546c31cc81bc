#include "compiler/relax/transform/vm_check.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "compiler/driver/relax_build.h"
#include "compiler/relax/analysis/vm_lowered_form.h"
#include "compiler/relax/backend/vm/attach_global_symbol.h"
#include "compiler/relax/backend/vm/codegen_vm.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/vm.h"

namespace kiln::relax::transform::testing {

namespace {

// A module already in the VM-lowered form goes straight to VMCodeGen, its PrimFuncs to the kernel
// library: running the pipeline again would run VMShapeLower on its own output, which it does not
// take (a variable its match_cast defined is no longer defined by one).
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

}  // namespace

absl::StatusOr<vm::Value> RunOnVM(const ir::IRModule& module, const std::vector<vm::Value>& args,
                                  const std::string& func) {
  absl::StatusOr<vm::Executable> built =
      CheckVMLoweredForm(module).ok() ? BuildLowered(module) : driver::BuildExecutable(module, "llvm");
  if (!built.ok()) return built.status();
  vm::VMOptions options;
  options.num_threads = 1;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::Create(std::make_shared<const vm::Executable>(*std::move(built)), options);
  if (!machine.ok()) return machine.status();
  return (*machine)->Invoke(func, args);
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
