# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((1, 10), dtype="float32"), y: R.Tensor((1, 10), dtype="int64"), io: R.Any):
    with R.dataflow():
        s = R.square(x)
        # x.astype(dtype) is R.astype(x, dtype), as on TVM's Relax expressions.
        t = R.multiply(s, y.astype("float32"))
        # A Python tuple of tuples of Relax values binds one nested Relax tuple.
        gv = (s, t), (io,)
        R.output(gv)
    return gv
