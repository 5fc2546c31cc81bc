# expect-error: 8:5: div_f: missing required modifier(s): mode
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    T.device_entry()
    q = T.local_scalar("float32")
    T.ptx.div.ftz.f32(q, A[0], A[1])
