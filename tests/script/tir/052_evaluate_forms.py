# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main():
    T.evaluate(0)
    T.evaluate(1)
    T.evaluate(T.int64(5))
    T.evaluate(T.call_extern("void", "barrier"))
    T.evaluate(T.call_intrin("int32", "tirx.tvm_call_packed", "runtime.Sync"))
