# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R
# Hand-written Relax forms: out_ty as call_tir's third positional argument, one tensor as its
# arguments, a Python tuple bound as a Relax tuple, R.TupleGetItem, a shape written as a tuple,
# symbolic vars unpacked in one assignment, a PrimFunc called directly.

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((16,), "float32"), y: R.Tensor(("m", "n"), "float32")):
        m, n = T.int64(), T.int64()
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add_one, x, R.Tensor((16,), dtype="float32"))
            b = R.call_tir(cls.add_one, (a,), R.Tensor((16,), dtype="float32"))
            z = R.zeros((m, n), "float32")
            t = (a, b, z)
            u = R.TupleGetItem(t, 1)
            R.output(t, u)
        return (t, u)

    @R.function(pure=False)
    def planned(x: R.Tensor((16,), "float32")):
        cls = Module
        out = R.builtin.alloc_tensor(R.shape([16]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = cls.add_one(x, out)
        return out

    @R.function
    def keywords(x: R.Tensor((8, 8), "float32")):
        y = R.strided_slice(x, axes=[0], end=[4], begin=[0])
        z: R.Tensor("float32", ndim=2) = R.add(y, y)
        return z
