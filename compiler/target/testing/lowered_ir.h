// Test helpers for the backends: builders for hand-written lowered TIR (the packed-entry form of
// compiler/driver/lowered_form.h) and DLTensor / KilnAny arguments to call the compiled kernels.
// Shared by the LLVM and C backend tests, which feed both backends the same kind of IR.
#ifndef KILN_COMPILER_TARGET_TESTING_LOWERED_IR_H_
#define KILN_COMPILER_TARGET_TESTING_LOWERED_IR_H_

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/tir/op/builtin.h"
#include "runtime/kernel_abi.h"

namespace kiln::codegen::testing {

inline ir::PrimExpr I32(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

inline ir::PrimExpr StructGet(ir::DataType t, const ir::Var& h, int index, tir::StructField f) {
  return ir::Call(t, ir::Op("tirx.tvm_struct_get"), {h, I32(index), I32(static_cast<int>(f))});
}

// The parameters of a packed entry and the PrimFunc made of them.
struct Entry {
  ir::Var self{"self", ir::DataType::Handle()}, args{"args", ir::DataType::Handle()};
  ir::Var num_args{"num_args", ir::DataType::Int(32)}, result{"result", ir::DataType::Handle()};
  ir::PrimFunc Make(const std::string& name, ir::Stmt body) const {
    ir::Map<ir::String, ir::ObjectRef> attrs;
    attrs.Set(ir::String("global_symbol"), ir::String(name));
    attrs.Set(ir::String("calling_conv"), ir::IntImm(ir::DataType::Int(32), 1));
    return ir::PrimFunc({self, args, num_args, result}, body, ir::Type(), {}, attrs);
  }
};

// A flat buffer named `name`; Bind(e, i, body) binds its data to args[i]'s DLTensor data.
struct FlatArg {
  ir::Var handle, data;
  ir::Buffer buf;
  FlatArg(const std::string& name, int64_t n, ir::DataType t) {
    handle = ir::Var(name + "_handle", ir::DataType::Handle());
    buf = ir::Buffer::Make(name, {I32(n)}, t);
    data = buf->data;
  }
  ir::Stmt Bind(const Entry& e, int i, ir::Stmt body) const {
    return ir::LetStmt(handle, StructGet(ir::DataType::Handle(), e.args, i, tir::StructField::kArgHandle),
                       ir::LetStmt(data, StructGet(ir::DataType::Handle(), handle, 0, tir::StructField::kTensorData),
                                   body));
  }
};

// A kernel library path under the test's temporary directory, unique to this process.
inline std::string TempLibraryPath(const std::string& stem) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + stem + "_" + std::to_string(getpid()) + ".so";
}

inline DLTensor Tensor1D(void* data, int64_t* shape, DLDataType dt) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = 1;
  t.dtype = dt;
  t.shape = shape;
  return t;
}

inline KilnAny TensorArg(DLTensor* t) {
  KilnAny a{};
  a.type_index = kKilnDLTensorPtr;
  a.v_ptr = t;
  return a;
}

// A DLTensor over caller-owned data that keeps its shape and strides arrays alive; tests may
// spoil fields of `t` directly.
struct Tensor {
  std::vector<int64_t> shape, strides;
  DLTensor t{};
  Tensor(void* data, std::vector<int64_t> s, DLDataType dt, std::vector<int64_t> st = {})
      : shape(std::move(s)), strides(std::move(st)) {
    t.data = data;
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = dt;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  void SetShape(std::vector<int64_t> s) {
    shape = std::move(s);
    t.shape = shape.data();
    t.ndim = static_cast<int32_t>(shape.size());
  }
  void SetStrides(std::vector<int64_t> s) {
    strides = std::move(s);
    t.strides = strides.data();
  }
  KilnAny Arg() { return TensorArg(&t); }
};

}  // namespace kiln::codegen::testing

#endif  // KILN_COMPILER_TARGET_TESTING_LOWERED_IR_H_
