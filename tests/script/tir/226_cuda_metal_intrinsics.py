# from tvm.script import tirx as T
# TVM's T.cuda warp and conversion helpers (__shfl*_sync have the value's dtype, make_float2 is a
# uint64, uint_as_float and fdividef float32, printf void) and T.metal's simdgroup builtins
# (void, the TVM ops tirx.<name>) and simd shuffles.

@T.prim_func
def main(A: T.Buffer((32,), "float32"), U: T.Buffer((4,), "uint32"), P: T.Buffer((2,), "uint64")):
    mask = T.cuda.__activemask()
    A[0] = T.cuda.__shfl_sync(mask, A[1], 0, 32)
    A[1] = T.cuda.__shfl_down_sync(mask, A[2], 1, 32)
    U[0] = T.cuda.__shfl_xor_sync(mask, U[1], 4, 32)
    P[0] = T.cuda.make_float2(A[0], A[1])
    A[2] = T.cuda.uint_as_float(U[2])
    A[3] = T.cuda.fdividef(A[0], A[1])
    T.cuda.printf("%d\n", U[0])
    A[4] = T.metal.simd_shuffle(A[5], 1)
    T.metal.make_filled_simdgroup_matrix(A.data, 0, T.float32(0), 8, 8)
    T.metal.simdgroup_load(A.data, 0, A.data, 8, 8, 8, T.bool(False))
