# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(X: T.Buffer((4, 32), "float32"), Y: T.Buffer((4, 32), "float32"), S: T.Buffer((64,), "float32")):
    T.tile.memset(Y[0:4, 0:32], T.float32(0.0))
    T.warp.copy(Y[0:2, 0:32], X[2:4, 0:32], workspace={"stage": S}, dispatch="vec4", unroll=2)
    T.wg.exp(Y[0:4, 0:32])
    T.cta.add(Y[0:4, 0:32], Y[0:4, 0:32], X[0:4, 0:32])
    T.cluster.fill(Y[1, 0:8], T.float32(3.5), mode="fast")
