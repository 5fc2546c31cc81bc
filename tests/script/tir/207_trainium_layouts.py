# Trainium buffer layouts and pre-assigned addresses: layout="PF"-style annotations on trn.sbuf
# buffers become TileLayouts on the partition (P) and free (F) axes (a partition dimension over
# 128 is split, its high part outermost on F); allocated_addr= is one address or several.
# from tvm.script import tirx as T

@T.prim_func
def main():
    T.device_entry()
    A_sbuf = T.alloc_buffer([256, 512], "float32", scope="trn.sbuf", layout="PF", allocated_addr=[4 * 512 * 4 + 1])
    B_sbuf = T.alloc_buffer((2, 128, 64), scope="trn.sbuf", layout="FPF", allocated_addr=[1])
    C_sbuf = T.alloc_buffer((128, 64), scope="trn.sbuf", layout=None)
    acc_psum = T.alloc_buffer((8, 128, 512), scope="trn.psum", allocated_addr=[0, 0])
    A_sbuf[0, 0] = B_sbuf[0, 0, 0] + C_sbuf[0, 0] + acc_psum[0, 0, 0]
