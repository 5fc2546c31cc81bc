import numpy as np

ENTRY = "main"
OUTPUTS = [1]
RTOL = 0
ATOL = 0

def make_inputs(rng):
    n = 29
    return [rng.integers(-1000, 1000, n).astype("int32"), np.zeros(n, "int32")]

def expected(inputs):
    a = inputs[0]
    b = a * 5
    b[2:] = a[2:] * 3
    b[2:-2] = a[:-4] + a[4:] - a[2:-2]
    return [b.astype("int32")]
