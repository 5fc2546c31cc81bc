# expect-error: 7:9: overflows the index type
# from tvm.script import tirx as T
# 2**48 elements indexed in int32: llvm and c built it (and wrapped the flattened index).

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((65536, 65536, 65536), "float32")
    B[0, 0, 0] = T.float32(1)
    A[0] = B[0, 0, 0]
