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
        gv0 = R.dist.call_tir(cls.add_one, (x,), out_ty=R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R"))
        gv1: R.DTensor((128, 64), "float32", "mesh[0]", "S[0], S[1]") = R.matmul(gv0, w, out_dtype="void")
        gv2: R.DTensor((128, 64), "float32", "mesh[0]", "S[0], S[1]") = R.add(gv1, R.dist.const(1.0, R.DTensor((), "float32", "mesh[0]", "R, R")))
        gv3: R.DTensor((64, 128), "float32", "mesh[0]", "S[1], S[0]") = R.permute_dims(gv2, axes=None)
        gv4: R.DTensor((64, 128), "float32", "mesh[0]", "R, R") = R.ccl.allreduce(gv3, op_type="sum", in_group=True)
        gv5: R.DTensor((64, 128), "float32", "mesh[0]", "S[1], R") = R.dist.redistribute(gv4, device_mesh="mesh[0]", placement="S[1], R")
        gv6: R.DTensor((64, 2, 64), "float32", "mesh[0]", "S[1], R") = R.reshape(gv5, R.shape([64, 2, 64]))
        return gv2

    @R.function
    def bar(x: R.Tensor((128, 128), dtype="float32")) -> R.Tensor((128, 128), dtype="float32"):
        lv0: R.Tensor((128, 128), dtype="float32") = R.dist.annotate_sharding(x, device_mesh="mesh[1]", placement="S[0]")
        lv1: R.Tensor((128, 64), dtype="float32") = R.dist.redistribute_replica_to_shard(lv0, num_workers=2, axis=1)
        lv2: R.Tensor((128, 128), dtype="float32") = R.ccl.broadcast_from_worker0(lv0)
        lv3: R.Tensor((256, 128), dtype="float32") = R.ccl.allgather(lv2, num_workers=2, in_group=True)
        lv4: R.Tensor((64, 128), dtype="float32") = R.ccl.scatter_from_worker0(lv2, num_workers=2, axis=0)
        return lv2
