# from tvm.script import tirx as T
# T.decl_buffer(..., data=<pointer expression>): the declared buffer views memory from that
# address (here the upper half of A).

@T.prim_func
def upper_half(A: T.Buffer((32,), "float32")):
    B = T.decl_buffer((16,), "float32", data=T.address_of(A[16]))
    for i in range(16):
        B[i] = B[i] * T.float32(2)
