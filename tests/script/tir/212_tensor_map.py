# CUDA tensor-map descriptors: T.TensorMap() parameters and T.handle("tensormap") (the same
# type: a pointer to ir.TensorMapType) bound to descriptor storage.
# from tvm.script import tirx as T

@T.prim_func
def main(A_map: T.TensorMap(), A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), align=16)
    B_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapInit", B_map, "float32", 2, A.data, 16, 16)
    T.evaluate(T.address_of(A_map))
