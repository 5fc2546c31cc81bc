# expect-error: 6:5: cannot be reassigned
# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    p = T.tvm_stack_alloca("shape", 2)
    p = T.tvm_stack_alloca("shape", 2)
    T.evaluate(p)
