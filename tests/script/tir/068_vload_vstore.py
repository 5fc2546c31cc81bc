# from tvm.script import tirx as T
# Buffer.vload / Buffer.vstore: several lanes from a start index (the last index becomes a Ramp).

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(4):
            B.vstore([i, j * 4], A.vload([i, j * 4], "float32x4") * T.Broadcast(T.float32(2), 4))
    B[0, 0] = A.vload([0, 1])
