# from tvm.script import relax as R

# Indexing an inline tuple is a TupleGetItem node (printed R.TupleGetItem(...), since Python
# indexing of a tuple literal would give the field itself).
@R.function(private=True)
def expected(cond: R.Tensor((), "bool"), x: R.Tensor((1,), "float32")) -> R.Tensor(dtype="float32", ndim=1):
    c = R.TupleGetItem(R.tuple(cond), 0)
    if c:
        gv = R.add(x, x)
        y = gv
    else:
        gv = R.multiply(x, x)
        y = gv
    return y
