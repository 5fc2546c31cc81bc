# from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, TLane, TCol, P, F
from tvm.tirx.layout import laneid as lane
# Names imported from tvm.tirx.layout: the layout builders (S, R, TileLayout) and the axes TVM's
# module exports by name (TLane is Axis.TLane), under their own name or an alias.

@T.prim_func
def main():
    A = T.alloc_buffer((128, 32), scope="tmem", layout=TileLayout(S[(128, 32) : (1 @ TLane, 1 @ TCol)]))
    B = T.alloc_buffer((128, 512), scope="trn.sbuf", layout=T.TileLayout(T.S[(128, 512) : (1 @ P, 1 @ F)]))
    C = T.alloc_buffer((32,), scope="local", layout=TileLayout(S[32 : 1 @ lane]))
    T.evaluate(0)
