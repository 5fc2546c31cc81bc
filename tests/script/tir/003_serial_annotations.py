# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in T.serial(32, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        B[i] = A[i]
    for i in T.serial(32, 64, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1]}):
        B[i] = A[i] + T.float32(1.0)
    for i in T.serial(64, 96, unroll=False):
        B[i] = A[i]
    for i in T.serial(96, 128, unroll=4):
        B[i] = A[i]
    for i in T.parallel(128, annotations={"pragma_key": "value"}):
        B[i] = B[i] * T.float32(0.5)
