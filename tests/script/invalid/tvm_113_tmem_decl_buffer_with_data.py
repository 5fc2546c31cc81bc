# expect-error: 5:10: data=
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    with T.decl_buffer((16,), "float32", data=A.data, scope="tmem", allocated_addr=0) as B:
        A[0] = B[0]
