# expect-error: 7:9: negative extent -8
# from tvm.script import tirx as T
# llvm and c allocated 1 byte for it and wrote past it; the interpreter refused it at run time.

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((-8,), "float32")
    B[0] = T.float32(1)
    A[0] = B[0]
