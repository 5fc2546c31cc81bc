# expect-error: 7:30: wider than kiln's limit of 256 lanes
# from tvm.script import tirx as T
# A vector of 40,000 lanes aborted LLVM (SmallVector unable to grow); kiln's limit is 256 lanes.

@T.prim_func
def main(A: T.Buffer((40000,), "int32")):
    A[T.Ramp(0, 1, 40000)] = T.Ramp(0, 1, 40000)
