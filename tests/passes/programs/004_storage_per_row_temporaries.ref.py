import numpy as np

ENTRY = "main"
OUTPUTS = [1]
RTOL = 0
ATOL = 0

def make_inputs(rng):
    return [rng.integers(-1000, 1000, (8, 16)).astype("int32"), np.zeros((8, 16), "int32")]

def expected(inputs):
    a = inputs[0].astype(np.int64)
    x = a * 3 + np.arange(8)[:, None]
    y = x[:, ::-1] - x
    z = y * y + 1
    return [(z + y).astype("int32")]
