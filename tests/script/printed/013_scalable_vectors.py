# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "int32")):
    for i in range(8):
        B[i * (T.vscale() * 4):i * (T.vscale() * 4) + T.vscale() * 4] = A[i * (T.vscale() * 4):i * (T.vscale() * 4) + T.vscale() * 4] * T.Broadcast(T.float32(2.0), T.vscale() * 4)
    C[0:T.vscale() * 8 * 2:2] = T.Ramp(0, 3, T.vscale() * 8)
    B.vstore([T.Ramp(16, 1, T.vscale() * 4)], A.vload([T.Ramp(0, 4, T.vscale() * 4)], predicate=T.get_active_lane_mask("uint1xvscalex4", 0, 30)), predicate=T.get_active_lane_mask("uint1xvscalex4", 0, 30))
    C[64:64 + T.vscale() * 2] = T.reinterpret("int32xvscalex2", B[64:64 + T.vscale() * 2])
    C[0] = T.vscale()
