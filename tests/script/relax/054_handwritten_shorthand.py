# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4, "n"), "float32"), y: R.Tensor([4, "n"], "float32")):
    n = T.int64()
    with R.dataflow():
        a = x + y
        b = a * x
        c = b - y
        d = R.add(R.multiply(a, b), c)
        e = d / x
        R.output(e)
    return e
