# from tvm.script import tirx as T

# Buffer.access_ptr, Buffer.ty (the buffer's type: shape, dtype, elem_offset), x.ty of a typed
# handle as a call dtype, T.let[T.handle("float32")], T.buffer (the function behind T.Buffer),
# T.decl_buffer without data= (a new allocation), and a store of another element type (cast to
# the buffer's, as TVM's builder does).
@T.prim_func(s_tir=True)
def main(A: T.buffer((128, 128), "float32"), args: T.handle, B: T.Buffer((4,), "float16")):
    T.evaluate(T.call_extern("int32", "use", A.access_ptr("r"), A.access_ptr("rw", offset=128, extent=64)))
    T.evaluate(T.call_extern("int32", "use4", A.access_ptr("w", content_lanes=4)))
    T.evaluate(T.call_extern("int32", "dims", len(A.ty.shape), A.ty.elem_offset, A.ty.dtype))
    arg0: T.let[T.handle] = T.tvm_struct_get(args, 0, 12, dtype="handle")
    A_data: T.let[T.handle("float32")] = T.reinterpret(T.handle("float32").ty, T.tvm_struct_get(arg0, 0, 1, dtype="handle"))
    shape_data: T.let[T.handle("int64", "global")] = T.tvm_struct_get(arg0, 0, 2, dtype=T.handle("int64").ty)
    D = T.decl_buffer([1024], dtype="float32", data=A_data)
    S = T.decl_buffer([2], dtype="int64", data=shape_data)
    Tmp = T.decl_buffer([4], "float16", scope="local")
    Tmp[0] = T.float32(0)
    Tmp[1] = D[0]
    B[0] = Tmp[1] + T.Cast("float16", S[0])
