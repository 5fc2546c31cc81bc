# from tvm.script import tirx as T
# With check_well_formed=False, TVM skips its well-formed check: a variable bound by nothing
# (`a = T.int32()` not matched by any buffer shape) is a free variable of the function.

@T.prim_func(check_well_formed=False)
def main(x: T.handle):
    n = T.int64()
    a = T.int32()
    A = T.match_buffer(x, (n * 32,), "float32")
    A[T.min(T.int64(0), n)] = T.float32(a)
