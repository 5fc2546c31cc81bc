# expect-error: 7:43: T.Ramp lanes must be between 1 and 32767, got 40000
# from tvm.script import tirx as T
# A vector of 40,000 lanes aborted LLVM (SmallVector unable to grow); a lane count must fit the int16 lanes field.

@T.prim_func
def main(A: T.Buffer((40000,), "int32")):
    A[T.Ramp(0, 1, 40000)] = T.Ramp(0, 1, 40000)
