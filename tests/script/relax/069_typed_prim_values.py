# from tvm.script import tirx as T
# from tvm.script import relax as R

# Prim values keep their dtype: int32 and bool ones print typed, inside call_dps_packed's
# argument list too (int64 is the bare literal).
@R.function
def main(x: R.Tensor((10, 10), dtype="float32")) -> R.Tensor((10, 10), dtype="float32"):
    gv0: R.Tensor((10, 10), dtype="float32") = R.call_dps_packed("runtime.disco.allreduce", [x, R.shape([0]), True], out_ty=R.Tensor((10, 10), dtype="float32"))
    a = R.prim_value(T.int32(0))
    b = R.prim_value(3)
    return gv0
