# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tile = T.alloc_shared((64,))
    with T.launch_thread("threadIdx.x", 64) as tx:
        with T.attr({"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
            tile[tx] = A[bx * 64 + tx]
        with T.attr(tile.data, "storage_alignment", 64):
            T.attr({"compute_scope": "main_compute_"})
            for i in range(2):
                B[bx * 64 + tx] = tile[63 - tx] * T.float32(2.0)
