# expect-error: 10:20: operand 'tmap' does not support T.ptx.addr(...)
# from tvm.script import tirx as T

@T.prim_func
def main(desc: T.Buffer((16,), "uint64")):
    T.device_entry()
    tile = T.alloc_buffer((64,), "float16", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared")
    T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"](
        tile.data, T.ptx.addr(desc.data, 64), T.int32(0), T.int32(8), bar.data
    )
