# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")):
    with R.dataflow():
        lv = R.add(x, y)
        lv1 = R.nn.relu(lv)
        lv2 = R.sum(lv1, axis=[0], keepdims=False)
        lv3 = R.reshape(lv2, (2, 2))
        gv = lv3
        R.output(gv)
    return gv
