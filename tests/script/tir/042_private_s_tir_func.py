# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(private=True, s_tir=True)
def relu(x: T.Buffer((T.int64(4), T.int64(4)), "float32"), compute: T.Buffer((T.int64(4), T.int64(4)), "float32")):
    T.func_attr({"op_pattern": 0, "tirx.noalias": True})
    # with T.sblock("root"):
    for i0, i1 in T.grid(T.int64(4), T.int64(4)):
        with T.sblock("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(x[v_i0, v_i1])
            T.writes(compute[v_i0, v_i1])
            compute[v_i0, v_i1] = T.max(x[v_i0, v_i1], T.float32(0.0))
