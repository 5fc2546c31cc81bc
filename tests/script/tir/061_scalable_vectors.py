# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"target": T.target({"keys": ["arm_cpu", "cpu"], "kind": "llvm", "mattr": ["+sve"], "mtriple": "aarch64-linux-gnu", "tag": ""})})
    for i in range(128 // (T.vscale() * 4)):
        B[T.Ramp(i * (T.vscale() * 4), 1, T.vscale() * 4)] = A[T.Ramp(i * (T.vscale() * 4), 1, T.vscale() * 4)] + T.Broadcast(T.float32(1.0), T.vscale() * 4)
