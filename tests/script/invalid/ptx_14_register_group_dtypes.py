# expect-error: 7:50: its lanes must have one dtype, got int32 and float32
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), F: T.Buffer((4,), "float32")):
    T.device_entry()
    T.ptx.st.global_.v2.b32(A.ptr_to([0]), A[1], F[0])
