# expect-error: 24:15: ShapeExpr
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"device_num": 4})
    I.module_global_infos({"mesh": [R.device_mesh((2, 2), I.Range(0, 4)), R.device_mesh((2,), [4, 5])]})

    @T.prim_func
    def add_one(x: T.Buffer((T.int64(128), T.int64(128)), "float32"), y: T.Buffer((T.int64(128), T.int64(128)), "float32")):
        for i, j in T.grid(T.int64(128), T.int64(128)):
            with T.sblock("y"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes()
                y[vi, vj] = x[vi, vj] + T.float32(1.0)

    @R.function
    def foo(x: R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R"), w: R.DTensor((128, 64), "float32", "mesh[0]", "R, S[1]")) -> R.DTensor((128, 64), "float32", "mesh[0]", "S[0], S[1]"):
        cls = Module
        gv0 = R.dist.call_tir(cls.add_one, (x,), out_ty=R.DTensor(None, "float32", "mesh[0]", "S[0], R", ndim=2))
        return gv0
