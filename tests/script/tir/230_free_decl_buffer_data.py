# from tvm.script import tirx as T
# With check_well_formed=False a declared buffer may sit over a data pointer nothing defines: the
# pointer is a free variable, printed as a definition at the top of the function.

@T.prim_func(check_well_formed=False)
def main():
    ptr = T.handle("int32")
    n = T.int32()
    buf = T.decl_buffer((4,), "int32", data=ptr, strides=(n,))
    T.evaluate(buf[1])
