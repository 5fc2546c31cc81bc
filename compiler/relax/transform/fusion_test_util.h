// Test kernels for the fusion passes: s_tir PrimFuncs in the style the legalizer (and TVM's
// te.create_prim_func) writes, as TVMScript text to paste into an `@I.ir_module` class, plus
// parsing helpers.
#ifndef KILN_COMPILER_RELAX_TRANSFORM_FUSION_TEST_UTIL_H_
#define KILN_COMPILER_RELAX_TRANSFORM_FUSION_TEST_UTIL_H_

#include <string>

#include "compiler/driver/kernel_symbols.h"
#include "compiler/ir/ir.h"
#include "compiler/script/script.h"
#include "gtest/gtest.h"

namespace kiln::relax::transform::testing {

// add(A, B), exp(A), relu(A): elementwise on (8, 16); add_bias(A, b): broadcast of a (16,) bias;
// transpose(A): injective (8, 16) -> (16, 8); row_sum(A): reduction (8, 16) -> (8,);
// matmul(A, W): (8, 4) x (4, 16), out-elementwise-fusable; opaque_copy(A): no blocks.
inline constexpr char kKernels[] = R"(
    @T.prim_func(private=True, s_tir=True)
    def add(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @T.prim_func(private=True, s_tir=True)
    def add_bias(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("add_bias"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vj]

    @T.prim_func(private=True, s_tir=True)
    def exp(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.exp(A[vi, vj])

    @T.prim_func(private=True, s_tir=True)
    def relu(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = T.max(A[vi, vj], T.float32(0))

    @T.prim_func(private=True, s_tir=True)
    def transpose(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("transpose"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vj, vi]

    @T.prim_func(private=True, s_tir=True)
    def row_sum(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 16):
            with T.sblock("row_sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func(private=True, s_tir=True)
    def matmul(A: T.Buffer((8, 4), "float32"), W: T.Buffer((4, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j, k in T.grid(8, 16, 4):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], W[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]

    @T.prim_func(private=True)
    def opaque_copy(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            B[i, j] = A[i, j]
)";

inline ir::IRModule ParseModule(const std::string& text) {
  absl::StatusOr<ir::ObjectRef> parsed =
      script::ParseScript("from tvm.script import ir as I, tirx as T, relax as R\n\n" + text, "t.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? script::AsModule(*parsed) : ir::IRModule::Make();
}

// "@I.ir_module\nclass Module:" + the kernels + `functions` (class-body text).
inline ir::IRModule ParseWithKernels(const std::string& functions) {
  return ParseModule(std::string("@I.ir_module\nclass Module:") + kKernels + functions);
}

// A copy of `module` in which every PrimFunc is public, so that the Runner (which calls only public
// functions, by their name in the module too) can run the fused kernels. The exported symbol is
// the function's name, with "_kernel" appended to a C library name (`exp`), which no library may
// export (driver/kernel_symbols.h).
inline ir::IRModule PublicKernels(const ir::IRModule& module) {
  ir::IRModule out = module;
  for (const auto& [gv, func] : module.Functions()) {
    ir::PrimFunc prim = ir::TryDowncast<ir::PrimFunc>(func);
    if (!prim.defined()) continue;
    std::string symbol = driver::IsCLibraryName(gv->name) ? gv->name + "_kernel" : gv->name;
    prim.CopyOnWrite()->attrs.Set(ir::String("global_symbol"), ir::String(symbol));
    out.Add(gv, prim);
  }
  return out;
}

}  // namespace kiln::relax::transform::testing

#endif  // KILN_COMPILER_RELAX_TRANSFORM_FUSION_TEST_UTIL_H_
