# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    with T.attr({"pragma_import_llvm": "declare float @llvm.sqrt.f32(float)"}):
        for i in range(32):
            B[i] = A[i]
    with T.attr(A.data, "storage_alignment", 64):
        with T.attr({"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
            for i in range(32, 64):
                B[i] = A[i] + T.float32(1.0)
        with T.attr("default", "device_id", 0):
            T.attr("default", "device_type", 2)
            B[0] = B[0] * T.float32(2.0)
