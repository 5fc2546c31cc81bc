# from tvm.script import tirx as T
# T.bind(value, T.handle("float32")) binds a new variable of the annotated (pointer) type.

@T.prim_func
def typed(A: T.Buffer((2, 16), "float32")):
    row = T.bind(T.address_of(A[1, 0]), T.handle("float32"))
    R = T.decl_buffer((16,), data=row)
    R[3] = T.float32(1)
