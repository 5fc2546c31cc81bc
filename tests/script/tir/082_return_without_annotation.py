# from tvm.script import tirx as T
# TVM's parser accepts `return v` in a function without a return annotation (its return type
# stays empty); it prints without `->`.

@T.prim_func
def implicit_ret(a: T.float32, b: T.float32):
    if a < b:
        return a
    return b
