#include "compiler/relax/transform/vm_check.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "compiler/driver/relax_build.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"
#include "runtime/vm/executable.h"
#include "runtime/vm/vm.h"

namespace kiln::relax::transform::testing {

absl::StatusOr<vm::Value> RunOnVM(const ir::IRModule& module, const std::vector<vm::Value>& args,
                                  const std::string& func) {
  absl::StatusOr<vm::Executable> built = driver::BuildExecutable(module, "llvm");
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
