# expect-error: 10:5: operand 'enable_input_d' is a .pred source
# from tvm.script import tirx as T

@T.prim_func
def main():
    T.device_entry()
    d = T.local_scalar("uint32")
    desc = T.local_scalar("uint64")
    flag = T.local_scalar("uint32")
    T.ptx["tcgen05.mma.cta_group::2.kind::tf32"](d, desc, desc, d, 0, 0, 0, 0, 0, 0, 0, 0, flag)
