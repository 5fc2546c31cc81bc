from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import Axis, S, TileLayout
from tvm.tirx.lang.warp_role import WarpRole, WarpgroupRole

SHAPE = (4, 16, 8)


@T.prim_func
def main(a: T.handle, c: T.handle):
    A = T.match_buffer(a, (8, 16), "float16", layout=TileLayout(S[(2, 4, 16) : (1024, 64, 1)]))
    T.match_buffer(c, (4,), "float32")
    T.device_entry()
    wg = T.warpgroup_id([2])
    warp = T.warp_id_in_wg([4])
    # views over A's storage: each a decl_buffer with its own shape, layout and offset
    row = A.sub[5]
    rows = A.sub[4:8, 0:8]
    odd = A.sub[:, 1::2]
    t = A.permute(1, 0)
    r = A.rearrange("(outer inner) tail -> outer tail inner", outer=2)
    k = A.tile((0, (2, -1)))[1, :]
    wide = A.view("float32")
    frag = T.alloc_buffer((32, 2), "float32", scope="local", layout=TileLayout(S[(32, 2) : (1 @ Axis.laneid, 2)] + 3))
    mine = frag.local()
    pair = frag.local(2, layout=frag.layout.storage())
    atom = T.TileLayout(T.S[(1, 2) : (2, 1)])
    regs = T.alloc_buffer([2], "float16", scope="local")
    lanes = regs.view(8, 8, layout=atom.tile(T.TileLayout(T.S[32 : 1 @ Axis.laneid]), (8, 4), (1, 2)))
    own = lanes.local()
    own[1] = T.float16(0)
    cube = T.alloc_buffer(SHAPE, "float32", scope="local")
    flat = T.alloc_buffer(SHAPE[1:], "float32", scope="local")
    with WarpRole(warp, 1, regs=48):
        Tx.fill(cube[0], T.float32(0))
    with WarpgroupRole(wg, 0, regs=232, increase=True):
        Tx.copy(flat, cube[1])
    row[0] = rows[1, 2] + odd[0, 0] + t[1, 1] + r[0, 0, 0] + k[0, 0]
    mine[5] = pair[1] + wide[0, 0] + T.float32(A.elem_offset_of([1, 2]))
