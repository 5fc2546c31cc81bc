# expect-error: 7:41: a bare float literal is ambiguous
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.ptx.st.global_.b32(A.ptr_to([0]), 0.5)
