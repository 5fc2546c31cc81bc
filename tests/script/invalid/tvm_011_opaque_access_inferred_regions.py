# expect-error: 4:1: cannot be inferred
# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.S(16, i)
            T.evaluate(T.call_extern("int32", "f", A.data))
