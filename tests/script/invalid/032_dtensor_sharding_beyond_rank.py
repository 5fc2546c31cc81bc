# expect-error: 10:16: R.DTensor: sharding axis 2 is not below the tensor's rank 2
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def foo(x: R.DTensor((8, 8), "float32", "mesh[0]", "S[2]")) -> R.DTensor((8, 8), "float32", "mesh[0]", "S[2]"):
        return x
