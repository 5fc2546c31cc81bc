# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cpu"], "kind": "llvm", "mtriple": "x86_64-pc-linux-gnu", "tag": ""}, 0, "global"), I.vdevice({"arch": "sm_80", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 0, "global")]})
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0")) -> R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32", vdevice="llvm:0") = R.add(x, x)
            gv: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0") = R.to_vdevice(lv, dst_vdevice="cuda:0:global")
            R.output(gv)
        return gv
