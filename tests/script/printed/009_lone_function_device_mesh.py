# from tvm.script import relax as R

@R.function
def scale(a: R.DTensor((8, 8), "float32", R.device_mesh((2,), R.Range(0, 2)), "S[0]")) -> R.DTensor((8, 8), "float32", R.device_mesh((2,), R.Range(0, 2)), "S[0]"):
    b: R.DTensor((8, 8), "float32", R.device_mesh((2,), R.Range(0, 2)), "S[0]") = R.multiply(a, a)
    return b
