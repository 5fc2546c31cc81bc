// The VM's built-in packed functions: the `vm.builtin.*` table (and the `relax.run.*` helpers the
// VM runs in process), built once and immutable. TVM's registrations (tvm-reference.md §3.1) with
// the same argument conventions, so executables written by kiln's VMCodeGen and TVM's call them
// alike. Where TVM passes the VM pointer (`%vm`), the argument is Value::VMContext() and the
// builtin reaches the VM through its BuiltinContext.
//
// Wrong argument kinds or counts are INVALID_ARGUMENT naming the builtin; failed checks
// (check_tensor_info, match_shape, ...) use TVM's messages, prefixed by the error context string
// the compiler passes ("ErrorContext(fn=main, loc=param[0], param=x, annotation=...)").
#ifndef KILN_RUNTIME_VM_BUILTINS_H_
#define KILN_RUNTIME_VM_BUILTINS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/vm/allocator.h"
#include "runtime/vm/value.h"

namespace kiln::vm {

// What a builtin may ask of the VM running it.
class BuiltinContext {
 public:
  virtual ~BuiltinContext() = default;
  // devices[i] as the VM was created with (the host CPU is always the last); -1 is the last.
  virtual int num_devices() const = 0;
  virtual absl::StatusOr<Allocator*> allocator(int64_t device_index) = 0;
  // Calls a closure (VM or packed function) with `args` followed by its captured values.
  virtual absl::StatusOr<Value> InvokeClosure(const Value& closure, absl::Span<const Value> args) = 0;
  // Frees every allocator's cache.
  virtual void ClearAllocatorCaches() = 0;
};

using BuiltinFn = absl::StatusOr<Value> (*)(BuiltinContext& ctx, absl::Span<const Value> args);

// nullptr when `name` is no builtin.
BuiltinFn LookupBuiltin(absl::string_view name);

// vm.builtin.read_if_cond: a bool or int, or a one-element int/bool tensor read on the host.
absl::StatusOr<bool> ReadCondition(const Value& cond);

// Names of all builtins, sorted (for docs and tests).
const std::vector<std::string>& BuiltinNames();

}  // namespace kiln::vm

#endif  // KILN_RUNTIME_VM_BUILTINS_H_
