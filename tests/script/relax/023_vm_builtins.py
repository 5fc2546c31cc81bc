# from tvm.script import tirx as T
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((32, 64), dtype="int32")) -> R.Tensor((32, 64), dtype="int32"):
    obj: R.Any = R.vm.alloc_storage(R.shape([8192]), runtime_device_index=0, dtype="uint8", storage_scope="global")
    a: R.Tensor((32, 64), dtype="int32") = R.vm.alloc_tensor(obj, offset=0, shape=R.shape([32, 64]), dtype="int32")
    b: R.Tensor((32, 64), dtype="int32") = R.builtin.alloc_tensor(R.shape([32, 64]), R.dtype("int32"), R.prim_value(0))
    _: R.Tuple = R.call_packed("vm.builtin.copy", x, a, ty_args=R.Tuple)
    _1: R.Tuple = R.vm.kill_object(obj)
    return a
