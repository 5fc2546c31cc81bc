# from tvm.script import tirx as T
# "int1" (1-bit mma operands) and plain "float8" are dtypes TVM's parser accepts.

@T.prim_func
def narrow(A: T.Buffer((256,), "int1"), B: T.Buffer((16,), "float8")):
    C = T.decl_buffer((256,), "int1", scope="local")
    C[0] = A[0]
    B[1] = B[0]
