# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main():
    buf = T.alloc_buffer((128, 128))
    buf_1 = T.decl_buffer((128, 128), data=buf.data)
    buf_1[0, 0] = T.float32(1.0)
    T.evaluate(buf.data)
