# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

# A region slice whose start and stop have different integer widths: its extent takes the wider
# type, as stop - start would, so the printed T.int64 bounds read back as the same region.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    with T.sblock("copy"):
        T.reads(A[T.int64(0):16])
        T.writes(B[0:16])
        for i in range(16):
            B[i] = A[i]
