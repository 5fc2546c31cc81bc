# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
    T.attr({"tirx.device_entry": T.bool(True)})
    psum = T.alloc_buffer((10,), scope="trn.psum")
    inter = T.alloc_buffer((10,), scope="trn.sbuf")
    with T.tile.compose_op():
        T.tile.add(B[0:10], A[0:10], T.float32(1.0))
        T.tile.add(C[0:10], B[0:10], T.float32(1.0))
    with T.tile.compose_op(workspace={"intermediate": inter}, dispatch="fused", schedule="A"):
        T.tile.add(B[0:10], A[0:10], T.float32(1.0))
        T.tile.mul(C[0:10], B[0:10], A[0:10], workspace={"psum": psum})
