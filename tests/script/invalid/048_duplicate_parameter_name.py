# expect-error: 6:40: duplicate parameter name A
# from tvm.script import tirx as T
# The second A was silently renamed A_1; Python itself rejects this.

@T.prim_func
def main(A: T.Buffer((8,), "float32"), A: T.Buffer((8,), "float32")):
    A[0] = T.float32(1)
