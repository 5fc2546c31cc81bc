# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"target": T.target("cuda")})
    bx = T.launch_thread("blockIdx.x", 2)
    tx = T.launch_thread("threadIdx.x", 128)
    A_shared = T.alloc_shared((128,), "float32")
    A_shared[tx] = A[bx * 128 + tx]
    T.tvm_storage_sync("shared")
    if T.likely(tx < 64):
        A_shared[tx] = A_shared[tx] + A_shared[tx + 64]
    T.tvm_storage_sync("shared")
    T.tvm_storage_sync("warp")
    B[bx * 128 + tx] = A_shared[tx % 64] + T.reinterpret("float32", T.reinterpret("int32", A_shared[0]))
    T.evaluate(T.assume(tx < 128))
