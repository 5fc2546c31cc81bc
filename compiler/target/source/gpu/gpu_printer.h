// What the CUDA and OpenCL C printers (compiler/target/source/{cuda,opencl}) share on top of the C
// printer: one kernel per PrimFunc after SplitHostDevice, its parameters typed by how the body
// accesses each handle, thread indices from the thread_extent attributes, shared-memory arrays
// declared at kernel scope, per-thread arrays in a block, barriers, and the constructs device code
// cannot have (assertions, calls between PrimFuncs). A backend says how its dialect spells each.
#ifndef KILN_COMPILER_TARGET_SOURCE_GPU_GPU_PRINTER_H_
#define KILN_COMPILER_TARGET_SOURCE_GPU_GPU_PRINTER_H_

#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/target/source/c/c_printer.h"

namespace kiln::codegen::gpusrc {

// A kernel as the host launches it.
struct KernelSignature {
  std::string name;                      // the kernel's name (the PrimFunc's global_symbol)
  std::vector<ir::DataType> params;      // handle (a buffer) or the scalar's type, in order
  std::vector<std::string> launch_tags;  // "blockIdx.x", ... in the order the host passes extents
};

class GPUPrinter : public csrc::CodegenC {
 protected:
  // Prints `f` as one kernel into `out`: the backend's KernelHead, then the shared declarations
  // and the body. INVALID_ARGUMENT for a kernel without a global_symbol or with a scalar parameter
  // the dialect cannot take (bool, vector, 16-bit float).
  absl::StatusOr<KernelSignature> EmitKernel(const ir::PrimFunc& f, std::ostringstream* out);

  // ---- the dialect ----
  // Everything before "(params) {": "__kernel void f", "extern \"C\" __global__ void f", ...
  virtual std::string KernelHead(const ir::PrimFunc& f, const std::string& name) const = 0;
  // The value of thread index `dim` of the block (block = true) or of the thread in its block.
  virtual std::string ThreadIndex(bool block, int dim) const = 0;
  // The qualifier of a shared-memory array declaration ("__shared__", "__local").
  virtual std::string SharedDecl() const = 0;
  // The declaration of `name`, a `type` pointer to the kernel's dynamic shared memory (whose size
  // the launch gives), or "" when the dialect has none.
  virtual std::string DynamicSharedDecl(const std::string& type, const std::string& name) const { return ""; }
  // T.tvm_storage_sync(scope), or "" when the dialect has no such barrier.
  virtual std::string Barrier(const std::string& scope) const = 0;
  // The address-space qualifiers of pointers into global and shared memory ("__global ",
  // "__local "; none where pointers are generic).
  virtual std::string GlobalSpace() const { return ""; }
  virtual std::string SharedSpace() const { return ""; }

  // ---- shared printing ----
  std::string PointerQualifier(const ir::VarNode* data) override;
  void VisitStmt_(const ir::AttrStmtNode* op) override;
  void VisitStmt_(const ir::AllocBufferNode* op) override;
  void VisitStmt_(const ir::AssertStmtNode* op) override;
  std::string VisitExpr_(const ir::CallNode* op) override;

 private:
  std::unordered_map<const ir::VarNode*, std::string> space_;  // data var -> address-space qualifier
  std::ostringstream shared_decls_;                           // shared arrays, at kernel scope
  bool dynamic_shared_ = false;                               // a "shared.dyn" allocation is declared
};

}  // namespace kiln::codegen::gpusrc

#endif  // KILN_COMPILER_TARGET_SOURCE_GPU_GPU_PRINTER_H_
