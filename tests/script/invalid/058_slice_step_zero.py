# expect-error: 7:27: slice step cannot be zero
# from tvm.script import tirx as T
# A zero step divided by zero when the parser counted the slice's lanes.
@T.prim_func
def f(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
    for i in range(8):
        B[i * 4:i * 4 + 4:0] = A[i * 4:i * 4 + 4]
