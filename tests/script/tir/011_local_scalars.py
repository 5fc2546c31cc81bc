# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), out: T.Buffer((16,), "float32"), cnt: T.Buffer((16,), "int64")):
    for i in range(16):
        s: T.float32
        c: T.int64
        m: T.float16
        ok: T.bool
        s = T.float32(0.0)
        c = T.int64(0)
        m = T.float16(0.0)
        ok = T.bool(False)
        for j in range(16):
            s = s + A[i, j]
            if A[i, j] > T.float32(0.0):
                c = c + T.int64(1)
                ok = T.bool(True)
            m = T.max(m, T.Cast("float16", A[i, j]))
        if ok:
            out[i] = s + T.Cast("float32", m)
        else:
            out[i] = s
        cnt[i] = c
