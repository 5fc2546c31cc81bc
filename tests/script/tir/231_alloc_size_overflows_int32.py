# from tvm.script import tirx as T
# 2**48 elements indexed in int32: TVM's parser accepts the program, and so does kiln check; the
# build refuses it (its flattened index would wrap; tir/analysis/allocation_size.h).

@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((65536, 65536, 65536))
    B[0, 0, 0] = T.float32(1)
    A[0] = B[0, 0, 0]
