# from tvm.script import tirx as T

# The pre-dialect tensor-core spellings s_tir tensor intrinsics emit: T.ptx_legacy.ldmatrix with
# and without its element dtype (int8 by default), and T.ptx_legacy.mma with a dtype= that is
# dropped and an optional operator.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float16"), B: T.Buffer((8, 16), "float16")):
    tx = T.launch_thread("threadIdx.x", 32)
    MultiA = T.decl_buffer([8], "float16", scope="local")
    MultiB = T.decl_buffer([4], "float16", scope="local")
    Accum = T.decl_buffer([4], "float16", scope="local")
    A_shared = T.alloc_buffer((16, 16), "float16", scope="shared")
    for i in range(4):
        Accum[i] = T.float32(0)
    T.ptx_legacy.ldmatrix("float16", T.bool(False), 4, ".b16", MultiA.data, 0, T.tvm_access_ptr(T.type_annotation("float16"), A_shared.data, 0, 256, 1), tx * 8)
    T.ptx_legacy.ldmatrix(T.bool(True), 2, ".b16", MultiB.data, 0, A_shared.data, tx * 8)
    T.evaluate(T.ptx_legacy.mma("m16n8k16", "row", "col", "float16", "float16", "float16", MultiA.data, 0, MultiB.data, 0, Accum.data, 0, False, dtype="float16"))
    T.ptx_legacy.mma("m16n8k256", "row", "col", "int1", "int1", "int32", MultiA.data, 0, MultiB.data, 0, Accum.data, 0, False, operator="xor")
    B[0, 0] = Accum[0]
