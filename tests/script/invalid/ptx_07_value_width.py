# expect-error: 7:41: operand 'value' must have dtype uint32 / int32 / float32 (from .b32), got uint64
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32"), W: T.Buffer((4,), "uint64")):
    T.device_entry()
    T.ptx.st.global_.b32(A.ptr_to([0]), W[0])
