# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def tir_full(var_A: T.handle, n: T.int64):
        A = T.match_buffer(var_A, (n,), "int32")
        for i in range(n):
            A[i] = 1

    @R.function(pure=False)
    def main(s: R.Shape(["n"])) -> R.Tensor(("n",), dtype="int32"):
        n = T.int64()
        cls = Module
        storage: R.Any = R.vm.alloc_storage(R.shape([n * T.int64(4)]), runtime_device_index=0, dtype="uint8", storage_scope="global")
        alloc: R.Tensor((n,), dtype="int32") = R.vm.alloc_tensor(storage, offset=0, shape=R.shape([n]), dtype="int32")
        _: R.Tuple = R.vm.call_tir_dyn(cls.tir_full, (alloc, R.shape([n])))
        return alloc
