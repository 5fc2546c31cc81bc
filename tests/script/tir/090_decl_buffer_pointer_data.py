# from tvm.script import tirx as T
# T.decl_buffer(..., data=<pointer expression>): the declared buffer views memory from that
# address (here the upper half of A). A let of a plain variable used as data= stays a let.

@T.prim_func
def upper_half(A: T.Buffer((32,), "float32")):
    B = T.decl_buffer((16,), "float32", data=T.address_of(A[16]))
    for i in range(16):
        B[i] = B[i] * T.float32(2)
    P: T.let[T.handle("float32")] = A.data
    C = T.decl_buffer((32,), "float32", data=P)
    C[0] = T.float32(1)
