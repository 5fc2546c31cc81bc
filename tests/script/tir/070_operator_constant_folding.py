# from tvm.script import ir as I
# from tvm.script import tirx as T

# Operators fold constants and identities as TVM's operator functions do (T.ceildiv(14, 4) is 4,
# x[0:m] has extent m, not m - 0), so the printed form re-parses to the same IR.
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add(x_handle: T.handle, y_handle: T.handle, n: T.int32):
        m = T.int64()
        x = T.match_buffer(x_handle, (m,))
        y = T.match_buffer(y_handle, (16,), "float32")
        with T.sblock("root"):
            T.reads(x[0:m])
            T.writes(y[0:16])
            for i_0 in T.serial(T.ceildiv(14, 4)):
                for i_1 in T.vectorized(4):
                    if i_0 * 4 + i_1 < 14:
                        y[i_0 * 4 + i_1 * 1] = x[T.int64(3) + 4]
            for j in range(T.ceildiv(n, 4)):
                y[T.max(j, j) + T.floordiv(15, 4) * 0] = T.float32(1.5) + T.float32(0.25)
