# from tvm.script import tirx as T
# A launch over a CTA's index in its thread-block cluster (clusterCtaIdx.{x,y,z}), as TVM's CUDA
# backend has it; kiln parses and prints it, its lowering refuses it.

@T.prim_func(private=True)
def main(A: T.Buffer((8,), "int32")):
    cx = T.launch_thread("clusterCtaIdx.x", 2)
    bx = T.launch_thread("blockIdx.x", 4)
    A[bx * 2 + cx] = T.cuda.mov_sreg(32, "clusterid.x")
