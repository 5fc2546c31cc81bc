from tvm.script import tirx as T


@T.prim_func
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (512,), "float16")
    B = T.match_buffer(b, (512,), "float16")
    # lanes spelled k * T.vscale() or T.vscale() * k, a dtype string with scalable lanes
    for i in range(4):
        B[T.Ramp(i * 128, 1, 8 * T.vscale())] = A[T.Ramp(i * 128, 1, T.vscale() * 8)] + T.Broadcast(T.float16(1), 8 * T.vscale())
    B.vstore([256], A.vload([256], "float16xvscalex8"))
    B[0:T.vscale() * 8] = T.Cast("float16xvscalex8", T.Ramp(0, 1, T.vscale() * 8))
