# expect-error: 4:10: type annotation
# from tvm.script import tirx as T
@T.prim_func
def main(a):
    T.evaluate(0)
