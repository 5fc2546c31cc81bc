# expect-error: 9:5: pointer variable 'p' cannot be reassigned
# from tvm.script import tirx as T

@T.prim_func
def main():
    T.device_entry()
    buf = T.alloc_buffer((8,), "float32", scope="shared")
    p = T.address_of(buf[2])
    p = buf.ptr_to([4])
    T.evaluate(T.reinterpret("uint64", p))
