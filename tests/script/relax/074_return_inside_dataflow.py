# from tvm.script import relax as R

@R.function(private=True)
def main(A: R.Tensor((16,), dtype="float16")):
    # TVM reads a return that ends a dataflow block as R.output of what it uses plus a return
    # after the block.
    with R.dataflow():
        B = R.add(A, A)
        C = R.multiply(B, B)
        return C
