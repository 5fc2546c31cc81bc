# from tvm.script import tirx as T
# Two parameter buffers on one data pointer: the second is matched in the body with data=A.data.

@T.prim_func
def aliased(A_handle: T.handle, B_handle: T.handle):
    A = T.match_buffer(A_handle, [256], "float32")
    B = T.match_buffer(B_handle, [16, 16], "float32", data=A.data)
    B[0, 1] = A[0]
