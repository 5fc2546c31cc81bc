# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((16,), dtype="float32")) -> R.Shape([16]):
    # R.ShapeExpr is relax.ShapeExpr, which TVMScript exports: the same node as R.shape.
    s = R.ShapeExpr([16])
    return s
