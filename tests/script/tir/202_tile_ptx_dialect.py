# TVM v0.26's table-driven PTX dialect: T.ptx.<family>.<modifiers>(operands, pred=...) is one void
# call of tirx.ptx.<family> with the operands, the guard, the modifier tokens and a marker string;
# `::` is spelled `__` and keywords take a trailing `_` in attribute form; T.ptx["text"] spells
# the PTX text; T.ptx.pred / T.ptx.SINK / T.ptx.addr tag operands. The printed call form reads
# back to the same call.
# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((4,), "int32"), bar: T.Buffer((1,), "uint64")):
    T.device_entry()
    tx = T.thread_id([128])
    d: T.int32
    p: T.uint32
    T.ptx.mbarrier.init.shared.b64(T.address_of(bar[0]), 1)
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx["mbarrier.arrive.shared::cta.b64"](T.address_of(bar[0]))
    T.ptx.mad.hi.sat.s32(d, A[0], A[1], A[2])
    T.ptx.setp.lt.s32(p, A[0], A[1])
    T.ptx.setp.lt.and_.s32(p, A[0], A[1], T.ptx.pred(p))
    T.ptx.st.global_.b32(T.ptx.addr(T.address_of(A[3]), 4), d, pred=p == 1)
    T.ptx.mov.b64(T.ptx.SINK, p, bar[0])
    T.ptx.mad(d, A[0], A[1], A[2], "lo", "", "s32", "")
    T.ptx.and_.b32(d, d, A[tx % 4])
    A[tx % 4] = d
