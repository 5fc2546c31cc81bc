// TVMScript kernels shared by the GPU backends' tests (CUDA source and LLVM NVPTX), so that both
// backends are checked on the same program.
#ifndef KILN_COMPILER_TARGET_TESTING_GPU_KERNELS_H_
#define KILN_COMPILER_TARGET_TESTING_GPU_KERNELS_H_

#include <string>

namespace kiln::codegen::testing {

// One warp's tensor-core instruction of the given shape ("m16n8k16") on fragments in local arrays:
// each lane loads 8 float16 of A, 4 of B and zeroes 4 float32 accumulators.
inline std::string MmaKernel(const std::string& shape) {
  return R"(
@T.prim_func
def main(A: T.Buffer((256,), "float16"), B: T.Buffer((128,), "float16"), C: T.Buffer((128,), "float32")):
    tx = T.launch_thread("threadIdx.x", 32)
    a = T.alloc_local((8,), "float16")
    b = T.alloc_local((4,), "float16")
    c = T.alloc_local((4,), "float32")
    for i in T.unroll(8):
        a[i] = A[tx * 8 + i]
    for i in T.unroll(4):
        b[i] = B[tx * 4 + i]
        c[i] = T.float32(0)
    T.ptx_legacy.mma(")" + shape + R"(", "row", "col", "fp16", "fp16", "fp32", a.data, 0, b.data, 0, c.data, 0, False)
    for i in T.unroll(4):
        C[tx * 4 + i] = c[i]
)";
}

}  // namespace kiln::codegen::testing

#endif  // KILN_COMPILER_TARGET_TESTING_GPU_KERNELS_H_
