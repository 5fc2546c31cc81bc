import numpy as np

ENTRY = "main"
OUTPUTS = [1]
RTOL = 1e-6
ATOL = 1e-6

def make_inputs(rng):
    return [rng.standard_normal(64).astype("float32"), np.zeros(64, "float32")]

def expected(inputs):
    f = np.float32
    t1 = inputs[0] + f(1.0)
    t2 = t1 * f(2.0)
    t3 = t2 - t1[::-1]
    t4 = t3 * t2
    return [(t4 + t3).astype("float32")]
