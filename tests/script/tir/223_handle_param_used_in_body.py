# from tvm.script import tirx as T
# A handle parameter the body names itself stays a parameter; its buffer is matched in the body
# instead of becoming a T.Buffer annotation, which would leave the handle undefined.

@T.prim_func
def main(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,))
    A[0] = T.float32(1)
    T.call_packed("runtime.consume", A_ptr)
