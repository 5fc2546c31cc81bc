# TVM v0.26's T.nki (Trainium) intrinsics, whose optional trailing parameters (accum, bias, scale,
# reverse) are always filled in, plus the TIRx builtins T.thread_return, T.ptr_byte_offset (the
# pointee dtype as a type_annotation) and the Relax VM any-list slots.
# from tvm.script import tirx as T

@T.prim_func
def nki(A: T.Buffer((128, 512), "float32"), B: T.Buffer((128, 512), "float32")):
    T.device_entry()
    A_sbuf = T.alloc_buffer((128, 512), scope="trn.sbuf")
    B_sbuf = T.alloc_buffer((128, 512), scope="trn.sbuf")
    for i, j in T.grid(128, 512):
        T.nki.load(A_sbuf[i, j], A[i, j])
        T.nki.memset(B_sbuf[i, j], T.float32(0.0))
        T.nki.tensorscalar(B_sbuf[i, j], A_sbuf[i, j], T.float32(1.0), "add")
        T.nki.matmul(B_sbuf[i, j], A_sbuf[i, j], A_sbuf[i, j], accum=False)
        T.nki.activation(B_sbuf[i, j], A_sbuf[i, j], "exp", scale=2.0)
        T.nki.tensorreduce(B_sbuf[i, 0], A_sbuf[i, j], "add", False, 1)
        T.nki.store(B[i, j], B_sbuf[i, j])


@T.prim_func
def builtins(r: T.handle, A: T.Buffer((8,), "float16")):
    shared = T.alloc_buffer((8,), "float16", scope="shared")
    typed_alias = T.ptr_byte_offset(shared.data, 4, "float32")
    T.evaluate(T.anylist_setitem_call_packed(r, T.int32(1), "vm.builtin.copy", T.anylist_getitem(r, T.int32(2))))
    T.evaluate(T.anylist_resetitem(r, T.int32(0)))
    T.evaluate(T.address_of(typed_alias))
    if A[0] > T.float16(0):
        T.thread_return()
    A[1] = shared[0]
