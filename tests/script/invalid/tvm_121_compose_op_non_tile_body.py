# expect-error: 10:5: only tile primitive calls are allowed in the body of T.tile.compose_op; it holds a tirx.BufferStore
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.device_entry()
    C = T.alloc_buffer([10], "float32", scope="trn.sbuf")
    with Tx.compose_op():
        Tx.add(B, A, T.float32(1))
        C[0] = A[0]
