# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
    T.evaluate(T.call_extern("int32", "my_init", n))
    for i in range(16):
        B[i] = T.call_extern("float32", "my_fast_exp", A[i])
        B[i] = B[i] + T.call_pure_extern("float32", "expf", A[i])
    T.evaluate(T.call_packed("my.packed.func", A.data, B.data, n))
    T.evaluate(T.call_extern("void", "debug_print", "value:", B[0]))
    B[1] = T.call_llvm_pure_intrin("float32", "llvm.sqrt", A[1])
    B[2:6] = T.call_llvm_pure_intrin("float32x4", "llvm.fabs", A[2:6])
    T.evaluate(T.call_llvm_intrin("void", "llvm.donothing"))
