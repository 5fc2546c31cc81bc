# expect-error: 7:5: fma_half: .sat and .relu are on separate syntax lines
# from tvm.script import tirx as T

@T.prim_func
def main(H: T.Buffer((4,), "uint16")):
    T.device_entry()
    T.ptx.fma.rn.relu.sat.f16(H[0], H[1], H[2], H[3])
