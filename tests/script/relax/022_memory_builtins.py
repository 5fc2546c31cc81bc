# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
    storage: R.Any = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float32"))
    alloc: R.Tensor((4, 4), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 4]), R.dtype("float32"))
    _: R.Tuple = R.call_packed("my_copy", x, alloc, ty_args=R.Tuple)
    y: R.Tensor((4, 4), dtype="float32") = R.add(alloc, x)
    _1: R.Tuple = R.memory.kill_tensor(alloc)
    _2: R.Tuple = R.memory.kill_storage(storage)
    return y
