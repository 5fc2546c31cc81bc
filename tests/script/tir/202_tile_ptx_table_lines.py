# T.ptx calls the PTX instruction table accepts: one mnemonic resolving to different syntax lines
# by its tokens (add.s32 / add.rn.f32 / add.f32.bf16) or its operand shape (mov pack / unpack,
# setp p / p|q), sign-extending and widened destinations, a shared uint32 address, the T.ptx.pred
# source tag and a sunk lane.
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "int32"), F: T.Buffer((4,), "float32"), W: T.Buffer((2,), "int64")):
    T.device_entry()
    tx = T.thread_id([32])
    smem = T.alloc_buffer((8,), "uint32", scope="shared")
    s = T.local_scalar("int32")
    f = T.local_scalar("float32")
    h = T.local_scalar("uint16")
    u = T.local_scalar("uint32")
    q = T.local_scalar("uint32")
    packed = T.local_scalar("uint64")
    r = T.local_scalar("float64")
    T.ptx.add.s32(s, A[0], A[1])
    T.ptx.add.rn.f32(f, F[0], F[1])
    T.ptx.add.f32.bf16(f, h, f)
    T.ptx.mul.wide.s32(W[0], s, A[2])
    T.ptx.ld.global_.s32(W[1], A.ptr_to([3]))
    T.ptx.ld.shared.b32(u, T.uint32(16))
    T.ptx.mov.b64(packed, F[0], F[1])
    T.ptx.mov.b64(T.ptx.SINK, f, packed)
    T.ptx.setp.lt.s32(u, A[0], A[1])
    T.ptx.setp.lt.s32(u, q, A[0], A[1])
    T.ptx.setp.ge.and_.s32(u, A[0], A[1], T.ptx.pred(q))
    T.ptx.set.lt.u32.f32(u, f, f)
    T.ptx.lop3.b32(u, u, q, u, 0x96)
    T.ptx.atom.global_.cas.b32(s, A.ptr_to([4]), s, A[5])
    T.ptx.rcp.approx.ftz.f64(r, T.float64(2))
    A[tx % 8] = s
