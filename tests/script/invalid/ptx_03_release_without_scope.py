# expect-error: 7:5: st: st.release requires a scope (cta/cluster/gpu/sys)
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.ptx.st.release.global_.b32(A.ptr_to([1]), A[0])
