# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(a: T.handle, b: T.handle, k: T.int32):
    n = T.int32()
    A = T.match_buffer(a, (n,))
    B = T.match_buffer(b, (n,))
    assert n > 0, ("ValueError", ["n must be positive"])
    assert k >= 0 and k < n, ("IndexError", ["k out of range: ", "expected 0 <= k < n"])
    assert n % 4 == 0, ("RuntimeError", ["n must be a multiple of 4"])
    assert T.bool(True), ("RuntimeError", ["assertion"])
    for i in range(n):
        B[i] = A[(i + k) % n]
