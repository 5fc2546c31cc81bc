# expect-error: 9:8: the annotation of 'C' does not match its value
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

# Without check_well_formed=False an annotation must agree with the call's inferred type.
@R.function
def main(A: R.Tensor((128, 32), dtype="float32"), B: R.Tensor((128, 32), dtype="float32")):
    C: R.Tensor((128, 32), dtype="int32") = R.add(A, B)
    return C
