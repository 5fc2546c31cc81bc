# TVM v0.26's T.hint directive: an AttrStmt "tirx_hint" whose node is the {message, attrs} map,
# over a with body or, written as a statement, over the rest of the block.
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((128, 64), "float32")):
    T.device_entry()
    bx = T.cta_id([2])
    with T.hint("software pipeline, depth 4"):
        for i in range(4):
            A[i, 0] = T.float32(0)
    T.hint(access=A[0:64, 0:64])
    T.hint("partition", access=A[bx * 64 : bx * 64 + 64, 0:64], depth=4)
    T.hint("scheduler", mode="persistent")
    A[bx, 1] = T.float32(1)
