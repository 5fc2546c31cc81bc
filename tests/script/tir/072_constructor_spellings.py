# from tvm.script import ir as I
# from tvm.script import tirx as T

# Node and constant constructors hand-written tests use: T.cast with keywords, T.const
# (tvm.tirx.const), T.IntImm / T.FloatImm / T.StringImm, T.Call(op, args, ret_ty=...) with an
# operator name or I.Op.get, and "" as the void dtype of a call.
@T.prim_func(s_tir=True)
def main(A: T.Buffer((1,), "int32"), B: T.Buffer((4,), "float32"), E: T.Buffer((2,), "bool")):
    A[0] = T.cast(T.ceil(T.log2(T.cast(14, "float64"), dtype="float64")), dtype="int32")
    B[0] = T.cast(value=A[0], dtype="float32") * T.FloatImm("float32", 0.5)
    B[1] = T.const(2.5, "float32") + T.const(1.5)
    E[0] = E[1] == T.const(True, "bool")
    A[0] = T.IntImm("int32", 8) + T.const(3)
    T.evaluate(T.call_extern("call_impl", B.data, dtype=""))
    T.evaluate(T.call_llvm_intrin("", "llvm.donothing"))
    T.evaluate(T.Call("tirx.prefetch", [T.address_of(B[0]), 0, 3, 1], ret_ty="void"))
    T.evaluate(T.Call(I.Op.get("tirx.tvm_call_packed"), ["dummy_function_name"], ret_ty="void"))
    T.evaluate(T.call_extern("int32", "puts", T.StringImm("hello")))
