# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.decl_buffer((4,), "float32") as b:
        b[0] = A[0]
        A[1] = b[0]
    with T.decl_buffer((4,), "float32") as c:
        c[0] = A[2]
        A[3] = c[0]
