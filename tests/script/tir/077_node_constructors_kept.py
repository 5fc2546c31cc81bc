# from tvm.script import tirx as T

# Nodes the operators would fold (x + 0, 3 * 4, 1 < 2, min(x, x)) come from the node
# constructors and print back as them, as TVM's printer does, so they survive a round trip.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "bool")):
    for i in range(16):
        with T.sblock("a"):
            v = T.axis.spatial(16, T.Add(i, 0))
            A[v] = T.Mul(3, 4) + T.Min(v, v) + T.FloorDiv(v, 1) + T.Sub(v, 0)
            B[v] = T.LT(1, 2)
